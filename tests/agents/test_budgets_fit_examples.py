"""Every agent's budgets leave room for its own few-shot examples.

An example shows the model a way to win; a budget (a step limit, ReAct's window, Plan-and-Execute's
executor steps, ReCAP's revisions per level, ReCode's depth) smaller than that way would cut the path the
prompt itself teaches, and the loss would be the harness's. Each test reads the bundled examples and
fails when one of them needs more than its agent's default budget, and the paper preset's where it has one.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent.agents.codeact.agent import CodeActAgent
from agent.agents.plan_execute.agent import PlanExecuteAgent
from agent.agents.react.agent import DEFAULT_WINDOW
from agent.agents.recap.agent import RecapAgent
from agent.agents.presets import preset
from agent.runtime.limits import Limits

AGENTS = Path(__file__).resolve().parents[2] / "agent" / "agents"
PROMPTS = AGENTS / "recode" / "prompts"  # ReCode's prompt sets


def _alfworld_limits() -> list[int]:
    """The default preset leaves the limit to the environment (its `default_max_steps`); the paper's names one."""
    from envs import registry

    return [preset("default").max_steps or registry.provider("alfworld").default_max_steps, preset("paper").max_steps]


def _env_limit(env: str, example: Path) -> int:
    """The step limit an episode like `example` gets: ALFWorld's smaller preset, the ScienceWorld task's own."""
    if env == "alfworld":
        return min(_alfworld_limits())
    if env == "sciworld":
        from envs.sciworld.limits import step_limit

        return step_limit(example.stem)
    from envs.webshop.env import DEFAULT_MAX_STEPS

    return DEFAULT_MAX_STEPS


def _react_examples() -> list[tuple[str, Path]]:
    return [(p.parts[-3], p) for p in sorted((AGENTS / "react" / "prompts").glob("*/examples/*.txt"))]


@pytest.mark.parametrize("env,example", _react_examples(), ids=lambda v: getattr(v, "stem", v))
def test_react_examples_fit_the_step_limit_and_the_window(env, example):
    turns = len(re.findall(r"^Action: ", example.read_text(), re.M))
    assert 0 < turns <= _env_limit(env, example), f"{example}: {turns} actions"
    assert turns <= DEFAULT_WINDOW, f"{example}: {turns} turns, the window shows {DEFAULT_WINDOW}"


def _codeact_examples() -> list[tuple[str, Path]]:
    return [(p.parts[-3], p) for p in sorted((AGENTS / "codeact" / "prompts").glob("*/examples/*.txt"))]


@pytest.mark.parametrize("env,example", _codeact_examples(), ids=lambda v: getattr(v, "stem", v))
def test_codeact_examples_fit_the_cell_budget(env, example):
    cells = len(re.findall(r"^\[cell \d+\]", example.read_text(), re.M))
    budget = CodeActAgent.option_defaults["max_cells"] or _env_limit(env, example)  # 0: the step limit
    assert 0 < cells <= budget, f"{example}: {cells} cells"


def _example_texts(agent: str, env: str, name: str) -> list[str]:
    """An agent's examples of one kind: the shared `<name>.txt` and the per-task-type `<name>/*.txt`."""
    folder = AGENTS / agent / "prompts" / env
    files = [folder / f"{name}.txt", *sorted((folder / name).glob("*.txt"))]
    texts = [f.read_text() for f in files if f.is_file()]
    assert texts, f"{agent} has no {name} for {env}"
    return texts


@pytest.mark.parametrize("env", ["alfworld", "sciworld", "webshop"])
def test_plan_execute_executor_examples_fit_the_executor_steps(env):
    blocks = [block for text in _example_texts("plan_execute", env, "executor_examples")
              for block in re.split(r"^Your step: ", text, flags=re.M)[1:]]
    assert blocks
    budget = PlanExecuteAgent.option_defaults["executor_steps"]
    for block in blocks:
        actions = len(re.findall(r"^Action: ", block, re.M))
        assert actions <= budget, f"{env}: {block.splitlines()[0]!r} takes {actions} actions, the budget {budget}"


@pytest.mark.parametrize("env", ["alfworld", "sciworld", "webshop"])
def test_recap_examples_fit_the_revisions_and_the_depth(env):
    for text in _example_texts("recap", env, "examples"):
        _check_recap_example(text)


def _check_recap_example(text: str) -> None:
    revisions: dict[str, int] = {}
    levels: dict[int, str] = {}  # depth -> the header of the level open there
    level = ""
    depths = [0]
    for line in text.splitlines():
        header = re.match(r"^## (?:depth (\d+)|back at depth (\d+))", line)
        if header:
            depth = int(header.group(1) or header.group(2))
            depths.append(depth)
            if header.group(1):  # a new level; `back at depth N` (a re-injection) revises the one open there
                levels[depth] = line
            level = levels.get(depth, line)
            continue
        if line.startswith("Subtasks:") and level:
            revisions[level] = revisions.get(level, -1) + 1  # the first list is no revision
    assert revisions
    budget = RecapAgent.option_defaults["max_revisions"]
    assert max(revisions.values()) <= budget, revisions
    for name in ("default", "paper"):
        assert max(depths) <= preset(name).limits.max_depth


def _recode_depth(text: str) -> int:
    """The deepest chain of placeholder functions in one ReCode example (the root at depth 0)."""
    blocks = [b for b in text.split("\n---\n") if b.strip().startswith("Function:")]
    children: dict[str, list[str]] = {}
    for block in blocks:
        head = block.strip().splitlines()[0]
        name = re.search(r"(\w+)\(", head).group(1)
        body = block.split("<execute>", 1)[-1]
        children[name] = [c for c in re.findall(r"(\w+)\(", body)]
    known = set(children)

    def depth(name: str, seen: frozenset[str]) -> int:
        below = [depth(c, seen | {c}) for c in children.get(name, []) if c in known and c not in seen]
        return 1 + max(below) if below else 0

    root = re.search(r"(\w+)\(", blocks[0].strip().splitlines()[0]).group(1)
    return depth(root, frozenset({root}))


@pytest.mark.parametrize("example", sorted(PROMPTS.glob("*/*/examples/*.txt")), ids=lambda p: f"{p.parts[-4]}-{p.stem}")
def test_recode_examples_fit_the_depth_limit(example):
    found = _recode_depth(example.read_text())
    limits = [preset(name).limits.max_depth for name in ("default", "paper")] + [Limits().max_depth]
    assert found <= min(limits), f"{example}: depth {found}"


def test_the_budget_checks_catch_an_example_past_its_budget():
    """The parsers count what they claim: a made-up trajectory past each budget is caught."""
    deep = "\n---\n".join(f"Function: f{i}()\nAnswer:\n<execute>\nf{i + 1}()\n</execute>" for i in range(12))
    assert _recode_depth(deep) == 11 > Limits().max_depth
