"""A person's debugging set-up (breakpoints and watch expressions), kept beside the session's journal.

The journal records the run; this file records how the person was watching
it, so that a resumed session stops where they asked and shows what they were
watching. It is rewritten whole on every change (it is a few lines).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.runtime.breakpoints import Breakpoint, parse_breakpoint
from agent.sessions.journal import write_json_atomically

SETTINGS_FILE = "debug.json"
FORMAT = "recode.debug.v1"


@dataclass
class DebugSettings:
    """Breakpoints in the order they were added, and the watched expressions."""

    breakpoints: list[Breakpoint] = field(default_factory=list)
    watches: list[str] = field(default_factory=list)

    def fingerprint(self) -> tuple:
        """What is saved, to tell whether anything changed since the last save."""
        return tuple((bp.spec(), bp.enabled) for bp in self.breakpoints), tuple(self.watches)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "breakpoints": [{"spec": bp.spec(), "enabled": bp.enabled} for bp in self.breakpoints],
            "watches": list(self.watches),
        }

    @classmethod
    def from_json(cls, data: Any) -> tuple["DebugSettings", list[str]]:
        """The settings in `data`, and one line per entry that could not be read (it is left out)."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"not a {FORMAT} file")
        problems: list[str] = []
        breakpoints: list[Breakpoint] = []
        for item in data.get("breakpoints") or []:
            spec = item.get("spec") if isinstance(item, dict) else None
            try:
                if not isinstance(spec, str):
                    raise ValueError("no spec")
                bp = parse_breakpoint(spec)
            except ValueError as exc:
                problems.append(f"breakpoint {spec!r} left out: {exc}")
                continue
            bp.enabled = bool(item.get("enabled", True))
            breakpoints.append(bp)
        watches = [w for w in data.get("watches") or [] if isinstance(w, str) and w.strip()]
        return cls(breakpoints, watches), problems


def write_debug_settings(folder: Path, settings: DebugSettings) -> str:
    """Save the set-up in the session folder; returns an error text or ''."""
    error = write_json_atomically(folder / SETTINGS_FILE, settings.to_json())
    return f"breakpoints and watches not saved ({error})" if error else ""


def read_debug_settings(folder: Path) -> tuple[DebugSettings | None, list[str]]:
    """The saved set-up (None when the session has none) and notes for the person.

    An unreadable file is moved aside to `debug.json.bad`, so the next save does
    not overwrite what the person may want to mend by hand.
    """
    path = folder / SETTINGS_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, []
    except OSError as exc:
        return None, [f"cannot read {path}: {exc.strerror}; the breakpoints given at start are used"]
    try:
        return DebugSettings.from_json(json.loads(text))
    except ValueError as exc:
        aside = path.with_name(SETTINGS_FILE + ".bad")
        try:
            path.replace(aside)
        except OSError:
            aside = path
        reason = str(exc).splitlines()[0]
        return None, [f"{path.name} is unreadable ({reason}); kept as {aside.name}, the breakpoints given at start are used"]
