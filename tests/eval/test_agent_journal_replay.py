"""`eval --agent NAME --llm journal:DIR` replays another agent's evaluation, not just ReCode's.

Both bugs were in the researcher's loop for the non-ReCode agents: a one-agent
`eval --agent react --llm demo` was handed ReCode's demo script, and a ReAct
journal recorded each answer under the root's task line rather than the turn
it was asked for, so `journal:` found no answer for `turn 1`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from recode_tui.commands.cli import main

pytestmark = pytest.mark.heavy  # starts engines in other processes: not in `make quick`


def actions_by_game(folder: Path) -> dict[str, list[str]]:
    report = json.loads((folder / "report.json").read_text())
    out = {}
    for episode in report["episodes"]:
        records = [json.loads(line) for line in (Path(episode["journal"]) / "journal.jsonl").read_text().splitlines()]
        out[episode["game"]] = [r["action"] for r in records if r["type"] == "action"]
        assert episode["success"], (episode["game"], episode["reason"])
    return out


@pytest.mark.parametrize("agent", ["react", "codeact"])
def test_an_agents_demo_eval_replays_from_its_own_journals(tmp_path, capsys, agent: str) -> None:
    first, again = tmp_path / "first", tmp_path / "again"
    common = ["--agent", agent, "--task-types", "put", "--games", "2", "-c", "1", "--no-progress"]
    assert main(["eval", "--llm", "demo", *common, "--out", str(first)]) == 0
    recorded = actions_by_game(first)
    assert len(recorded) == 2 and all(recorded.values())
    journal = next((first / "journals").iterdir()) / "journal.jsonl"
    answers = [json.loads(line) for line in journal.read_text().splitlines() if '"type": "answer"' in line]
    assert answers[0]["stub"] == ("turn 1" if agent == "react" else "cell 1")  # what the LLM was asked for
    assert main(["eval", "--llm", f"journal:{first}", *common, "--out", str(again)]) == 0
    assert actions_by_game(again) == recorded
    capsys.readouterr()
