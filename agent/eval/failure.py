"""Why an episode failed: what an eval records per failure and how it groups them.

"no pending nodes left and the task is not done" is true of nearly every
failure and says nothing. A `FailureTrace` watches a run's events (it is an
engine observer, like the journal) and keeps what a researcher looks at first:
the last few actions with their observations, the deepest stub the run
reached, and the node that was running when it ended. `group_failures` then
puts failures together by that stub, so an eval can say
"clean_object: 10/10 failures; no `clean` action sent".
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any, Iterable

from agent.runtime import events as ev

KEEP_STEPS = 4
OBSERVATION_CUT = 200
# Task types named after the action that does them: a failure that never sent it says so.
ACTION_TASK_TYPES = frozenset({"clean", "heat", "cool"})


@dataclass
class FailureTrace:
    """An engine observer that remembers where a run was when it ended."""

    last_steps: deque = field(default_factory=lambda: deque(maxlen=KEEP_STEPS))
    verbs: set[str] = field(default_factory=set)
    deepest: dict[str, Any] | None = None
    codes: dict[str, str] = field(default_factory=dict)  # node id -> code, for the node that ends the run
    last_node: str | None = None

    def __call__(self, event: ev.Event) -> None:
        if isinstance(event, ev.NodeStarted):
            self.codes[event.node_id or ""] = event.code
            self.last_node = event.node_id
        elif isinstance(event, ev.ObservationReceived):
            self.last_steps.append((event.action, event.observation[:OBSERVATION_CUT]))
            if event.action.split():
                self.verbs.add(event.action.split()[0].lower())
        elif isinstance(event, ev.StubFound):
            if self.deepest is None or event.depth >= self.deepest["depth"]:
                self.deepest = {"name": event.name, "node": event.node_id, "depth": event.depth, "code": event.code}

    def describe(self, finished: ev.RunFinished) -> dict[str, Any]:
        """The record an eval keeps for a failed episode."""
        node = finished.node_id or self.last_node
        return {
            "last_steps": [list(step) for step in self.last_steps],
            "deepest_stub": self.deepest,
            "ended_at": {"node": node, "code": self.codes.get(node or "", "")},
            "verbs": sorted(self.verbs),
        }


def failure_key(failure: dict[str, Any] | None) -> str:
    """What failures are grouped by: the deepest stub's name, else the node that ended the run."""
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
    of_task_type: int  # failures of those task types in all

    def line(self) -> str:
        types = "/".join(self.task_types)
        line = f"{self.key} ({types}): {len(self.episodes)}/{self.of_task_type} failures"
        missing = self.missing_verbs()
        if missing:
            line += "; " + ", ".join(f"no `{verb}` action sent" for verb in missing)
        reasons = sorted({e.reason for e in self.episodes})
        if len(reasons) == 1:
            line += f"; {reasons[0]}"
        return line

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
    """Failed episodes grouped by where they ended, biggest group first."""
    failed = [e for e in episodes if not e.success and not e.error]
    per_type: dict[str, int] = {}
    for e in failed:
        per_type[e.task_type or "?"] = per_type.get(e.task_type or "?", 0) + 1
    groups: dict[str, list[Any]] = {}
    for e in failed:
        groups.setdefault(failure_key(e.failure), []).append(e)
    out = []
    for key, members in groups.items():
        types = sorted({m.task_type or "?" for m in members})
        out.append(FailureGroup(key, types, members, sum(per_type[t] for t in types)))
    return sorted(out, key=lambda g: (-len(g.episodes), g.key))
