"""The evaluation report is read through one loader: a hand-edited or cut report is refused in one
line naming the field, and a report from an earlier version gets its record's defaults."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.eval.compare import CompareError, load_report
from agent.eval.report import EvalReport
from recode_tui.commands.cli import main


def _report(**changes: object) -> dict:
    report = {
        "version": "recode.eval.v1", "status": "complete", "started": 1.0, "updated": 2.0, "elapsed": 1.0,
        "plan": {"llm": "demo", "games": [{"id": "put-01", "task_type": "put"}], "env": "alfworld",
                 "concurrency": 1, "max_steps": 80, "preset": "default"},
        "episodes": [{"game": "put-01", "task_type": "put", "success": True, "reason": "won", "steps": 7,
                      "llm_calls": 4, "journal": ""}],
    }
    for path, value in changes.items():
        *parents, last = path.split("__")
        where: dict = report
        for part in parents:
            where = where[part][0] if isinstance(where[part], list) else where[part]
        where[last] = value
    return report


def _write(folder: Path, report: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "report.json").write_text(json.dumps(report), encoding="utf-8")
    return folder


@pytest.mark.parametrize("change, said", [
    ({"episodes__steps": "seven"}, "its `episodes[0].steps` is 'seven', not a whole number"),
    ({"plan__max_steps": 8.5}, "its `plan.max_steps` is 8.5, not a whole number"),
    ({"plan__games": [{"task_type": "put"}]}, "its `plan.games[0].id` is missing"),
    ({"episodes": [{"game": "put-01"}]}, "its `episodes[0].success` is missing"),
    ({"plan": ["demo"]}, "its `plan` is ['demo'], not an object"),
])
def test_a_bad_report_is_refused_in_one_line_that_says_what_to_do(tmp_path, capsys, change, said) -> None:
    folder = _write(tmp_path / "eval", _report(**change))
    with pytest.raises(ValueError, match="restore report.json from a copy or start the evaluation again") as caught:
        EvalReport.read(folder / "report.json")
    assert said in str(caught.value) and "\n" not in str(caught.value)
    assert main(["eval", "--resume", str(folder), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert said in err and len(err.splitlines()) == 1


def test_compare_refuses_a_bad_field_and_takes_other_shapes(tmp_path) -> None:
    bad = _write(tmp_path / "bad", _report(episodes__cost="free"))
    with pytest.raises(CompareError, match=r"its `episodes\[0\].cost` is 'free', not a number"):
        load_report(bad)
    other = _report(episodes=[{"episode": "put-01", "success": True}])  # named another way: compare matches it
    other["plan"]["games"] = ["put-01"]
    assert load_report(_write(tmp_path / "other", other))["episodes"][0]["episode"] == "put-01"


def test_an_earlier_report_gets_its_records_defaults(tmp_path) -> None:
    """Games without a task type, episodes without a reason (hand-made or older), no plan settings."""
    report = _report(plan={"llm": "demo", "games": [{"id": "put-01"}]},
                     episodes=[{"game": "put-01", "success": False}])
    loaded = EvalReport.read(_write(tmp_path / "old", report) / "report.json")
    assert loaded.plan.games[0].task_type is None and loaded.plan.env == "alfworld" and loaded.plan.max_steps == 80
    assert (loaded.episodes[0].reason, loaded.episodes[0].task_type, loaded.episodes[0].steps) == ("", None, 0)
