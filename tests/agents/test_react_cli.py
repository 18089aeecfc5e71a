"""ReAct from the command line: `run --agent react`, an eval that records the agent, and
`compare` of a ReCode and a ReAct evaluation of the same games, side by side."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from .scripts import react_script_file
from tests.eval.helpers import run_main

pytestmark = pytest.mark.heavy  # a real ALFWorld game, eval's worker processes


def recode(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, RECODE_TUI_SESSIONS=str(tmp_path / "sessions"), OPENAI_API_KEY="")
    return run_main(list(args), env)


def test_run_with_agent_react_and_a_scripted_file_wins(tmp_path):
    script = react_script_file(tmp_path / "react.jsonl", ["put-01"])
    result = recode(tmp_path, "run", "--agent", "react", "--llm", f"scripted:{script}", "--game", "put-01")
    assert result.returncode == 0, result.stderr
    assert "> action 1: go to diningtable 1" in result.stdout
    assert "SUCCESS: won — 4 steps, 4 LLM calls" in result.stdout


def test_a_bad_agent_option_is_one_line(tmp_path):
    result = recode(tmp_path, "run", "--agent", "react", "--agent-option", "windw=3", "--llm", "demo")
    assert result.returncode == 2
    assert "agent react has no such option (it has: window=30, check=grammar)" in result.stderr


GAMES = ["vase-1", "key-1"]


@pytest.fixture(scope="module")
def evals(tmp_path_factory, toy_module):
    """Both agents' gold players on two games of the toy world (tests/toyenv): what is checked is what eval
    records and compare prints of two agents, not the engine."""
    tmp = tmp_path_factory.mktemp("cross")
    runs = {"recode": ("--llm", "gold"), "react": ("--agent", "react", "--llm", "gold")}
    for name, args in runs.items():
        result = recode(tmp, "eval", *args, "--env", "toy", "--games", ",".join(GAMES), "-c", "1",
                        "--out", str(tmp / name), "--no-progress")
        assert result.returncode == 0, result.stderr
    return tmp


def test_eval_with_agent_react_records_the_agent_in_the_report(evals):
    report = json.loads((evals / "react" / "report.json").read_text())
    assert report["plan"]["run"]["agent"]["name"] == "react"
    assert {e["game"]: e["success"] for e in report["episodes"]} == {"vase-1": True, "key-1": True}
    assert {e["game"]: e["llm_calls"] for e in report["episodes"]} == {"vase-1": 4, "key-1": 4}  # one per action
    header = json.loads((Path(report["episodes"][0]["journal"]) / "journal.jsonl").read_text().splitlines()[0])
    assert header["run"]["agent"]["name"] == "react"


def test_compare_prints_recode_and_react_side_by_side(evals):
    result = recode(evals, "compare", str(evals / "recode"), str(evals / "react"))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "(recode, gold)" in out and "(react, gold)" in out
    assert "agents: recode → react: a cross-agent comparison of the same episodes" in out
    assert "react relative to recode (overall, per episode): " in out and "tokens " in out
    assert "recode → react, per episode" in out
    overall = next(line for line in out.splitlines() if line.startswith("│ overall"))
    assert "100.0% → 100.0%" in overall and "3.0 → 4.0" in overall  # LLM calls: ReCode 3 a game, ReAct 4
