"""ReCode's words on an LLM call: the stub being expanded, kept in the call context's `notes`.

The LLM protocol's `CallContext` carries what every agent sends (purpose, role, the node's label);
the stub's name is ReCode's own, so only ReCode writes and reads it.
"""

from __future__ import annotations

from agent.llm import CallContext, Purpose

STUB_NOTE = "stub"  # the key of the stub's name (`solve`, `find_and_take`) in a call's notes


def stub_context(code: str, stub_name: str, purpose: str = Purpose.EXPAND) -> CallContext:
    """The context of a call that writes (`expand`) or rewrites (`repair`) the node of this `code`."""
    return CallContext(purpose=purpose, label=code, notes={STUB_NOTE: stub_name} if stub_name else {})


def noted_stub(context: CallContext) -> str:
    """The stub a call expands ('' for a repair, or a call ReCode did not make)."""
    return context.notes.get(STUB_NOTE, "")
