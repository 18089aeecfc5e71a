"""What the parent keeps of the worker's namespace: summaries for the views, and the last snapshot for a fresh worker.

Kept apart from `SandboxRunner`'s process handling: the parent stores the
snapshot's pickles (at most `MAX_SNAPSHOT_BYTES`) and forwards them to a new
worker, but never unpickles them; this class only counts and orders them.
Every name, type and summary is clipped (`budgets`) and a worker that reports
more than `budgets.VARIABLES` variables or `budgets.IMPORTS` imports is broken
(ValueError), so what the parent keeps of a run's namespace has one bound.
"""

from __future__ import annotations

import base64
from typing import Any

from agent.runtime.events import VariableChange
from agent.runtime.varlist import VariableSummary
from agent.sandbox.budgets import IMPORTS, NAME_CHARS, SUMMARY_CHARS, TYPE_CHARS, VARIABLES, clip
from agent.sandbox.protocol import MAX_SNAPSHOT_BYTES


class KeptNamespace:
    """The worker's variables as the parent knows them between nodes."""

    def __init__(self) -> None:
        # The last snapshot: variable name -> pickle made by a worker (or None
        # when the value could not be pickled), in namespace order.
        self.snapshot: dict[str, bytes | None] = {}
        self.summaries: dict[str, VariableSummary] = {}
        # Imported names kept for later nodes: [name, module, attribute], as the worker said.
        self.imports: list[list[str]] = []

    @property
    def imported_names(self) -> frozenset[str]:
        return frozenset(entry[0] for entry in self.imports)

    @property
    def empty(self) -> bool:
        """Nothing to give back to a fresh worker."""
        return not self.snapshot and not self.imports

    def apply(self, message: dict[str, Any]) -> tuple[VariableChange, ...]:
        """Take in a reply's `changes` and `snapshot`; returns the changes."""
        changes = changes_of(message)
        snap = message.get("snapshot")
        for change in changes:
            if change.change == "removed":
                self.summaries.pop(change.name, None)
            elif snap or change.name in self.summaries:  # new names come with the snapshot that bounds them
                self.summaries[change.name] = VariableSummary(change.name, change.type, change.summary)
        if snap:
            blobs = {clip(str(k), NAME_CHARS): base64.b64decode(v, validate=True)
                     for k, v in snap.get("blobs", {}).items()}
            unsaved = {clip(str(n), NAME_CHARS) for n in snap.get("unsaved", [])}
            old = self.snapshot
            fresh: dict[str, bytes | None] = {}
            total = 0
            for name in snap.get("order", []):
                name = clip(str(name), NAME_CHARS)
                blob = None if name in unsaved else blobs.get(name, old.get(name))
                if blob is not None and total + len(blob) > MAX_SNAPSHOT_BYTES:
                    blob = None  # the parent holds at most this much of a run's variables
                total += len(blob) if blob is not None else 0
                fresh[name] = blob
            if len(fresh) > VARIABLES:
                raise ValueError(f"{len(fresh)} variables, more than the {VARIABLES} the parent keeps")
            imports = snap.get("imports", [])
            if len(imports) > IMPORTS:
                raise ValueError(f"{len(imports)} imports, more than the {IMPORTS} the parent keeps")
            self.snapshot = fresh
            self.imports = [[clip(str(x), NAME_CHARS) for x in entry][:3] for entry in imports]
            # keep the summaries in namespace order
            self.summaries = {n: self.summaries[n] for n in fresh if n in self.summaries}
        return changes

    def restore_request(self) -> tuple[dict[str, Any], list[str]]:
        """The `restore` request for a fresh worker, and the names it cannot get back (never pickled)."""
        items = [(name, blob) for name, blob in self.snapshot.items() if blob is not None]
        lost = [name for name, blob in self.snapshot.items() if blob is None]
        return {"op": "restore", "items": items, "imports": self.imports}, lost

    def restored(self, reply: dict[str, Any], lost: list[str]) -> list[str]:
        """Take in a fresh worker's `restored` reply; returns every name that was lost."""
        lost = lost + [clip(str(n), NAME_CHARS) for n in reply.get("lost", [])][:VARIABLES]
        for name in lost:
            self.snapshot.pop(name, None)
        self.summaries = {summary.name: summary for summary in summaries_of(reply["items"])}
        return lost


def changes_of(message: dict[str, Any]) -> tuple[VariableChange, ...]:
    """A reply's changes as the parent keeps them (each field clipped); ValueError past `VARIABLES` of them."""
    changes = message.get("changes", [])
    if len(changes) > 2 * VARIABLES:  # every variable removed and as many made anew
        raise ValueError(f"{len(changes)} changes, more than the parent takes")
    return tuple(VariableChange(clip(str(n), NAME_CHARS), clip(str(t), TYPE_CHARS), clip(str(s), SUMMARY_CHARS),
                                str(c)[:16]) for n, t, s, c in changes)


def summaries_of(items: list[list[str]]) -> list[VariableSummary]:
    """A worker's [name, type, summary] items as the parent keeps them; ValueError past `VARIABLES` of them."""
    if len(items) > VARIABLES:
        raise ValueError(f"{len(items)} variables, more than the {VARIABLES} the parent keeps")
    return [VariableSummary(clip(str(n), NAME_CHARS), clip(str(t), TYPE_CHARS), clip(str(s), SUMMARY_CHARS))
            for n, t, s in items]


def diff(before: dict[str, VariableSummary], after: dict[str, VariableSummary]) -> tuple[VariableChange, ...]:
    changes = [
        VariableChange(s.name, s.type, s.summary, "new" if name not in before else "changed")
        for name, s in after.items()
        if before.get(name) != s
    ]
    changes += [VariableChange(s.name, s.type, s.summary, "removed") for name, s in before.items() if name not in after]
    return tuple(changes)
