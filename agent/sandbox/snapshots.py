"""The worker's side of namespace snapshots: which variables' pickles the parent keeps, so a fresh worker gets them back.

Kept apart from the request loop: the size limits and the rule that an
unchanged immutable value is not pickled again live here. A snapshot handed
back after a restart is opened as plain data only (`protocol.load_plain`).
"""

from __future__ import annotations

import base64
import pickle
from typing import Any

from agent.runtime.imports import Origin
from agent.sandbox.protocol import MAX_SNAPSHOT_BYTES

MAX_BLOB = 64 * 1024 * 1024  # a variable whose pickle is larger is not snapshotted

_IMMUTABLE = (str, bytes, int, float, complex, bool, type(None), range)
_MISSING = object()


def is_immutable(value: Any) -> bool:
    if isinstance(value, _IMMUTABLE):
        return True
    if type(value) in (tuple, frozenset) and len(value) <= 64:
        return all(type(v) in _IMMUTABLE for v in value)
    return False


class Snapshots:
    """The last pickles the parent holds, and the object each was made from."""

    def __init__(self) -> None:
        self.blobs: dict[str, bytes] = {}
        self.sources: dict[str, Any] = {}

    def remember(self, name: str, blob: bytes, value: Any) -> None:
        """A value restored from `blob`: the parent already holds it."""
        self.blobs[name] = blob
        self.sources[name] = value

    def take(self, namespace: dict[str, Any], imports: dict[str, Origin]) -> dict[str, Any]:
        """The pickles that changed since the last snapshot, for the parent to keep.

        At most MAX_BLOB a variable and MAX_SNAPSHOT_BYTES in all: what does not
        fit is reported unsaved (not restorable after a restart), as an
        unpicklable value is.
        """
        for name in [n for n in self.blobs if n not in namespace]:
            del self.blobs[name]
            self.sources.pop(name, None)
        fresh: dict[str, str] = {}
        unsaved: list[str] = []
        total = sum(len(b) for b in self.blobs.values())
        for name, value in namespace.items():
            if self.sources.get(name, _MISSING) is value and is_immutable(value):
                continue
            old = self.blobs.pop(name, None)
            self.sources.pop(name, None)
            total -= len(old) if old is not None else 0
            try:
                blob = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
                if len(blob) > MAX_BLOB or total + len(blob) > MAX_SNAPSHOT_BYTES:
                    raise ValueError("too large")
            except BaseException:  # noqa: BLE001 - unpicklable values are just not restorable
                unsaved.append(name)
                continue
            total += len(blob)
            self.blobs[name] = blob
            self.sources[name] = value
            if old != blob:
                fresh[name] = base64.b64encode(blob).decode("ascii")
        kept_imports = [[name, module, attr] for name, (module, attr) in imports.items()]
        return {"order": list(namespace), "blobs": fresh, "unsaved": unsaved, "imports": kept_imports}
