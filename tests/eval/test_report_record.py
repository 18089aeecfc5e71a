"""The evaluation report is read through one loader: a hand-edited or cut report is refused in one
line naming the field, and a report from an earlier version gets its record's defaults."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.eval.loaded_report import CompareError, load_report
from agent.eval.report import EvalReport
from agent.eval.results import PLAN_VERSION
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
    ({"plan__max_steps": 8.5}, "its `plan.run.max_steps` is 8.5, not a whole number"),
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


def test_compare_reads_through_the_same_loader(tmp_path) -> None:
    bad = _write(tmp_path / "bad", _report(episodes__cost="free"))
    with pytest.raises(CompareError, match=r"its `episodes\[0\].cost` is 'free', not a number"):
        load_report(bad)
    old = _report(plan={"llm": "demo", "games": [{"id": "put-01"}]}, episodes=[{"game": "put-01", "success": True}])
    loaded = load_report(_write(tmp_path / "old", old))
    assert loaded.report == EvalReport.read(tmp_path / "old" / "report.json")
    assert (loaded.report.plan.run.agent.name, loaded.episodes[0].steps, loaded.episodes[0].reason) == ("recode", 0, "")


def test_an_earlier_report_gets_its_records_defaults(tmp_path) -> None:
    """Games without a task type, episodes without a reason (hand-made or older), no plan settings."""
    report = _report(plan={"llm": "demo", "games": [{"id": "put-01"}]},
                     episodes=[{"game": "put-01", "success": False}])
    loaded = EvalReport.read(_write(tmp_path / "old", report) / "report.json")
    assert loaded.plan.games[0].task_type is None and loaded.plan.run.env.name == "alfworld"
    assert loaded.plan.run.max_steps == 80
    assert (loaded.episodes[0].reason, loaded.episodes[0].task_type, loaded.episodes[0].steps) == ("", None, 0)


def test_the_plan_carries_its_own_version_and_an_unknown_one_is_refused(tmp_path, capsys) -> None:
    """The plan's format is versioned apart from the report's: written on every report, read back by the
    loader; a plan without one (written before) reads as this version, a plan of another is refused."""
    written = tmp_path / "new" / "report.json"
    EvalReport.from_json(_report()).write(written)
    assert json.loads(written.read_text(encoding="utf-8"))["plan"]["version"] == PLAN_VERSION
    assert EvalReport.read(written).plan.version == PLAN_VERSION
    assert EvalReport.read(_write(tmp_path / "old", _report()) / "report.json").plan.version == PLAN_VERSION
    future = _write(tmp_path / "future", _report(plan__version="recode.eval-plan.v9"))
    said = "its plan is version 'recode.eval-plan.v9'; this recode-tui reads recode.eval-plan.v2 plans"
    with pytest.raises(CompareError, match=said):
        load_report(future)
    assert main(["eval", "--resume", str(future), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert said in err and len(err.splitlines()) == 1
