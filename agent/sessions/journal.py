"""The session journal: every run's outside inputs, appended as JSON Lines.

One record per thing that came from outside the engine: the session header
(game and its hash, limits, prompt set, LLM), each LLM answer with its prompt,
source, usage and cost, each action with its observation, and the end. Each
record is written whole or not at all and fsynced, so a crash loses at most
the record being written; text that cannot be encoded as it is (a model's
lone surrogate) is stored as JSON escapes. Replaying the records against the
real environment rebuilds the run (`agent.sessions.session`). A person's unfinished expansion is kept beside the journal
in `draft.json`, rewritten atomically.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from agent.runtime import events as ev
from agent.runtime.safe_text import json_line
from agent.sessions.replay import RecordedAction, RecordedAnswer, RecordedStatement

JOURNAL_VERSION = "recode.journal.v1"
JOURNAL_FILE = "journal.jsonl"
DRAFT_FILE = "draft.json"


class JournalError(Exception):
    """A journal cannot be read or used; the message is one line that says what to do."""


def file_hash(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def default_sessions_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("recode-tui")) / "sessions"


def new_session_id(game: str) -> str:
    stem = Path(game).parent.name if game.endswith("game.tw-pddl") else Path(game).stem
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{stem.replace('/', '_')}-{os.getpid() % 10000:04d}"


class JournalWriter:
    """Appends records for engine events; never raises into the run.

    Each record is written whole or not at all (`append_whole`). A failed write
    (full disk, removed folder) keeps the record in memory, in order, and says
    so in `error` for the UI; the next record retries them, so a disk that
    fills for a moment loses nothing and never leaves half a record behind.
    """

    def __init__(self, folder: Path, header: dict[str, Any]) -> None:
        self.folder = folder
        self.path = folder / JOURNAL_FILE
        self.error = ""
        self.records_written = 0
        self._last_prompt = ""
        self._last_purpose = "expand"
        self._asked_node = ""  # the node the open LLM request is for
        self._codes: dict[str, str] = {}
        self._expansions = 0
        self._fd: int | None = None
        self._unwritten: list[bytes] = []  # whole records a failed write left for the next attempt
        # Set by the session: the engine's prompt set now. An answer made with another
        # set than the header's records that set's hash, so a replay can tell.
        self.current_prompts: Callable[[], Any] | None = None
        self._header_prompt_hash = header.get("prompt_hash")
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fresh = not self.path.exists() or self.path.stat().st_size == 0
            self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError as exc:
            self.error = f"cannot write the journal in {folder}: {exc.strerror}; the run goes on unrecorded"
            return
        if fresh:
            self.write({"type": "session", "version": JOURNAL_VERSION, "created": time.time(), **header})

    def write(self, record: dict[str, Any]) -> None:
        """Append one record (after any a failed write kept back); a failure is kept in `error`."""
        if self._fd is None:
            return
        self._unwritten.append((json_line(record) + "\n").encode("utf-8"))
        self._write_unwritten()

    def _write_unwritten(self) -> None:
        while self._unwritten and self._fd is not None:
            try:
                append_whole(self._fd, self._unwritten[0])
            except OSError as exc:
                self.error = (f"journal write failed ({exc.strerror or exc}): {len(self._unwritten)} record(s) "
                              f"kept in memory and retried with the next; free space in {self.folder}")
                return
            self._unwritten.pop(0)
            self.records_written += 1
        if self.error.startswith("journal write failed"):
            self.error = ""  # caught up: the journal is whole again

    def __call__(self, event: ev.Event) -> None:
        """The engine observer: turn outside inputs into records."""
        if isinstance(event, ev.NodeStarted):
            self._codes[event.node_id or ""] = event.code
        elif isinstance(event, ev.LLMRequested):
            self._last_prompt, self._last_purpose = event.prompt, event.purpose
            self._asked_node = event.node_id or ""  # ReAct asks on a turn and records the answer on the root
        elif isinstance(event, (ev.LLMAnswered, ev.LLMRejected)):
            self._expansions += 1
            received = isinstance(event, ev.LLMAnswered)
            self.write(
                {
                    "type": "answer",
                    "index": self._expansions,
                    "node_id": event.node_id,
                    "stub": self._codes.get(self._asked_node or event.node_id or "", ""),  # what the LLM was asked for
                    "purpose": self._last_purpose,
                    "prompt": self._last_prompt,
                    "answer": event.raw,
                    "source": getattr(event, "source", "") or "",
                    "accepted": received,
                    "input_tokens": getattr(event, "input_tokens", 0),
                    "output_tokens": getattr(event, "output_tokens", 0),
                    "cost": getattr(event, "cost", 0.0),
                    "seconds": round(event.seconds, 3),
                    "person_seconds": round(getattr(event, "person_seconds", 0.0), 3),
                    **self._prompt_change(),
                    **({"proposed": event.proposed} if event.proposed is not None else {}),
                    # the nodes the answer made: the tree of an agent whose children are not code (ReCAP, Plan-and-Execute)
                    **({"child_ids": list(event.child_ids)} if isinstance(event, ev.LLMAnswered) and event.child_ids else {}),
                    **({"role": event.role} if event.role else {}),  # an agent with several LLM roles
                    **({"cached": True} if getattr(event, "cached", False) else {}),  # from the response cache
                }
            )
        elif isinstance(event, ev.LLMFailed):
            # Never replayed (the next answer is): kept so time and failures are accounted for.
            self.write({"type": "llm_failed", "node_id": event.node_id, "attempt": event.attempt,
                        "error": event.error, "seconds": round(event.seconds, 3)})
        elif isinstance(event, ev.ObservationReceived):
            self.write(
                {"type": "action", "node_id": event.node_id, "step": event.step, "action": event.action,
                 "observation": event.observation, **({"refused": True} if event.refused else {})}
            )
        elif isinstance(event, ev.StatementRun):
            self.write({"type": "statement", "node_id": event.node_id, "after": event.after, "code": event.code,
                        "changed": [c.name for c in event.changes]})
        elif isinstance(event, ev.RunFinished):
            self.write({"type": "finished", "success": event.success, "reason": event.reason, "steps": event.steps,
                        "llm_calls": event.llm_calls, "cost": event.cost,
                        "llm_seconds": round(event.llm_seconds, 3), "person_seconds": round(event.person_seconds, 3),
                        "llm_failures": event.llm_failures, **({"extra": event.extra} if event.extra else {})})

    def catch_up(self, events: list[ev.Event]) -> None:
        """Learn from events the engine emitted before this writer was attached; write nothing.

        A resume or a branch attaches its writer after the replay, which may stop
        at an expansion request: the answer that follows must still be recorded
        with its stub and its prompt, or the journal cannot be replayed again.
        """
        for event in events:
            if isinstance(event, ev.NodeStarted):
                self._codes[event.node_id or ""] = event.code
            elif isinstance(event, ev.LLMRequested):
                self._last_prompt, self._last_purpose = event.prompt, event.purpose
                self._asked_node = event.node_id or ""

    def _prompt_change(self) -> dict[str, str]:
        prompts = self.current_prompts() if self.current_prompts is not None else None
        if prompts is None:
            return {}
        digest = prompts.content_hash()
        if digest == self._header_prompt_hash:
            return {}
        return {"prompt_hash": digest, "prompt_set": str(prompts.root)}

    def record_llm(self, spec: str, profiles: str | None, why: str = "switch") -> None:
        """The LLM answering from now on (`L`, or another `--llm` on resume): a resume goes on with it."""
        self.write({"type": "llm", "spec": spec, "profiles": profiles, "why": why, "at": time.time()})

    def continue_from(self, journal: "Journal") -> None:
        """Carry on numbering after the records already in `journal` (resume appends)."""
        self._expansions = sum(r.get("type") == "answer" for r in journal.records)

    def close(self) -> None:
        """Last try at records a failed write kept back, then close; never raises (a result is never lost to it)."""
        if self._fd is None:
            return
        self._write_unwritten()
        if self._unwritten:
            self.error = (f"journal write failed: the last {len(self._unwritten)} record(s) are not in {self.path}; "
                          f"free space, then `recode-tui run --resume {self.folder.name}` goes on from the last "
                          "record written")
        try:
            os.close(self._fd)
        except OSError:
            pass
        self._fd = None


def append_whole(fd: int, data: bytes) -> None:
    """Append `data` to the file and fsync it, or leave the file as it was and raise the OSError.

    A write cut short (a full disk) is cut back to the previous length, so a
    half record is never glued to the next one.
    """
    start = os.lseek(fd, 0, os.SEEK_END)
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            if written <= 0:
                raise OSError(errno.EIO, "nothing written")
            view = view[written:]
        os.fsync(fd)
    except OSError:
        try:
            os.ftruncate(fd, start)
        except OSError:
            pass
        raise


@dataclass
class Journal:
    """A journal read back: its header and records, and what was cut."""

    folder: Path
    header: dict[str, Any]
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
        """(spec, profiles file) of the LLM answering at the end of the recording: the last switch, else the header's."""
        last = next((r for r in reversed(self.records) if r.get("type") == "llm" and r.get("spec")), None)
        if last is not None:
            return str(last["spec"]), last.get("profiles")
        return str(self.header.get("llm") or "human"), self.header.get("profiles")

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
    except ValueError as exc:
        raise BadRecord(f"not JSON ({getattr(exc, 'msg', exc)} at column {getattr(exc, 'colno', '?')})") from None
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
    header = _checked_header(file, records)
    journal = Journal(folder, header, records[1:], truncated_tail=truncated and not corrupt, corrupt_line=corrupt)
    if corrupt:
        journal.notes.append(f"{file.name} is corrupt at line {corrupt} ({problem}); only the records before it are used")
    elif truncated:
        journal.notes.append(f"the last record of {file.name} was cut (a crash?); resumed up to the last whole record")
    return journal


def _checked_header(file: Path, records: list[dict[str, Any]]) -> dict[str, Any]:
    """The session header (the first record), checked to be one this version reads."""
    if not records or records[0].get("type") != "session":
        raise JournalError(f"{file} is not a recode-tui journal (no session header)")
    header = records[0]
    if header.get("version") != JOURNAL_VERSION:
        raise JournalError(
            f"journal {file} is version {header.get('version')!r}; this recode-tui reads {JOURNAL_VERSION}"
        )
    return header


def write_json_atomically(target: Path, data: Any) -> str:
    """Replace `target` with `data` as JSON, never leaving half a file; returns an error text or ''."""
    temp = target.with_name(target.name + ".tmp")
    try:
        with open(temp, "w", encoding="utf-8") as handle:
            json.dump(data, handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, target)
    except OSError as exc:
        return exc.strerror or type(exc).__name__
    return ""


def write_draft(folder: Path, node_id: str, text: str) -> str:
    """Save the person's unfinished expansion atomically; returns an error text or ''."""
    error = write_json_atomically(folder / DRAFT_FILE, {"node_id": node_id, "text": text, "saved": time.time()})
    return f"draft not saved ({error})" if error else ""


SUMMARY_LINE_LIMIT = 1 << 20  # a listing parses lines up to this many bytes; a longer one is only counted
_LEADING_TYPE = re.compile(rb'^\{"type": "(\w+)"')


def summarize_journal(folder: Path) -> Journal:
    """What a sessions listing shows, read line by line in bounded memory.

    Keeps the header, LLM switches and the end whole, and each action as its type
    only (for the step count). A line that is not a record stops the read and is
    described in `problem` (with its line), so the listing can mark the session.
    """
    file = folder / JOURNAL_FILE
    header: dict[str, Any] = {}
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
                if not header:
                    header = record
                    try:
                        _checked_header(file, [record])
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
    if not header and not problem:
        problem = "is corrupt at line 1: no session header"
    return Journal(folder, header, records, problem=problem)


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


def sessions_dir_from(option: str | None) -> Path:
    """`--sessions DIR`, else $RECODE_TUI_SESSIONS, else the user data dir."""
    chosen = option or os.environ.get("RECODE_TUI_SESSIONS")
    return Path(chosen) if chosen else default_sessions_dir()


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
