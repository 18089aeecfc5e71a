"""The session journal: every run's outside inputs, appended as JSON Lines.

One record per thing that came from outside the agent: the session header
(game and its hash, limits, prompt set, LLM), each LLM answer with its prompt,
source, usage and cost, each action with its observation, and the end. Each
record is written whole or not at all and fsynced, so a crash loses at most
the record being written; text that cannot be encoded as it is (a model's
lone surrogate) is stored as JSON escapes. Replaying the records against the
real environment rebuilds the run (`agent.sessions.session`). A person's unfinished expansion is kept beside the journal
in `draft.json`, rewritten atomically.

This module writes; reading a journal back is `agent.sessions.journal_read`
and the sessions folder `agent.sessions.listing`.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import secrets
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

from agent.runtime import events as ev
from agent.runtime.safe_text import json_line
from agent.sessions.header import JournalHeader
from agent.sessions.journal_read import DRAFT_FILE, JOURNAL_FILE, Journal

# Writing only: reading is `agent.sessions.journal_read`, listing `agent.sessions.listing`.
__all__ = ["JournalWriter", "append_whole", "file_hash", "new_session_id", "write_draft", "write_json_atomically"]


def file_hash(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def new_session_id(episode_ref: str) -> str:
    stem = Path(episode_ref).parent.name if episode_ref.endswith("game.tw-pddl") else Path(episode_ref).stem
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{stem.replace('/', '_')}-{os.getpid() % 10000:04d}"


class JournalWriter:
    """Appends records for agent events; never raises into the run.

    Each record is written whole or not at all (`append_whole`). A failed write
    (full disk, removed folder) keeps the record in memory, in order, and says
    so in `error` for the UI; the next record retries them, so a disk that
    fills for a moment loses nothing and never leaves half a record behind.
    """

    def __init__(self, folder: Path, header: JournalHeader) -> None:
        self.folder = folder
        self.path = folder / JOURNAL_FILE
        self.error = ""
        self.records_written = 0
        self._last_prompt = ""
        self._last_purpose = ""
        self._last_attempt = 1
        self._asked_node = ""  # the node the open LLM request is for
        self._codes: dict[str, str] = {}
        self._expansions = 0
        self._fd: int | None = None
        self._unwritten: list[bytes] = []  # whole records a failed write left for the next attempt
        # Set by the session: the agent's prompt set now. An answer made with another
        # set than the header's records that set's hash, so a replay can tell.
        self.current_prompts: Callable[[], Any] | None = None
        self._header_prompt_hash = header.run.prompts.hash
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fresh = not self.path.exists() or self.path.stat().st_size == 0
            self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError as exc:
            self.error = f"cannot write the journal in {folder}: {exc.strerror}; the run goes on unrecorded"
            return
        if fresh:  # a journal's own id, unique even where folders share a name (two evals of one game)
            self.write(replace(header, created=time.time(),
                               session_id=f"{folder.name}-{secrets.token_hex(4)}").to_json())

    def write(self, record: dict[str, Any]) -> None:
        """Append one record (after any a failed write kept back); a failure is kept in `error`.

        Each record carries `at`, when it was written (a copied record keeps its own), so a trace
        export times spans from the journal instead of laying them end to end."""
        if self._fd is None:
            return
        timed = record if "at" in record else {**record, "at": round(time.time(), 6)}
        self._unwritten.append((json_line(timed) + "\n").encode("utf-8"))
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
        """The agent observer: turn outside inputs into records."""
        if isinstance(event, ev.NodeStarted):
            self._codes[event.node_id or ""] = event.code
        elif isinstance(event, ev.LLMRequested):
            self._last_prompt, self._last_purpose, self._last_attempt = event.prompt, event.purpose, event.attempt
            self._asked_node = event.node_id or ""  # ReAct asks on a turn and records the answer on the root
        elif isinstance(event, (ev.LLMAnswered, ev.LLMRejected)):
            self._expansions += 1
            received = isinstance(event, ev.LLMAnswered)
            answered = event if isinstance(event, ev.LLMAnswered) else None
            self.write(
                {
                    "type": "answer",
                    "index": self._expansions,
                    "node_id": event.node_id,
                    "stub": self._codes.get(self._asked_node or event.node_id or "", ""),  # what the LLM was asked for
                    # the node the call was asked on, when the answer is recorded on another (ReAct's turn, its root)
                    **({"asked_node": self._asked_node}
                       if self._asked_node and self._asked_node != (event.node_id or "") else {}),
                    "purpose": self._last_purpose,
                    "prompt": self._last_prompt,
                    "answer": event.raw,
                    "source": event.source or "",
                    "accepted": received,
                    # why it was refused (the text the model was sent back), kept for a trace and a diff
                    **({"reason": event.reason} if isinstance(event, ev.LLMRejected) else {}),
                    **({"attempt": self._last_attempt} if self._last_attempt > 1 else {}),  # asked again after refusals
                    # a refused answer was paid for too: every billed token is in some record
                    "input_tokens": event.input_tokens,
                    "output_tokens": event.output_tokens,
                    "cost": event.cost,
                    "seconds": round(event.seconds, 3),
                    "person_seconds": round(event.person_seconds, 3),
                    **self._prompt_change(),
                    **({"proposed": event.proposed} if event.proposed is not None else {}),
                    # the nodes the answer made: the tree of an agent whose children are not code (ReCAP, Plan-and-Execute)
                    **({"child_ids": list(answered.child_ids)} if answered and answered.child_ids else {}),
                    **({"role": event.role} if event.role else {}),  # an agent with several LLM roles
                    **({"cached": True} if event.cached else {}),  # from the response cache
                    # the model's max_tokens cut it (a replay judges it as cut again)
                    **({"cut_at": event.cut_at} if event.cut_at is not None else {}),
                    # an accepted cut answer's text after the part the agent used: what caused the cut
                    **({"cut_rest": answered.cut_rest} if answered and answered.cut_rest else {}),
                    **({"estimated": True} if event.estimated else {}),  # a script's guess, not a model's count
                }
            )
        elif isinstance(event, ev.LLMFailed):
            # Never replayed (the next answer is): kept so time and failures are accounted for.
            self.write({"type": "llm_failed", "node_id": event.node_id, "attempt": event.attempt,
                        "error": event.error, "seconds": round(event.seconds, 3),
                        **({"role": event.role} if event.role else {})})
        elif isinstance(event, ev.ObservationReceived):
            self.write(
                {"type": "action", "node_id": event.node_id, "step": event.step, "action": event.action,
                 "observation": event.observation, **({"refused": True} if event.refused else {}),
                 # the episode ended on it (and whether won): a trace read from the records needs no replay
                 **({"done": True, "won": event.won} if event.done else {})}
            )
        elif isinstance(event, ev.StatementRun):
            self.write({"type": "statement", "node_id": event.node_id, "after": event.after, "code": event.code,
                        "changed": [c.name for c in event.changes]})
        elif isinstance(event, ev.RunFinished):
            self.write({"type": "finished", "success": event.success, "reason": event.reason, "steps": event.steps,
                        "llm_calls": event.llm_calls, "input_tokens": event.input_tokens,
                        "output_tokens": event.output_tokens, "cost": event.cost,
                        "llm_seconds": round(event.llm_seconds, 3), "person_seconds": round(event.person_seconds, 3),
                        "llm_failures": event.llm_failures, **({"extra": event.extra} if event.extra else {})})

    def catch_up(self, events: list[ev.Event]) -> None:
        """Learn from events the agent emitted before this writer was attached; write nothing.

        A resume or a branch attaches its writer after the replay, which may stop
        at an expansion request: the answer that follows must still be recorded
        with its stub and its prompt, or the journal cannot be replayed again.
        """
        for event in events:
            if isinstance(event, ev.NodeStarted):
                self._codes[event.node_id or ""] = event.code
            elif isinstance(event, ev.LLMRequested):
                self._last_prompt, self._last_purpose, self._last_attempt = event.prompt, event.purpose, event.attempt
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


# How often a front end writes a changed draft (the console and the plain mode alike): a crash or a lost
# terminal costs a person at most this much of a typed expansion.
DRAFT_SECONDS = 2.0


def write_draft(folder: Path, node_id: str, text: str) -> str:
    """Save the person's unfinished expansion atomically; returns an error text or ''."""
    error = write_json_atomically(folder / DRAFT_FILE, {"node_id": node_id, "text": text, "saved": time.time()})
    return f"draft not saved ({error})" if error else ""
