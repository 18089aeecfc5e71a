"""CodeAct's ALFWorld few-shot examples are not written for one bundled game, so each is checked
against the observations it shows: its cells are run in order, every `run(action)` answered with
the next line of the cell's shown output, every `print` checked against the lines after it. An
example passes when each action gets an answer that fits it (a `move` answers "You move the ...",
not nothing), every shown line is accounted for, and every object a thought names (`fork 2`) is
one the task or an earlier output showed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "agent/agents/codeact/prompts/alfworld/examples"
_CELL = re.compile(r"\[cell (\d+)\]\n<think>(.*?)</think>\n<execute>\n(.*?)\n</execute>\nOutput:\n(.*?)(?=\n\n\[cell |\Z)",
                   re.S)
_OBJECT = re.compile(r"\b([a-z]+ \d+)\b")

# what ALFWorld answers to each kind of action, as a pattern of the observation
_ANSWERS = (
    (re.compile(r"go to (.+)"), lambda m: rf"You arrive at {m[1]}\.|Nothing happens\."),
    (re.compile(r"open (.+)"), lambda m: rf"You open the {m[1]}\."),
    (re.compile(r"take (.+) from (.+)"), lambda m: rf"You pick up the {m[1]} from the {m[2]}\."),
    (re.compile(r"move (.+) to (.+)"), lambda m: rf"You move the {m[1]} to the {m[2]}\."),
    (re.compile(r"(heat|cool|clean) (.+) with (.+)"), lambda m: rf"You {m[1]} the {m[2]} using the {m[3]}\."),
    (re.compile(r"use (.+)"), lambda m: rf"You turn on the {m[1]}\."),
)


def check_example(text: str) -> list[str]:
    task = re.search(r"^Task: (.*)$", text, re.M)[1]
    first = re.search(r"^First observation: (.*)$", text, re.M)[1]
    seen = task + "\n" + first
    problems: list[str] = []
    namespace: dict = {"re": re, "instruction": task, "observation": first}
    for number, thought, code, output in _CELL.findall(text):
        lines = output.rstrip("\n").split("\n")
        for name in _OBJECT.findall(thought):
            if name not in seen:
                problems.append(f"cell {number}: the thought names {name}, which no observation showed")

        def run(action: str, number=number, lines=lines) -> str:
            if not lines:
                problems.append(f"cell {number}: `{action}` has no answer in the shown output")
                return ""
            answer = lines.pop(0)
            for pattern, expected in _ANSWERS:
                match = pattern.fullmatch(action)
                if match and not re.match(expected(match), answer):
                    problems.append(f"cell {number}: `{action}` is shown answering {answer!r}")
            return answer

        def show(*args, sep=" ", number=number, lines=lines, **_):
            for line in sep.join(str(a) for a in args).split("\n"):
                got = lines.pop(0) if lines else "(nothing)"
                if got != line:
                    problems.append(f"cell {number}: print gives {line!r}, the output shows {got!r}")

        namespace.update(run=run, print=show)
        exec(compile(code, f"cell {number}", "exec"), namespace)  # noqa: S102 - the project's own example text
        if lines:
            problems.append(f"cell {number}: shown output no code produced: {lines}")
        seen += "\n" + output
    return problems


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.txt")), ids=lambda p: p.stem)
def test_each_codeact_example_shows_what_its_actions_answer_and_names_only_seen_objects(path: Path) -> None:
    assert check_example(path.read_text(encoding="utf-8")) == []


def test_the_check_finds_a_move_without_its_answer_and_a_wrong_object_number() -> None:
    good = (EXAMPLES / "clean.txt").read_text(encoding="utf-8")
    bad = good.replace("I hold fork 2.", "I hold fork 1.").replace("You move the fork 2 to the countertop 1.\n", "")
    assert check_example(bad) == ["cell 3: the thought names fork 1, which no observation showed",
                                  "cell 4: `move fork 2 to countertop 1` has no answer in the shown output"]
