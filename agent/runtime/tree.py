"""The node tree every agent's run builds: one node per unit of work, children from its LLM calls."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Iterator



class NodeStatus(str, Enum):
    PENDING = "PENDING"
    RUNNING = "RUNNING"  # transient: the node's code is executing now
    COMPLETED = "COMPLETED"
    AWAITING_LLM = "AWAITING_LLM"  # the node waits on (or was answered by) an LLM call
    ERROR = "ERROR"
    SKIP = "SKIP"

    @property
    def plan_word(self) -> str:
        """Its word in a `recode.plan.v1` export, as the format fixes it (an LLM-answered node is `STUB` there)."""
        return "STUB" if self is NodeStatus.AWAITING_LLM else self.value

    @property
    def words(self) -> str:
        """How a person reads it: `awaiting llm`, `completed`."""
        return self.value.lower().replace("_", " ")


@dataclass
class LLMExchange:
    """One LLM exchange that produced (or failed to produce) a node's children."""

    prompt: str
    answer: str
    source: str
    accepted: bool
    reason: str = ""  # why it was rejected
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    purpose: str = ""  # what the call was for: a `Purpose`, or the agent's own word
    proposed: str | None = None  # review mode: the model's proposal, when the person decided
    seconds: float = 0.0  # how long the LLM took to answer
    person_seconds: float = 0.0  # a person's time on it (typing, reviewing a proposal)


@dataclass
class Node:
    id: str
    code: str
    depth: int
    parent: Node | None = field(default=None, repr=False)
    status: NodeStatus = NodeStatus.PENDING
    thought: str = ""
    observations: list[str] = field(default_factory=list)
    error: str = ""
    children: list[Node] = field(default_factory=list, repr=False)
    llm_calls: list[LLMExchange] = field(default_factory=list, repr=False)
    repairs: int = 0  # how many ERROR repairs led to this node (max_retry)

    def to_dict(self) -> dict[str, Any]:
        """The node's fields in the `recode.plan.v1` export shape."""
        return {
            "id": self.id,
            "code": self.code,
            "status": self.status.plan_word,
            "depth": self.depth,
            "thought": self.thought,
            "observations": list(self.observations),
            "error": self.error or None,
            "parent_id": self.parent.id if self.parent else None,
            "children": [c.id for c in self.children],
        }


class CodeTree:
    """Owns the nodes of one run and answers 'what runs next'."""

    def __init__(self, root_code: str) -> None:
        self._counter = 0
        self.nodes: dict[str, Node] = {}
        self.root = self._new(root_code, depth=0, parent=None)

    def _new(self, code: str, depth: int, parent: Node | None) -> Node:
        node = Node(id=f"n{self._counter}", code=code, depth=depth, parent=parent)
        self._counter += 1
        self.nodes[node.id] = node
        return node

    def add_children(self, parent: Node, blocks: list[str]) -> list[Node]:
        children = [self._new(block, parent.depth + 1, parent) for block in blocks]
        parent.children.extend(children)
        return children

    def next_pending(self, after: Node | None) -> Node | None:
        """Depth-first in source order (spec §1).

        After `after` finishes: its first PENDING child, else its next PENDING
        sibling, else the same question asked of its parent.
        """
        if after is None:
            return self.root if self.root.status is NodeStatus.PENDING else None
        node: Node | None = after
        first = next((c for c in after.children if c.status is NodeStatus.PENDING), None)
        if first is not None:
            return first
        while node is not None:
            parent = node.parent
            if parent is None:
                return None
            index = parent.children.index(node)
            sibling = next(
                (s for s in parent.children[index + 1 :] if s.status is NodeStatus.PENDING), None
            )
            if sibling is not None:
                return sibling
            node = parent
        return None

    def walk(self) -> Iterator[Node]:
        """Every node, depth-first in source order."""
        stack = [self.root]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def path_to(self, node: Node) -> list[Node]:
        path = []
        current: Node | None = node
        while current is not None:
            path.append(current)
            current = current.parent
        return path[::-1]

    def __len__(self) -> int:
        return len(self.nodes)
