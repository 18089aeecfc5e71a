"""An evaluation report written before the environment seam (games with their ALFWorld file path,
no per-task selection) still resumes: the remaining episode is played and the report completes."""

from __future__ import annotations

import json
from dataclasses import asdict

import pytest

from agent.runtime.limits import Limits
from envs.alfworld.catalog import resolve_game
from recode_tui.commands.cli import main

pytestmark = pytest.mark.heavy  # plays an ALFWorld game in eval's worker process: not in `make quick`


def test_an_old_report_with_game_paths_resumes_to_complete(tmp_path, capsys) -> None:
    out = tmp_path / "old-eval"
    out.mkdir()
    report = {
        "version": "recode.eval.v1",
        "status": "interrupted",
        "note": "",
        "started": 1795440000.0,
        "updated": 1795440010.0,
        "elapsed": 10.0,
        "plan": {
            "llm": "demo",
            "games": [{"id": g, "task_type": t, "path": str(resolve_game(g))} for g, t in (("put-01", "put"), ("heat-01", "heat"))],
            "env": "alfworld", "concurrency": 1, "max_steps": 80, "limits": asdict(Limits()), "prompts": None,
            "selection": {"task_types": None, "games": "put-01,heat-01", "split": None}, "preset": "default",
            "trusted": False, "node_timeout": 5.0,
        },
        "summary": {},
        "episodes": [{"game": "put-01", "task_type": "put", "success": True, "reason": "won", "steps": 7,
                      "llm_calls": 4, "journal": "", "error": ""}],
    }
    (out / "report.json").write_text(json.dumps(report), encoding="utf-8")
    assert main(["eval", "--resume", str(out), "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "won    heat-01" in text and "mean score" not in text  # ALFWorld has no score column
    done = json.loads((out / "report.json").read_text())
    assert done["status"] == "complete" and [e["game"] for e in done["episodes"]] == ["put-01", "heat-01"]
    assert done["episodes"][1]["success"] and done["episodes"][1]["score"] is None
    header = json.loads((tmp_path / "old-eval" / "journals" / "heat-01" / "journal.jsonl").read_text().splitlines()[0])
    assert (header["run"]["env"]["name"], header["episode"], header["game"]) == ("alfworld", "heat-01", "heat-01")
