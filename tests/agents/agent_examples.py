"""Every agent's few-shot examples, read back as the answers that agent would give.

One parser per agent turns an example text (in the agent's own answer format) into
scripted answers, each with the purpose of its call, so a test can replay an example
through the real engine and environment. `examples_of(agent, env)` reads every example
the agent has for an environment, one per task type (or the environment's one file).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from mockllm.scripted import ScriptEntry

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = {"react": "react", "codeact": "codeact", "plan-execute": "plan_execute", "recap": "recap"}
AGENTS = tuple(FOLDERS)


@dataclass
class Example:
    instruction: str
    first_observation: str = ""
    entries: list[ScriptEntry] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)  # every action the example sends, in order
    observations: list[str] = field(default_factory=list)  # what the example shows each action answering
    text: str = ""  # the example as the prompt shows it
    source: str = ""  # the file it came from


def prompts_folder(agent: str, env: str) -> Path:
    return ROOT / "agent" / "agents" / FOLDERS[agent] / "prompts" / env


def _line(text: str, label: str) -> str:
    found = re.search(rf"^{label}: (.*)$", text, re.M)
    return found.group(1).strip() if found else ""


def _turns(text: str) -> list[tuple[str, str]]:
    """(answer, observation) per `Thought:` block; an observation may run over several lines."""
    out = []
    for block in re.split(r"^(?=Thought: )", text, flags=re.M)[1:]:
        answer, _, observation = block.rstrip("\n").partition("\nObservation: ")
        out.append((answer.strip(), observation.strip()))
    return out


def react_example(text: str) -> Example:
    ex = Example(_line(text, "Task"), _line(text, "First observation"), text=text)
    for answer, observation in _turns(text):
        ex.entries.append(ScriptEntry(answer, purpose="act", once=True))
        ex.actions.append(answer.split("\nAction: ", 1)[1])
        ex.observations.append(observation)
    return ex


def codeact_example(text: str) -> Example:
    ex = Example(_line(text, "Task"), _line(text, "First observation"), text=text)
    for cell in re.findall(r"^\[cell \d+\]\n(<think>.*?</think>\n<execute>\n.*?\n</execute>)$", text, re.M | re.S):
        ex.entries.append(ScriptEntry(cell, purpose="act", once=True))
    return ex


def plan_execute_example(planner_block: str, executor_text: str) -> Example:
    steps: dict[str, list[str]] = {}
    for block in executor_text.strip().split("\n\n"):
        step = re.match(r"Your step: \w+: (.*)", block).group(1)
        steps[step] = _turns(block)
    ex = Example(_line(planner_block, "Task"), _line(planner_block, "First observation"), text=planner_block)
    plan = planner_block[planner_block.index("{"):]
    ex.entries.append(ScriptEntry(plan, purpose="plan", once=True))
    for description in re.findall(r'"description": "([^"]*)"', plan):
        when = re.compile(r"Your step: \w+: " + re.escape(description))
        for answer, observation in steps[description]:
            ex.entries.append(ScriptEntry(answer, purpose="act", once=True, when=when))
            if "\nAction: " in answer:
                ex.actions.append(answer.split("\nAction: ", 1)[1])
                ex.observations.append(observation)
    return ex


def recap_example(chunk: str) -> Example:
    ex = Example(_line(chunk, "Task"), _line(chunk, "First observation"), text=chunk)
    purpose = "refine"
    answer: list[str] = []

    def flush() -> None:
        if answer:
            ex.entries.append(ScriptEntry("\n".join(answer), purpose=purpose, once=True))
            answer.clear()

    in_observation = False
    for line in chunk.splitlines()[_head_lines(chunk):]:
        if line.startswith(("## ", "Observation after `")):
            flush()
            purpose = "decompose" if line.startswith("## depth") else "refine"
            in_observation = line.startswith("Observation after `")
            if in_observation:
                ex.actions.append(line[len("Observation after `"):line.index("`:")])
                ex.observations.append(line[line.index("`:") + 2:].strip())
        elif in_observation and not line.startswith("Thought: "):
            ex.observations[-1] = (ex.observations[-1] + "\n" + line).strip()
        else:
            in_observation = False
            answer.append(line)
            if line.startswith("Thought:") and len(answer) > 1:
                raise AssertionError(f"two answers without an observation between them: {answer}")
    flush()
    return ex


def _head_lines(chunk: str) -> int:
    """The lines of `Task:` and the (perhaps multi-line) first observation, before `## depth 0`."""
    lines = chunk.splitlines()
    return next(i for i, line in enumerate(lines) if line.startswith("## "))


def _files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.txt")) if folder.is_dir() else []


def examples_of(agent: str, env: str) -> list[Example]:
    """Every example `agent` has for `env`, whether kept one file per task type or in one shared file."""
    folder = prompts_folder(agent, env)
    out: list[Example] = []
    if agent in ("react", "codeact"):
        parse = react_example if agent == "react" else codeact_example
        for path in _files(folder / "examples"):
            out.append(parse(path.read_text(encoding="utf-8")))
            out[-1].source = str(path.relative_to(ROOT))
    elif agent == "plan-execute":
        pairs = [(p, folder / "executor_examples" / p.name) for p in _files(folder / "planner_examples")]
        if (folder / "planner_examples.txt").is_file():
            pairs.append((folder / "planner_examples.txt", folder / "executor_examples.txt"))
        for planner, executor in pairs:
            for block in planner.read_text(encoding="utf-8").strip().split("\n\n"):
                out.append(plan_execute_example(block, executor.read_text(encoding="utf-8")))
                out[-1].source = str(planner.relative_to(ROOT))
    else:
        paths = _files(folder / "examples") + ([folder / "examples.txt"] if (folder / "examples.txt").is_file() else [])
        for path in paths:
            for chunk in re.split(r"\n(?=Task: )", path.read_text(encoding="utf-8").strip()):
                out.append(recap_example(chunk))
                out[-1].source = str(path.relative_to(ROOT))
    return out
