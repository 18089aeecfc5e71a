"""Words that stored files hold for what the code names otherwise, and the code's name for each.

A reader of a stored file (a plan export's node statuses) translates through this table, so the
rest of the code knows only today's names.
"""

from __future__ import annotations

from agent.llm import Purpose
from agent.runtime.tree import NodeStatus

# A plan export (`recode.plan.v1`) names a node answered by an LLM call as ReCode's "STUB", as the
# format fixes it; journals and the code say AWAITING_LLM.
OLD_NODE_STATUSES: dict[str, NodeStatus] = {"STUB": NodeStatus.AWAITING_LLM}
STORED_NODE_STATUSES = frozenset({*OLD_NODE_STATUSES, *(status.value for status in NodeStatus)})


# A journal written before calls recorded their purpose holds ReCode's calls only, each writing a stub's body.
UNRECORDED_PURPOSE: str = Purpose.EXPAND


def node_status(value: str) -> NodeStatus:
    """The status a stored value names, today's or an earlier release's; ValueError for any other value."""
    return OLD_NODE_STATUSES.get(value) or NodeStatus(value)
