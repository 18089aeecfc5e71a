"""Imports that outlive their node (spec §2): `import json` in one node, `json.loads` in the next.

Functions, classes and modules are not variables, so the namespace drops
them. Names whose value is an allowed module, or a name of one
(`from collections import Counter`), are kept apart as `name -> (module,
attribute)`: plain data that a fresh worker (or the in-process runner) turns
back into the object, so they also survive a worker restart.

Pure standard library: used by the sandbox worker and by the in-process runner alike, so it lives
with the runtime both build on.
"""

from __future__ import annotations

import types
from typing import Any

Origin = tuple[str, str]  # (module, attribute); "" for the module itself


class ImportIndex:
    """Finds where a value came from among a set of modules, and brings it back."""

    def __init__(self, modules: dict[str, types.ModuleType]) -> None:
        self.modules = dict(modules)
        self._by_id: dict[int, Origin] = {}
        for name in sorted(self.modules):
            module = self.modules[name]
            self._by_id.setdefault(id(module), (name, ""))
            for attr, value in vars(module).items():
                if not attr.startswith("_"):
                    self._by_id.setdefault(id(value), (name, attr))

    def origin(self, value: Any) -> Origin | None:
        """The (module, attribute) that gives exactly `value`, or None."""
        found = self._by_id.get(id(value))
        if found is None:
            return None
        return found if self.resolve(found) is value else None

    def resolve(self, origin: Origin) -> Any:
        """The object an origin names; raises KeyError or AttributeError for one that is not there."""
        module_name, attr = origin
        if attr.startswith("_"):
            raise AttributeError(attr)
        module = self.modules[module_name]
        return getattr(module, attr) if attr else module  # dynamic: the name node code imported

    def kept_imports(self, scope: dict[str, Any], skip: Any) -> dict[str, Origin]:
        """The names of `scope` bound to an allowed module or a name from one (`skip(name, value)` excludes)."""
        kept: dict[str, Origin] = {}
        for name, value in scope.items():
            if name.startswith("_") or skip(name, value):
                continue
            found = self.origin(value)
            if found is not None:
                kept[name] = found
        return kept

    def restore(self, entries: list[Any]) -> dict[str, Origin]:
        """Entries sent back by the agent, checked: only names of the allowed modules come back."""
        kept: dict[str, Origin] = {}
        for entry in entries:
            try:
                name, module_name, attr = (str(x) for x in entry)
                if not name.isidentifier() or name.startswith("_"):
                    continue
                self.resolve((module_name, attr))
            except (KeyError, AttributeError, TypeError, ValueError):
                continue
            kept[name] = (module_name, attr)
        return kept
