"""The session journal: every run's outside inputs, appended as JSON Lines.

One record per thing that came from outside the engine: the session header
(game and its hash, limits, prompt set, LLM), each LLM answer with its prompt,
source, usage and cost, each action with its observation, and the end. Each
record is flushed and fsynced, so a crash loses at most the record being
written. Replaying the records against the real environment rebuilds the run
(`agent.session`). A person's unfinished expansion is kept beside the journal
in `draft.json`, rewritten atomically.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from agent import events as ev
from agent.replay import RecordedAction, RecordedAnswer, RecordedStatement

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

    A failed write (full disk, removed folder) is kept in `error` for the UI
    to show, and the run goes on unrecorded.
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
        self._handle = None
        # Set by the session: the engine's prompt set now. An answer made with another
        # set than the header's records that set's hash, so a replay can tell.
        self.current_prompts: Callable[[], Any] | None = None
        self._header_prompt_hash = header.get("prompt_hash")
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fresh = not self.path.exists() or self.path.stat().st_size == 0
            self._handle = open(self.path, "a", encoding="utf-8")
            if fresh:
                self.write({"type": "session", "version": JOURNAL_VERSION, "created": time.time(), **header})
        except OSError as exc:
            self.error = f"cannot write the journal in {folder}: {exc.strerror}; the run goes on unrecorded"

    def write(self, record: dict[str, Any]) -> None:
        if self._handle is None:
            return
        try:
            self._handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            self._handle.flush()
            os.fsync(self._handle.fileno())
            self.records_written += 1
        except OSError as exc:
            self.error = f"journal write failed ({exc.strerror}); the run goes on unrecorded"

    def __call__(self, event: ev.Event) -> None:
        """The engine observer: turn outside inputs into records."""
        if isinstance(event, ev.NodeStarted):
            self._codes[event.node_id or ""] = event.code
        elif isinstance(event, ev.ExpansionRequested):
            self._last_prompt, self._last_purpose = event.prompt, event.purpose
            self._asked_node = event.node_id or ""  # ReAct asks on a turn and records the answer on the root
        elif isinstance(event, (ev.ExpansionReceived, ev.ExpansionRejected)):
            self._expansions += 1
            received = isinstance(event, ev.ExpansionReceived)
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
                    **({"role": event.role} if event.role else {}),  # an agent with several LLM roles
                }
            )
        elif isinstance(event, ev.LLMFailed):
            # Never replayed (the next answer is): kept so time and failures are accounted for.
            self.write({"type": "llm_failed", "node_id": event.node_id, "attempt": event.attempt,
                        "error": event.error, "seconds": round(event.seconds, 3)})
        elif isinstance(event, ev.ObservationReceived):
            self.write(
                {"type": "action", "node_id": event.node_id, "step": event.step, "action": event.action,
                 "observation": event.observation}
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
            elif isinstance(event, ev.ExpansionRequested):
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
        if self._handle is not None:
            self._handle.close()
            self._handle = None


@dataclass
class Journal:
    """A journal read back: its header and records, and what was cut."""

    folder: Path
    header: dict[str, Any]
    records: list[dict[str, Any]]
    truncated_tail: bool = False
    notes: list[str] = field(default_factory=list)
    corrupt_line: int = 0  # a lenient read stopped before this line (1-based); 0: none

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
        return [RecordedAction(r["step"], r["action"], r["observation"]) for r in chosen if r.get("type") == "action"]

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


def read_journal(folder_or_file: str | Path, *, lenient: bool = False) -> Journal:
    """Read a journal; a last line cut by a crash is dropped and noted.

    `lenient` keeps the records before a corrupt line (noted in `corrupt_line`)
    instead of refusing the journal: what a "continue from the last good point" needs.
    """
    path = Path(folder_or_file)
    folder = path if path.is_dir() else path.parent
    file = folder / JOURNAL_FILE if path.is_dir() else path
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise JournalError(f"cannot read journal {file}: {exc.strerror}; check the session id or path") from None
    lines = text.split("\n")
    truncated = bool(lines and lines[-1].strip())  # a whole record always ends with a newline
    if truncated:
        lines = lines[:-1]
    records: list[dict[str, Any]] = []
    corrupt = 0
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except ValueError:
            if lenient and records:
                corrupt = number
                break
            raise JournalError(
                f"journal {file} is corrupt at line {number}; it cannot be replayed past that line"
            ) from None
    if not records or records[0].get("type") != "session":
        raise JournalError(f"{file} is not a recode-tui journal (no session header)")
    header = records[0]
    if header.get("version") != JOURNAL_VERSION:
        raise JournalError(
            f"journal {file} is version {header.get('version')!r}; this recode-tui reads {JOURNAL_VERSION}"
        )
    journal = Journal(folder, header, records[1:], truncated_tail=truncated and not corrupt, corrupt_line=corrupt)
    if corrupt:
        journal.notes.append(f"{file.name} is corrupt at line {corrupt}; only the records before it are used")
    elif truncated:
        journal.notes.append(f"the last record of {file.name} was cut (a crash?); resumed up to the last whole record")
    return journal


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


def list_sessions(sessions_dir: Path) -> list[Journal]:
    """Every readable session, oldest first; unreadable ones are skipped."""
    found = []
    if not sessions_dir.is_dir():
        return found
    for folder in sorted(p for p in sessions_dir.iterdir() if (p / JOURNAL_FILE).is_file()):
        try:
            found.append(read_journal(folder))
        except JournalError:
            continue
    return found


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
