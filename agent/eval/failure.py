"""Why an episode failed: what an eval records per failure and how it groups them.

"no pending nodes left and the task is not done" is true of nearly every
failure and says nothing. A `FailureTrace` watches a run's events (it is an
agent observer, like the journal) and keeps what a researcher looks at first:
the last few actions with their observations, the node whose code went wrong
(`agent.eval.culprit`'s rule), the deepest stub the run reached, and the node
that was running when it ended. `group_failures` then puts failures together
by the node that went wrong (else by where they ended), so an eval can say
"clean_at_sink: 10/10 failures; ended in locate_object; no `clean` action sent".
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any, Iterable

from agent.eval.culprit import NodeFacts, went_wrong
from agent.runtime import events as ev

KEEP_STEPS = 4
OBSERVATION_CUT = 200
# Task types named after the action that does them: a failure that never sent it says so.
ACTION_TASK_TYPES = frozenset({"clean", "heat", "cool"})


@dataclass
class FailureTrace:
    """An agent observer that remembers where a run was when it ended."""

    last_steps: deque = field(default_factory=lambda: deque(maxlen=KEEP_STEPS))
    verbs: set[str] = field(default_factory=set)
    deepest: dict[str, Any] | None = None
    codes: dict[str, str] = field(default_factory=dict)  # node id -> code, for the node that ends the run
    last_node: str | None = None
    task_type: str | None = None
    nodes: NodeFacts = field(default_factory=NodeFacts)

    def __call__(self, event: ev.Event) -> None:
        node = event.node_id or ""
        if isinstance(event, ev.RunStarted):
            self.task_type = event.task_type
        elif isinstance(event, ev.NodeStarted):
            self.codes[node] = event.code
            self.last_node = event.node_id
            self.nodes.saw(node, event.code, event.depth)
        elif isinstance(event, ev.ObservationReceived):
            self.last_steps.append((event.action, event.observation[:OBSERVATION_CUT]))
            if event.action.split() and not event.refused:
                verb = event.action.split()[0].lower()
                self.verbs.add(verb)
                self.nodes.sent.setdefault(node, set()).add(verb)
            if not event.refused:  # an agent that acts on its root (ReAct's turns) acts for the turn last begun
                acting = self.last_node if self.nodes.depths.get(node, 0) == 0 and self.last_node else node
                self.nodes.stepped(acting, event.action, event.observation)
        elif isinstance(event, ev.StubFound):
            self.nodes.saw(node, event.code, event.depth)
            if self.deepest is None or event.depth >= self.deepest["depth"]:
                self.deepest = {"name": event.name, "node": event.node_id, "depth": event.depth, "code": event.code}
        elif isinstance(event, ev.LLMAnswered) and event.child_ids:
            self.nodes.children[node] = list(event.child_ids)
        elif isinstance(event, ev.LLMRejected):
            self.nodes.refused[node] = event.reason
        elif isinstance(event, ev.NodeCompleted):
            self.nodes.completed.add(node)
            self.nodes.errors.pop(node, None)
        elif isinstance(event, ev.NodeError):
            self.nodes.errors[node] = (event.error.strip().splitlines() or ["error"])[-1][:200]

    def describe(self, finished: ev.RunFinished) -> dict[str, Any]:
        """The record an eval keeps for a failed episode."""
        node = finished.node_id or self.last_node
        return {
            "last_steps": [list(step) for step in self.last_steps],
            "went_wrong": went_wrong(self.nodes, self.task_type, self.verbs, ACTION_TASK_TYPES, finished.reason),
            "deepest_stub": self.deepest,
            "ended_at": {"node": node, "code": self.codes.get(node or "", "")},
            "verbs": sorted(self.verbs),
        }


def failure_key(failure: dict[str, Any] | None) -> str:
    """What failures are grouped by: the node whose code went wrong, else where the run ended."""
    wrong = (failure or {}).get("went_wrong") or {}
    return str(wrong["name"]) if wrong.get("name") else ended_in(failure)


def ended_in(failure: dict[str, Any] | None) -> str:
    """Where the run ended: the deepest stub's name, else the node that ended the run."""
    if not failure:
        return "(no trace)"
    deepest = failure.get("deepest_stub") or {}
    if deepest.get("name"):
        return str(deepest["name"])
    ended = (failure.get("ended_at") or {}).get("code") or ""
    return ended.split("(")[0].strip() or "(no stub)"


@dataclass
class FailureGroup:
    key: str
    task_types: list[str]
    episodes: list[Any]  # EpisodeResult-like: game, task_type, reason, journal, failure
    of_task_type: int  # the failures of the group's agent in all: one denominator for every group of it
    agent: str = ""  # in an evaluation of several agents: whose failures these are

    @property
    def ended_in(self) -> list[str]:
        """Where its runs ended (the deepest stub), which is not always where they went wrong."""
        return sorted({ended_in(e.failure) for e in self.episodes})

    @property
    def went_wrong(self) -> bool:
        """Whether the key names a node whose code went wrong (else it is where the runs ended)."""
        return any((e.failure or {}).get("went_wrong") for e in self.episodes)

    @property
    def label(self) -> str:
        """The key and its task types, after its agent in an evaluation of several: `react: turn 2 (put)`."""
        return f"{self.agent + ': ' if self.agent else ''}{self.key} ({'/'.join(self.task_types)})"

    @property
    def names(self) -> list[str]:
        """Its episodes as report.json lists them: `agent/game` when several agents played each game."""
        return [f"{e.agent}/{e.game}" if self.agent else e.game for e in self.episodes]

    def line(self) -> str:
        return f"{self.label}: {self.details(ended=self.went_wrong)}"

    def details(self, ended: bool = False) -> str:
        """The count (with where the runs ended, when `ended`), the missing actions and the one reason they
        share: `3/3 failures; no `clean` action sent; no pending nodes left and the task is not done`."""
        parts = [f"{len(self.episodes)}/{self.of_task_type} failures" + (f" of {self.agent}" if self.agent else "")]
        if ended:
            parts.append(f"ended in {', '.join(self.ended_in)}")
        for verb in self.missing_verbs():
            alone = self.task_types == [verb]
            parts.append(f"no `{verb}` action sent" + ("" if alone else f" by its {verb} episodes"))
        reasons = sorted({e.reason for e in self.episodes})
        if len(reasons) == 1:
            parts.append(reasons[0])
        return "; ".join(parts)

    def missing_verbs(self) -> list[str]:
        """Task types named by their action (clean, heat, cool) whose action none of these episodes sent."""
        missing = []
        for task_type in self.task_types:
            if task_type not in ACTION_TASK_TYPES:
                continue
            sent = [set((e.failure or {}).get("verbs", [])) for e in self.episodes if e.task_type == task_type]
            if sent and all(task_type not in verbs for verbs in sent):
                missing.append(task_type)
        return missing


def group_failures(episodes: Iterable[Any]) -> list[FailureGroup]:
    """Failed episodes grouped by agent and by where they went wrong (else ended), biggest group first.

    Each agent's groups share one denominator, its failures in all. In an evaluation of one agent the
    groups name none (`agent` is '' there)."""
    failed = [e for e in episodes if not e.success and not e.error]
    per_agent: dict[str, int] = {}
    for e in failed:
        per_agent[e.agent] = per_agent.get(e.agent, 0) + 1
    several = any(per_agent)  # only an evaluation of several agents names them on its episodes
    groups: dict[tuple[str, str], list[Any]] = {}
    for e in failed:
        groups.setdefault((e.agent, failure_key(e.failure)), []).append(e)
    out = []
    for (agent, key), members in groups.items():
        types = sorted({m.task_type or "?" for m in members})
        out.append(FailureGroup(key, types, members, per_agent[agent], agent if several else ""))
    return sorted(out, key=lambda g: (g.agent, -len(g.episodes), g.key))
