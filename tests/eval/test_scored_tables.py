"""Where the environment has a score (WebShop, ScienceWorld), the paper tables and `compare --json` show it
beside success: those papers report the mean score."""

from __future__ import annotations

import csv
import io
import json

import pytest

from recode_tui.commands.cli import main


def webshop_report(folder, scores: dict[str, float], won: set[str] = frozenset()) -> str:
    """A WebShop report: each episode's score (the reward x 100) and whether it won."""
    episodes = [{"game": g, "task_type": "fashion", "success": g in won, "reason": "", "score": score, "steps": 6,
                 "llm_calls": 3, "journal": ""} for g, score in scores.items()]
    folder.mkdir()
    (folder / "report.json").write_text(json.dumps({
        "version": "recode.eval.v1", "status": "complete",
        "plan": {"llm": "demo", "env": "webshop", "agent": "recode", "games": [{"id": g} for g in scores]},
        "episodes": episodes}))
    return str(folder)


@pytest.fixture
def two_runs(tmp_path):
    base = webshop_report(tmp_path / "base", {"webshop:1": 70.0, "webshop:2": 75.0, "webshop:3": 72.5})
    better = webshop_report(tmp_path / "better", {"webshop:1": 80.0, "webshop:2": 100.0, "webshop:3": 90.0},
                            won={"webshop:2"})
    return base, better


def test_markdown_csv_and_latex_show_the_mean_score_beside_success(two_runs, capsys):
    assert main(["compare", *two_runs, "--format", "markdown"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "| Agent | fashion | overall |"
    assert lines[2] == "| recode (base) | 0.0 / 72.5 | 0.0 / 72.5 |"
    assert lines[3] == "| recode (better) | 33.3 / 90.0 | 33.3 / 90.0 |"
    assert lines[-1] == "_each cell: success rate (%) / mean score_"

    assert main(["compare", *two_runs, "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["overall"], r["overall_score"]) for r in rows] == [("0.0", "72.5"), ("33.3", "90.0")]

    assert main(["compare", *two_runs, "--format", "latex"]) == 0
    latex = capsys.readouterr().out
    assert r"recode (better) & \textbf{33.3} / \textbf{90.0} & \textbf{33.3} / \textbf{90.0} \\" in latex
    assert "% each cell: success rate (%) / mean score" in latex


def test_compare_json_has_the_rows_the_paired_tests_and_the_table(two_runs, capsys):
    assert main(["compare", *two_runs, "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["version"] == "recode.compare.v1"
    [comparison] = document["comparisons"]
    overall = comparison["rows"][-1]
    assert overall["task_type"] == "overall" and overall["episodes"] == 3
    assert overall["base"]["score"] == 72.5 and overall["other"]["score"] == 90.0
    # three score differences +10, +25, +17.5: only all-plus and all-minus of 8 sign assignments reach +52.5
    assert overall["tests"]["score"] == {"test": "paired_sign_flip", "pairs": 3, "mean_difference": 17.5,
                                         "p": 0.25, "exact": True}
    assert overall["tests"]["success"] == {"test": "mcnemar_exact", "won_to_lost": 0, "lost_to_won": 1, "p": 1.0}
    assert [f["episode"] for f in comparison["flips"]] == ["webshop:2"]
    table = document["table"]
    assert table["columns"] == ["fashion", "overall"]
    assert table["rows"][0]["cells"]["overall"] == {"success": 0.0, "success_interval": None, "mean_score": 72.5}


def test_the_text_comparison_prints_the_score_test(two_runs, capsys):
    assert main(["compare", *two_runs]) == 0
    out = capsys.readouterr().out
    assert ("mean score: paired sign-flip test over 3 episodes, mean change +17.5: p = 0.250 "
            "(two-sided, every sign assignment)") in out
    assert "+17.5, p = 0.250" in out  # the score cell's change


def test_json_and_format_together_are_refused_in_one_line(two_runs, capsys):
    assert main(["compare", *two_runs, "--json", "--format", "csv"]) == 2
    assert capsys.readouterr().err.strip() == "recode-tui: error: --json and --format each print the table; give one of them"
