"""Reading a session journal back: its format (version, file names), each line checked as a record, the whole journal for a replay.

Apart from `agent.sessions.journal`, which writes journals: a reader (replay, export, the sessions list, `compare`)
needs none of the writer's machinery, and the checks a journal from
elsewhere must pass are in one place.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.runtime.recorded import RecordedStatement
from agent.sessions.header import JOURNAL_VERSION, HeaderError, JournalHeader
from agent.sessions.replay import RecordedAction, RecordedAnswer

JOURNAL_FILE = "journal.jsonl"
DRAFT_FILE = "draft.json"


class JournalError(Exception):
    """A journal cannot be read or used; the message is one line that says what to do."""


@dataclass
class Journal:
    """A journal read back: its header and records, and what was cut."""

    folder: Path
    header: JournalHeader
    records: list[dict[str, Any]]
    truncated_tail: bool = False
    notes: list[str] = field(default_factory=list)
    corrupt_line: int = 0  # a lenient read stopped before this line (1-based); 0: none
    problem: str = ""  # a summary's: what is wrong with the journal and where ('' when nothing)

    @property
    def session_id(self) -> str:
        return self.folder.name

    def answers(self, upto: int | None = None) -> list[RecordedAnswer]:
        chosen = self.records if upto is None else self.records[:upto]
        return [
            RecordedAnswer(
                index=r["index"], node_id=r["node_id"], prompt=r["prompt"], answer=r["answer"], source=r.get("source", ""),
                input_tokens=r.get("input_tokens", 0), output_tokens=r.get("output_tokens", 0), cost=r.get("cost", 0.0),
                prompt_hash=r.get("prompt_hash"), prompt_set=r.get("prompt_set"), seconds=r.get("seconds"),
                person_seconds=r.get("person_seconds", 0.0),
                cut_at=r["cut_at"] if isinstance(r.get("cut_at"), int) else None, estimated=r.get("estimated") is True,
            )
            for r in chosen
            if r.get("type") == "answer"
        ]

    def actions(self, upto: int | None = None) -> list[RecordedAction]:
        chosen = self.records if upto is None else self.records[:upto]
        return [RecordedAction(r["step"], r["action"], r["observation"]) for r in chosen
                if r.get("type") == "action" and not r.get("refused")]  # a refused one never reached the env

    def statements(self, upto: int | None = None) -> list[RecordedStatement]:
        chosen = self.records if upto is None else self.records[:upto]
        return [RecordedStatement(int(r["after"]), str(r["code"])) for r in chosen if r.get("type") == "statement"]

    @property
    def llm_setup(self) -> tuple[str, str | None]:
        """(spec, profiles file) of the LLM answering at the end of the recording: the last switch, else the
        header's. A fallback (the recorded LLM could not be built on a resume) is not a choice: it is skipped."""
        last = next((r for r in reversed(self.records) if r.get("type") == "llm" and r.get("spec")
                     and not str(r.get("why", "")).startswith("fallback")), None)
        if last is not None:
            return str(last["spec"]), last.get("profiles")
        return self.header.run.model.llm, self.header.run.model.profiles

    @property
    def finished(self) -> dict[str, Any] | None:
        return next((r for r in reversed(self.records) if r.get("type") == "finished"), None)

    def read_draft(self) -> dict[str, Any] | None:
        path = self.folder / DRAFT_FILE
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None


# What each record type needs to be replayed or listed: field -> accepted types.
_REQUIRED: dict[str, dict[str, tuple[type, ...]]] = {
    "session": {"version": (str,)},
    "answer": {"index": (int,), "node_id": (str,), "prompt": (str,), "answer": (str,)},
    "action": {"step": (int,), "action": (str,), "observation": (str,)},
    "statement": {"after": (int,), "code": (str,)},
    "finished": {"success": (bool,)},
    "llm": {"spec": (str,)},
}


class BadRecord(ValueError):
    """One journal line that is not a record; the message says what is wrong with it."""


def parse_record(raw: bytes) -> dict[str, Any]:
    """One journal line as a record, or BadRecord saying what is wrong (bytes, JSON, shape or fields)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadRecord(f"byte 0x{raw[exc.start]:02x} at column {exc.start + 1} is not UTF-8 text") from None
    try:
        record = json.loads(text)
    except RecursionError:
        raise BadRecord("the JSON is nested too deeply to read") from None
    except json.JSONDecodeError as exc:
        raise BadRecord(f"not JSON ({exc.msg} at column {exc.colno})") from None
    except ValueError as exc:
        raise BadRecord(f"not JSON ({exc} at column ?)") from None
    if not isinstance(record, dict):
        raise BadRecord(f"a JSON {type(record).__name__} where a record (a JSON object) belongs")
    kind = record.get("type")
    if not isinstance(kind, str):
        raise BadRecord("a record without a `type`")
    for name, types in _REQUIRED.get(kind, {}).items():
        value = record.get(name)
        if not isinstance(value, types) or (bool not in types and isinstance(value, bool)):
            what = "without" if name not in record else "with a bad"
            raise BadRecord(f"a{'n' if kind[0] in 'aeiou' else ''} {kind} record {what} `{name}`")
    return record


def read_journal(folder_or_file: str | Path, *, lenient: bool = False) -> Journal:
    """Read a journal; a last line cut by a crash is dropped and noted.

    A line that is not a record raises JournalError naming the file, the line and
    what is wrong. `lenient` keeps the records before it (noted in `corrupt_line`)
    instead: what a "continue from the last good point" needs.
    """
    path = Path(folder_or_file)
    folder = path if path.is_dir() else path.parent
    file = folder / JOURNAL_FILE if path.is_dir() else path
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise JournalError(f"cannot read journal {file}: {exc.strerror}; check the session id or path") from None
    lines = data.split(b"\n")
    truncated = bool(lines and lines[-1].strip())  # a whole record always ends with a newline
    if truncated:
        lines = lines[:-1]
    records: list[dict[str, Any]] = []
    corrupt, problem = 0, ""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            records.append(parse_record(line))
        except BadRecord as exc:
            if not records:
                raise JournalError(f"{file} is not a recode-tui journal (line {number}: {exc})") from None
            if lenient:
                corrupt, problem = number, str(exc)
                break
            raise JournalError(
                f"journal {file} is corrupt at line {number}: {exc}; it cannot be replayed past that line"
            ) from None
    header = check_header(file, records)
    journal = Journal(folder, header, records[1:], truncated_tail=truncated and not corrupt, corrupt_line=corrupt)
    if corrupt:
        journal.notes.append(f"{file.name} is corrupt at line {corrupt} ({problem}); only the records before it are used")
    elif truncated:
        journal.notes.append(f"the last record of {file.name} was cut (a crash?); resumed up to the last whole record")
    return journal


def check_header(file: Path, records: list[dict[str, Any]]) -> JournalHeader:
    """The session header (the first record), read through its one loader (`agent.sessions.header`)."""
    if not records or records[0].get("type") != "session":
        raise JournalError(f"{file} is not a recode-tui journal (no session header)")
    try:
        return JournalHeader.from_json(records[0])
    except HeaderError as exc:
        raise JournalError(f"journal {file} {exc}") from None
