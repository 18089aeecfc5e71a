"""One recorded run as a diff reads it: its environment steps, its LLM calls and its nodes.

Built from the journal's records alone (through `agent.sessions.journal_view`), so a
diff never replays anything: no environment, no sandbox, no code run.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from pathlib import Path

from agent.sessions.header import JournalHeader
from agent.sessions.journal_read import JOURNAL_FILE, Journal
from agent.sessions.journal_view import JournalView, read_view
from agent.sessions.old_values import UNRECORDED_PURPOSE
from agent.runtime.tree import Node

NODE_AGENTS = ("recode", "recap", "plan-execute")  # agents that build a tree of nodes worth aligning


@dataclass(frozen=True)
class Step:
    """One action sent to the environment and what it answered."""

    number: int  # the environment's step number (1-based, as recorded)
    action: str
    observation: str
    node_id: str
    record: int  # position in the journal's records

    @property
    def key(self) -> tuple[str, str]:
        return self.action, self.observation


@dataclass(frozen=True)
class Call:
    """One LLM call: what was asked (the prompt), for which node, and what came back."""

    number: int  # the answer's position among the run's calls (1-based)
    node_id: str
    purpose: str
    role: str
    stub: str
    prompt: str
    answer: str
    accepted: bool
    record: int


@dataclass
class Run:
    """A journal as steps, calls and a node tree; `name` is how a diff calls it (A or B)."""

    name: str
    view: JournalView
    steps: list[Step] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    paths: dict[str, str] = field(default_factory=dict)  # node id -> its path of child positions, "0.1.2"

    @property
    def journal(self) -> Journal:
        return self.view.journal

    @property
    def header(self) -> JournalHeader:
        return self.journal.header

    @property
    def agent(self) -> str:
        return self.view.agent

    @property
    def has_nodes(self) -> bool:
        return self.agent in NODE_AGENTS

    @property
    def episode(self) -> str:
        """The episode as the header names it (older journals: the game path)."""
        return self.header.episode_name or "?"

    @property
    def env(self) -> str:
        return self.header.run.env.name

    @property
    def outcome(self) -> str:
        finished = self.journal.finished
        if finished is None:
            return "unfinished"
        return "won" if finished.get("success") else f"lost: {finished.get('reason') or '?'}"

    @property
    def success(self) -> bool | None:
        finished = self.journal.finished
        return None if finished is None else bool(finished.get("success"))

    def call_at_or_before(self, record: int) -> Call | None:
        """The last LLM call recorded at or before record position `record`."""
        index = bisect.bisect_right([c.record for c in self.calls], record) - 1
        return self.calls[index] if index >= 0 else None

    def node(self, node_id: str) -> Node | None:
        return self.view.tree.nodes.get(node_id)

    def calls_of(self, node_id: str) -> list[Call]:
        return [c for c in self.calls if c.node_id == node_id]

    def steps_of(self, node_id: str) -> list[Step]:
        return [s for s in self.steps if s.node_id == node_id]


def read_run(journal: Journal, name: str) -> Run:
    """The steps, calls and node paths of a journal, in record order."""
    run = Run(name, read_view(journal))
    for position, record in enumerate(journal.records):
        kind = record.get("type")
        if kind == "action" and not record.get("refused"):
            run.steps.append(Step(int(record.get("step") or len(run.steps) + 1), str(record.get("action", "")),
                                  str(record.get("observation", "")), str(record.get("node_id") or ""), position))
        elif kind == "answer":
            # named by the node it was asked on (a refused and an accepted answer of one ReAct turn alike)
            run.calls.append(Call(len(run.calls) + 1, str(record.get("asked_node") or record.get("node_id") or ""),
                                  str(record.get("purpose") or UNRECORDED_PURPOSE), str(record.get("role") or ""),
                                  str(record.get("stub") or ""), str(record.get("prompt", "")),
                                  str(record.get("answer", "")), bool(record.get("accepted")), position))
    stack: list[tuple[Node, str]] = [(run.view.tree.root, "0")]
    while stack:
        node, path = stack.pop()
        run.paths[node.id] = path
        stack.extend((child, f"{path}.{i}") for i, child in enumerate(node.children))
    return run


def parent_folder(journal: Journal) -> Path | None:
    """The session a branch (fork, rewind, copy) was made from, when its folder is still there; else None."""
    parent = journal.header.parent
    if parent is None or not parent.session:
        return None
    for folder in (parent.folder, journal.folder.parent / parent.session):
        if folder and (Path(folder) / JOURNAL_FILE).is_file():
            return Path(folder)
    return None
