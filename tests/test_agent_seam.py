"""The five agents build the run's and the nodes' events through the seam's helpers (`open_episode`,
`started`, `completed`, `failed`, `skipped`, `close_root`, `finish`), never by hand: a node's status and
its event then cannot disagree, and an agent reads as its paradigm, not as bookkeeping."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
AGENTS = ROOT / "agent" / "agents"
# events whose helper also keeps the tree (or the run's counts) in step with them
BY_HELPER = {"RunStarted": "open_episode", "NodeStarted": "started", "NodeCompleted": "completed",
             "NodeError": "failed", "NodeSkipped": "skipped", "RunFinished": "finish"}


def built_by_hand(source: str) -> list[tuple[int, str]]:
    """(line, event class) of each call that constructs one of the `BY_HELPER` events."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else (
                node.func.attr if isinstance(node.func, ast.Attribute) else "")
            if name in BY_HELPER:
                found.append((node.lineno, name))
    return found


def test_no_agent_builds_a_node_or_run_event_by_hand() -> None:
    found = [f"{path.relative_to(ROOT)}:{line}: {name}(...): use self.{BY_HELPER[name]}(...)"
             for path in sorted(AGENTS.rglob("*.py"))
             for line, name in built_by_hand(path.read_text(encoding="utf-8"))]
    assert found == [], "\n".join(found)


def test_the_rule_finds_an_event_built_by_hand() -> None:
    sample = ("yield NodeCompleted(node.id, output='')\n"
              "yield ev.NodeError(node.id, error='x')\n"
              "yield self.completed(node)\n")
    assert built_by_hand(sample) == [(1, "NodeCompleted"), (2, "NodeError")]
