"""`recode.compare.v1`: a comparison as JSON for scripts (`recode-tui compare A B --json`).

The same numbers as the text tables and the paper table: per comparison the
settings that differ, the prompt files that differ, each row's means on both
sides with its paired tests, the flipped episodes; and the paper table
(success and, where the environment has one, mean score per task type).
"""

from __future__ import annotations

from typing import Any, Sequence

from agent.eval.compare import Comparison, Row
from agent.eval.paired import McNemar, SignFlip
from agent.eval.paper_table import PaperTable

COMPARE_VERSION = "recode.compare.v1"


def _interval(bounds: tuple[float, float] | None) -> list[float] | None:
    return None if bounds is None else [bounds[0], bounds[1]]


def _success_test(test: McNemar | None) -> dict[str, Any] | None:
    if test is None:
        return None
    return {"test": "mcnemar_exact", "won_to_lost": test.b, "lost_to_won": test.c, "p": test.p}


def _score_test(test: SignFlip | None) -> dict[str, Any] | None:
    if test is None:
        return None
    return {"test": "paired_sign_flip", "pairs": test.pairs, "mean_difference": test.mean_difference, "p": test.p,
            "exact": test.exact}


def _row(row: Row) -> dict[str, Any]:
    return {"task_type": row.task_type, "episodes": row.episodes, "base": dict(row.base), "other": dict(row.other),
            "delta": {m: row.delta(m) for m in row.base},
            "success_interval": {"base": _interval(row.base_interval), "other": _interval(row.other_interval)},
            "tests": {"success": _success_test(row.success_test), "score": _score_test(row.score_test)}}


def _comparison(comparison: Comparison) -> dict[str, Any]:
    return {
        "baseline": comparison.base_path, "other": comparison.other_path,
        "agents": list(comparison.agents), "common": list(comparison.common),
        "only_baseline": list(comparison.only_base), "only_other": list(comparison.only_other),
        "repeats": list(comparison.repeats),
        "identical_plays": [reason or None for reason in comparison.identical],
        "settings_differ": [{"setting": name, "baseline": a, "other": b} for name, a, b in comparison.differences],
        "prompt_files_differ": [change.to_dict() for change in comparison.prompt_files],
        "metrics": list(comparison.metrics),
        "rows": [_row(row) for row in comparison.rows],
        "flips": [{"episode": f.episode, "task_type": f.task_type, "won_before": f.won_before,
                   "baseline_journal": f.base_journal, "other_journal": f.other_journal, "reason": f.reason}
                  for f in comparison.flips],
    }


def compare_document(comparisons: Sequence[Comparison], table: PaperTable) -> dict[str, Any]:
    """Every comparison against the baseline, and the paper table of all the runs."""
    return {"version": COMPARE_VERSION, "comparisons": [_comparison(c) for c in comparisons],
            "table": table.to_dict()}
