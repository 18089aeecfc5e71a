"""No agent's first prompt teaches another agent's answer format: a ReAct prompt that says
`run(...)` asks a model for an answer ReAct refuses.

Every agent (and each Plan-and-Execute role) on every bundled environment, rendered as
`recode-tui prompt show --game GAME --agent NAME [--role ROLE]` prints it.
"""

from __future__ import annotations

import re

import pytest

from recode_tui.commands.cli import main

GAMES = {"alfworld": "put-01", "webshop": "webshop:0", "sciworld": "sciworld:boil/0"}

# each answer format's own words, and who answers in it
CODE = ("code cells", ("run(", "<execute>", "</execute>", "<think>"))
ACTION_LINE = ("one `Action:` line", (re.compile(r"^Action:", re.M),))
SUBTASKS = ("a subtask list", ("Subtasks:",))
PLAN_JSON = ("a JSON plan", ('"depends_on"',))
FORMATS = {
    ("recode", ""): CODE,
    ("codeact", ""): CODE,
    ("react", ""): ACTION_LINE,
    ("plan-execute", "executor"): ACTION_LINE,
    ("recap", ""): SUBTASKS,
    ("plan-execute", "planner"): PLAN_JSON,
    ("plan-execute", "replanner"): PLAN_JSON,
}


def foreign_words(prompt: str, own: tuple[str, tuple[object, ...]]) -> list[str]:
    """The words of another answer format found in `prompt`, each with its format."""
    found = []
    for name, words in {fmt for fmt in FORMATS.values() if fmt != own}:
        for word in words:
            hit = word.search(prompt) if isinstance(word, re.Pattern) else (word if word in prompt else None)
            if hit:
                shown = word.pattern if isinstance(word, re.Pattern) else word
                line = prompt[: prompt.find(hit.group(0) if isinstance(hit, re.Match) else hit)].count("\n") + 1
                found.append(f"line {line}: {shown!r} ({name})")
    return found


@pytest.mark.parametrize("env", [pytest.param(env, marks=pytest.mark.heavy) if env == "sciworld" else env
                                 for env in GAMES])
def test_no_agents_first_prompt_has_another_agents_protocol_words(env, capsys, node_code_in_process) -> None:
    problems = []
    for (agent, role), own in FORMATS.items():
        assert main(["prompt", "show", "--game", GAMES[env], "--agent", agent, *(["--role", role] if role else [])]) == 0
        prompt = capsys.readouterr().out
        assert len(prompt) > 500, (agent, role, prompt)
        problems += [f"{agent}{'/' + role if role else ''}: {found}" for found in foreign_words(prompt, own)]
    assert not problems, "\n".join(problems)
