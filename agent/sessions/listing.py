"""The sessions folder: where sessions live, listing them in bounded memory (a corrupt one says so), and finding one by id or path.

Apart from `agent.sessions.journal` (writing) and `journal_read` (reading a
journal whole) because a listing reads many journals and must stay cheap on
huge or broken ones.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

from agent.sessions.journal_read import (
    DRAFT_FILE,
    JOURNAL_FILE,
    BadRecord,
    Journal,
    JournalError,
    check_header,
    parse_record,
)
from agent.sessions.header import JournalHeader


def default_sessions_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("recode-tui")) / "sessions"


SUMMARY_LINE_LIMIT = 1 << 20  # a listing parses lines up to this many bytes; a longer one is only counted
_LEADING_TYPE = re.compile(rb'^\{"type": "(\w+)"')


def summarize_journal(folder: Path) -> Journal:
    """What a sessions listing shows, read line by line in bounded memory.

    Keeps the header, LLM switches and the end whole, and each action as its type
    only (for the step count). A line that is not a record stops the read and is
    described in `problem` (with its line), so the listing can mark the session.
    """
    file = folder / JOURNAL_FILE
    header: JournalHeader | None = None
    records: list[dict[str, Any]] = []
    problem = ""
    try:
        with open(file, "rb") as handle:
            for number, line in enumerate(_bounded_lines(handle), start=1):
                if not line.strip():
                    continue
                if len(line) > SUMMARY_LINE_LIMIT:  # too long to parse for a listing: only its leading type
                    found = _LEADING_TYPE.match(line)
                    if found and found.group(1) == b"action":
                        records.append({"type": "action"})
                    continue
                complete = line.endswith(b"\n")
                try:
                    record = parse_record(line)
                except BadRecord as exc:
                    if complete:  # a last line cut by a crash is no corruption
                        problem = f"is corrupt at line {number}: {exc}"
                    break
                if header is None:
                    try:
                        header = check_header(file, [record])
                    except JournalError as exc:
                        problem = str(exc).removeprefix(f"{file} ").removeprefix(f"journal {file} ")
                        break
                    continue
                kind = record["type"]
                if kind in ("finished", "llm"):
                    records.append(record)
                elif kind == "action":
                    records.append({"type": "action"})
    except OSError as exc:
        problem = f"cannot be read ({exc.strerror})"
    if header is None and not problem:
        problem = "is corrupt at line 1: no session header"
    # a header that cannot be used leaves no good point to go on from (`corrupt_line` 1)
    return Journal(folder, header or JournalHeader(), records, problem=problem,
                   corrupt_line=1 if problem and header is None else 0)


def _bounded_lines(handle: Any) -> Iterator[bytes]:
    """The file's lines; a line longer than SUMMARY_LINE_LIMIT comes as its first part plus one byte past the limit."""
    while True:
        line = handle.readline(SUMMARY_LINE_LIMIT)
        if not line:
            return
        if len(line) == SUMMARY_LINE_LIMIT and not line.endswith(b"\n"):
            while (rest := handle.readline(SUMMARY_LINE_LIMIT)) and not rest.endswith(b"\n"):
                pass
            line += b"-"  # marks it as over the limit; its bytes past the limit are skipped, not kept
        yield line


def list_sessions(sessions_dir: Path) -> list[Journal]:
    """Every session, oldest first, as a summary (`summarize_journal`); a corrupt one says so in `problem`."""
    if not sessions_dir.is_dir():
        return []
    folders = sorted(p for p in sessions_dir.iterdir() if (p / JOURNAL_FILE).is_file())
    return [summarize_journal(folder) for folder in folders]


def last_activity(folder: Path) -> float:
    """When a session was last worked on: its journal's last record or its draft's last save."""
    times = []
    for name in (JOURNAL_FILE, DRAFT_FILE):
        try:
            times.append((folder / name).stat().st_mtime)
        except OSError:
            continue
    return max(times, default=0.0)


def find_session(sessions_dir: Path, ref: str | None) -> Path:
    """A session folder from an id, a folder, a journal path, or the latest when `ref` is None."""
    if ref:
        path = Path(ref)
        if path.is_file():
            return path.parent
        if (path / JOURNAL_FILE).is_file():
            return path
        if (sessions_dir / ref / JOURNAL_FILE).is_file():
            return sessions_dir / ref
        raise JournalError(f"no session {ref!r} in {sessions_dir}; see `recode-tui sessions list`")
    candidates = [p for p in sessions_dir.glob("*") if (p / JOURNAL_FILE).is_file()] if sessions_dir.is_dir() else []
    if not candidates:
        raise JournalError(f"no sessions in {sessions_dir}; run an episode first or pass --sessions DIR")
    return max(candidates, key=last_activity)  # a console killed with typed work counts by its draft
