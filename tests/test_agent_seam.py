"""The five agents build the run's and the nodes' events through the seam's helpers (`open_episode`,
`started`, `completed`, `failed`, `skipped`, `close_root`, `finish`), never by hand: a node's status and
its event then cannot disagree, and an agent reads as its paradigm, not as bookkeeping."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from agent import agents
from agent.runtime.stepper import Stepper
from agent.runtime.thread_runner import ThreadRunner
from agent.runtime.traits import TRAIT_NAMES, AgentTraits
from mockllm.human import HumanLLM
from tests.toyenv.world import ToyEnv

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


# -- what an agent instance shows: the author's API (docs/extending.md), the host's side behind `host` --

EXTENDING = ROOT / "docs" / "extending.md"
SECTION = "### What an agent instance shows"


def documented_names() -> set[str]:
    """The names the author's guide lists for an agent instance: every backticked name of the
    section's bullet list (a bullet and its indented continuation lines)."""
    section = EXTENDING.read_text(encoding="utf-8").split(SECTION, 1)[1].split("\n#", 1)[0]
    listed, in_bullet = [], False
    for line in section.splitlines():
        in_bullet = line.startswith("- ") or (in_bullet and line.startswith("  "))
        if in_bullet:
            listed.append(line)
    return set(re.findall(r"`([a-z_]+)`", "\n".join(listed)))


def public(obj: object) -> set[str]:
    return {n for n in dir(obj) if not n.startswith("_")}


def built(cls: type[Stepper]) -> Stepper:
    return cls(ToyEnv("coin-1"), HumanLLM(), ThreadRunner())


def declared_by_the_agent(agent: Stepper, bare: Stepper) -> set[str]:
    """The public names the agent's own classes (those below `Stepper`) declare or set on the instance."""
    own = {n for cls in type(agent).__mro__[:type(agent).__mro__.index(Stepper)] for n in vars(cls)}
    own |= set(vars(agent)) - set(vars(bare))
    return {n for n in own if not n.startswith("_")}


def test_the_guide_lists_the_names_of_every_part_of_an_agent() -> None:
    """The list is read whole: each of its five groups is found, so a test against it cannot pass empty."""
    names = documented_names()
    assert {"name", "judge", "ask", "tree", "host", "step"} <= names and len(names) > 50


def test_a_stepper_shows_exactly_the_author_s_api() -> None:
    """No host-side name (observers, the replay queue, the event count, the LLM slots, stop, prepare,
    the finished record) sits on an agent instance: they are `agent.host`'s."""
    bare = built(Stepper)
    assert public(bare) == documented_names(), (
        f"on the instance but not in docs/extending.md: {sorted(public(bare) - documented_names())}; "
        f"listed but missing: {sorted(documented_names() - public(bare))}")
    assert {"observers", "replay_queue", "events_emitted", "finished", "stop", "prepare", "llm_for",
            "cancelled_wait"} <= public(bare.host)


def test_every_registered_agent_adds_only_names_it_declares(toy_env) -> None:
    """Each agent (the five and the toy plug-in) shows the author's API and its own hooks and state, nothing else."""
    bare = built(Stepper)
    api = documented_names()
    for name in agents.names():
        agent = built(agents.agent_class(name))
        extra = public(agent) - api - declared_by_the_agent(agent, bare)
        assert not extra, f"{name}: {sorted(extra)} are neither the author's API nor declared by the agent"
        assert api <= public(agent)


# -- an agent's words and capabilities: one record, `traits` --

def test_every_agent_s_words_and_capabilities_are_one_record(toy_env) -> None:
    """Each registered agent shows its words and capability flags only through `traits` (an `AgentTraits`):
    no trait is a loose name on the instance for a front end to probe, and each agent's record is its own
    words (ReCode's noun is not another agent's)."""
    for name in agents.names():
        agent = built(agents.agent_class(name))
        assert isinstance(agent.traits, AgentTraits)
        assert not TRAIT_NAMES & public(agent), f"{name}: {sorted(TRAIT_NAMES & public(agent))} outside `traits`"
    nouns = {name: agents.agent_class(name).traits.answer_words.noun for name in ("recode", "react", "codeact")}
    assert nouns == {"recode": "expansion", "react": "turn", "codeact": "cell"}


def test_a_trait_declared_as_a_loose_class_attribute_is_refused_in_one_line() -> None:
    """An author (or a plug-in written before the record) who writes `display_name = ...` on the class would
    see every front end ignore it: the class is refused, and the message says where it goes."""
    with pytest.raises(TypeError) as refused:
        type("Loose", (Stepper,), {"display_name": "Mine", "code_tree": True})
    assert str(refused.value) == ("Loose declares code_tree, display_name as class attributes: declare them in "
                                  "`traits = AgentTraits(code_tree=...)` (agent.runtime.traits)")
