"""`--llm journal:DIR` over an eval folder replays the episodes the eval played, never a newer fork beside them.

The journals are the subject, not the engine: the evaluations play the toy world (tests/toyenv)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from .helpers import read_report, recode, toy_script

pytestmark = pytest.mark.heavy  # starts engines in other processes: not in `make quick`


def test_journal_replay_of_an_eval_uses_the_reports_own_journals_and_says_which(tmp_path: Path, toy_env) -> None:
    first = tmp_path / "first"
    result = recode(tmp_path, "eval", "--env", "toy", "--llm", "gold", "--games", "coin-1,vase-1", "-c", "1",
                    "--out", str(first), "--no-progress")
    assert result.returncode == 0, result.stderr
    original = Path(next(e["journal"] for e in read_report(first)["episodes"] if e["game"] == "coin-1"))

    # A later, losing recording of coin-1 beside it (a fork saved there by an older version, say).
    bugged = tmp_path / "bugged"
    result = recode(tmp_path, "eval", "--env", "toy", "--llm", f"scripted:{toy_script(tmp_path, losers={'coin-1'})}",
                    "--games", "coin-1", "--out", str(bugged), "--no-progress")
    assert result.returncode == 0, result.stderr
    stray = first / "journals" / "coin-1~fork"
    shutil.copytree(Path(read_report(bugged)["episodes"][0]["journal"]), stray)
    lines = (stray / "journal.jsonl").read_text().splitlines()
    header = json.loads(lines[0])
    header["created"] = header.get("created", 0) + 10_000  # the newest recording of coin-1
    (stray / "journal.jsonl").write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")

    again = tmp_path / "again"
    result = recode(tmp_path, "eval", "--env", "toy", "--llm", f"journal:{first}", "--games", "coin-1,vase-1", "-c", "1",
                    "--out", str(again), "--no-progress")
    assert result.returncode == 0, result.stderr
    assert f"coin-1: answers from {original}" in result.stdout
    assert str(stray) not in result.stdout
    assert all(e["success"] for e in read_report(again)["episodes"])
