"""Words that files written by an earlier release hold, and today's word for each.

A reader of a stored file that may come from an earlier release (today: a plan export's
node statuses) translates through this table, so the rest of the code knows only today's names.
"""

from __future__ import annotations

from agent.runtime.tree import NodeStatus

# The 0.1.0 release stored a node answered by an LLM call as ReCode's "STUB".
OLD_NODE_STATUSES: dict[str, NodeStatus] = {"STUB": NodeStatus.AWAITING_LLM}
STORED_NODE_STATUSES = frozenset({*OLD_NODE_STATUSES, *(status.value for status in NodeStatus)})


def node_status(value: str) -> NodeStatus:
    """The status a stored value names, today's or an earlier release's; ValueError for any other value."""
    return OLD_NODE_STATUSES.get(value) or NodeStatus(value)
