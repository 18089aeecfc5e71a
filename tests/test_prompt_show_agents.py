"""`recode-tui prompt show --agent NAME [--role ROLE]`: any agent's first prompt from the shell."""

from __future__ import annotations

import pytest

from agent.runtime.prompts import env_text
from recode_tui.commands.cli import main

OPENINGS = {
    "recode": "You are an agent acting in a text environment by writing Python. A task is solved top-down",
    "react": "Work in turns: think about what you know and what to do next",
    "codeact": "Work in cells: think, then write one code cell",
    "plan-execute": "You are the planner of an agent",
    "recap": "You solve the task top-down. At every level",
}


@pytest.mark.parametrize("agent", list(OPENINGS))
def test_prompt_show_prints_any_agents_first_prompt(agent, capsys, node_code_in_process) -> None:
    assert main(["prompt", "show", "--game", "put-01", "--agent", agent]) == 0
    out = capsys.readouterr().out
    assert OPENINGS[agent] in out and "put a vase in sidetable." in out
    assert env_text("alfworld", "facts.txt") in out and env_text("alfworld", "actions.txt") in out


def test_prompt_show_prints_each_role_of_plan_and_execute(capsys) -> None:
    heads = {"planner": "You are the planner", "executor": "You are the executor", "replanner": "You are the replanner"}
    for role, head in heads.items():
        assert main(["prompt", "show", "--game", "put-01", "--agent", "plan-execute", "--role", role]) == 0
        out = capsys.readouterr().out
        assert out.startswith(head), (role, out[:80])
    assert main(["prompt", "show", "--agent", "plan-execute", "--role", "critic"]) == 2
    assert "--role critic: agent plan-execute has the role(s) planner, executor, replanner" in capsys.readouterr().err
    assert main(["prompt", "show", "--agent", "react", "--stub", "x = f(y)"]) == 2
    assert "--stub, --after and --task-type are ReCode's" in capsys.readouterr().err


def test_the_docs_agent_table_is_the_one_the_code_generates(capsys) -> None:
    from pathlib import Path

    from agent.eval.fairness import readme_table, table_markdown

    assert main(["prompt", "table"]) == 0
    printed = capsys.readouterr().out.strip()
    assert printed == table_markdown() and printed.count("\n| `") == 5  # one row per agent
    page = (Path(__file__).resolve().parent.parent / "docs" / "agents.md").read_text(encoding="utf-8")
    assert readme_table(page) == printed, "run `recode-tui prompt table` and paste it into docs/agents.md"
    for row in printed.splitlines()[2:]:
        assert "task, env facts" in row and "answer (first 20 lines) + why; 5 re-asks" in row
