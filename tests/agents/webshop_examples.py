"""The WebShop few-shot examples of the baseline agents, read back as each agent's answers.

Each parser turns one agent's examples file into the answers the agent would
have given (in its own answer format, with the purpose of its call), keyed by
the instruction the example was written for, so a test can play them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from mockllm.scripted import ScriptEntry

ROOT = Path(__file__).resolve().parents[2]
PROMPTS = {name: ROOT / "agent" / "agents" / folder / "prompts" / "webshop"
           for name, folder in (("react", "react"), ("codeact", "codeact"), ("plan-execute", "plan_execute"),
                                ("recap", "recap"))}


@dataclass
class Example:
    instruction: str
    entries: list[ScriptEntry] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)  # every action the example sends, in order
    text: str = ""  # the example as the prompt shows it


def _task(text: str) -> str:
    return re.search(r"^Task: (.*)$", text, re.M).group(1).strip()


def react_examples() -> list[Example]:
    out = []
    for path in sorted((PROMPTS["react"] / "examples").glob("*.txt")):
        text = path.read_text()
        ex = Example(_task(text))
        for thought, action in re.findall(r"^Thought: (.*)\nAction: (.*)$", text, re.M):
            ex.entries.append(ScriptEntry(f"Thought: {thought}\nAction: {action}", purpose="act", once=True))
            ex.actions.append(action)
        out.append(ex)
    return out


def codeact_examples() -> list[Example]:
    out = []
    for path in sorted((PROMPTS["codeact"] / "examples").glob("*.txt")):
        text = path.read_text()
        ex = Example(_task(text), text=text)
        for cell in re.findall(r"^\[cell \d+\]\n(<think>.*?</think>\n<execute>\n.*?\n</execute>)$", text, re.M | re.S):
            ex.entries.append(ScriptEntry(cell, purpose="act", once=True))
        out.append(ex)
    return out


def plan_execute_examples() -> list[Example]:
    folder = PROMPTS["plan-execute"]
    planner = folder.joinpath("planner_examples.txt").read_text().strip().split("\n\n")
    executor = folder.joinpath("executor_examples.txt").read_text().strip().split("\n\n")
    steps = {}
    for block in executor:
        step = re.match(r"Your step: \w+: (.*)", block).group(1)
        turns = re.findall(r"^(Thought: .*\n(?:Action|Done): .*)$", block, re.M)
        steps[step] = turns
    out = []
    for block in planner:
        ex = Example(_task(block))
        plan = block[block.index("{"):]
        ex.entries.append(ScriptEntry(plan, purpose="plan", once=True))
        for description in re.findall(r'"description": "([^"]*)"', plan):
            when = re.compile(r"Your step: \w+: " + re.escape(description))
            for turn in steps[description]:
                ex.entries.append(ScriptEntry(turn, purpose="act", once=True, when=when))
                if "\nAction: " in turn:
                    ex.actions.append(turn.split("\nAction: ", 1)[1])
        out.append(ex)
    return out


def recap_examples() -> list[Example]:
    text = PROMPTS["recap"].joinpath("examples.txt").read_text()
    out = []
    for chunk in re.split(r"\n(?=Task: )", text.strip()):
        ex = Example(_task(chunk))
        purpose = "refine"
        answer: list[str] = []

        def flush() -> None:
            if answer:
                ex.entries.append(ScriptEntry("\n".join(answer), purpose=purpose, once=True))
                answer.clear()

        for line in chunk.splitlines()[2:]:
            if line.startswith(("## ", "Observation after `")):
                flush()
                purpose = "decompose" if line.startswith("## depth") else "refine"
                if line.startswith("Observation after `"):
                    ex.actions.append(line[len("Observation after `"):line.index("`:")])
            else:
                answer.append(line)
                if line.startswith("Thought:") and len(answer) > 1:
                    raise AssertionError(f"two answers without an observation between them: {answer}")
            if line.startswith(("Subtasks:", "Done:", "Failed:")) or line[:1].isdigit():
                continue
        flush()
        out.append(ex)
    return out


EXAMPLES = {"react": react_examples, "codeact": codeact_examples, "plan-execute": plan_execute_examples,
            "recap": recap_examples}
