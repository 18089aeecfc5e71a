"""Which prompt files differ between two runs, and (when the files are still as recorded) which lines.

Journals record a hash per prompt file (`prompt_files` in the session header,
see `agent.runtime.prompt_hashes`). Two headers with different hashes for a
file name that file; its lines are shown only when both sets' folders still
hold the text each run used (the file's hash still matches), never a guess.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.runtime.prompt_hashes import file_path, text_hash
from agent.sessions.header import JournalHeader

CONTEXT_LINES = 1


@dataclass(frozen=True)
class PromptFileChange:
    """One prompt file that differs: `changed`, `added` (only the second run's set has it) or `removed`."""

    file: str
    change: str
    lines: tuple[str, ...] = ()  # unified diff lines; empty when a side's text is no longer on disk as used
    note: str = ""  # why there are no lines

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "change": self.change, "lines": list(self.lines), "note": self.note or None}


def _text(header: JournalHeader, name: str, digest: str) -> str | None:
    """The file's text as the run used it, when its folder still holds exactly that text."""
    if not header.run.prompts.path:
        return None
    path = file_path(Path(header.run.prompts.path), name)
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return data.decode("utf-8", errors="replace") if text_hash(data) == digest else None


def header_changes(a: JournalHeader | None, b: JournalHeader | None) -> list[PromptFileChange]:
    """The prompt files that differ between two session headers ([] when either records no per-file hashes)."""
    if a is None or b is None or a.run.prompts.files is None or b.run.prompts.files is None:
        return []
    files_a, files_b = a.run.prompts.files, b.run.prompts.files
    found = []
    for name in sorted(set(files_a) | set(files_b)):
        ha, hb = files_a.get(name), files_b.get(name)
        if ha == hb:
            continue
        change = "added" if ha is None else "removed" if hb is None else "changed"
        before = "" if ha is None else _text(a, name, ha)
        after = "" if hb is None else _text(b, name, hb)
        if before is None or after is None:
            found.append(PromptFileChange(name, change, (), "the text as used is no longer in its prompt set's folder"))
            continue
        lines = tuple(line.rstrip("\n") for line in difflib.unified_diff(
            before.splitlines(), after.splitlines(), fromfile=f"A {name}", tofile=f"B {name}",
            n=CONTEXT_LINES, lineterm=""))
        found.append(PromptFileChange(name, change, lines))
    return found

