"""The journal header (a journal's first line) as a typed record: written by `to_json`, read by `from_json`.

Every reader (replay, listing, export, traces, `diff`, `compare`, eval's journal index) takes
the fields from `JournalHeader`; what a journal written by an earlier version lacks gets its
default here, once: no `env` is ALFWorld (journals before the environment seam), no `agent` is
ReCode (before the agent seam), no `sandbox_seed` is a seed never recorded, no `llm` a person.
A field of the wrong kind is refused with one line that says which field and what to do,
rather than met later as a KeyError or a wrong default in some reader.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Mapping

from agent.runtime.limits import Limits
from agent.runtime.typed_record import RecordFieldError, read_fields, read_record

JOURNAL_VERSION = "recode.journal.v1"
DEFAULT_NODE_TIMEOUT = 5.0  # agent.runtime.runners's: what a journal without `node_timeout` ran with
SANDBOX_RUNNER = "SandboxRunner"


class HeaderError(ValueError):
    """A session header this version cannot use; the message is one line (without the file) saying why."""


@dataclass(frozen=True)
class SessionParent:
    """Where a branch came from: the parent session, how many of its records were copied, at which point.

    `folder` is set for a copy of a whole session (an eval's journal, a salvage) that may live elsewhere.
    """

    session: str = ""
    records: int = 0
    at: str = ""
    folder: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"session": self.session, "records": self.records, "at": self.at,
                **({"folder": self.folder} if self.folder is not None else {})}


@dataclass(frozen=True)
class JournalHeader:
    """What a session was started with: its episode, agent, limits, prompts, LLM and runner.

    `extra` keeps the fields an environment provider adds (WebShop's `webshop_*` settings) and any
    a newer version wrote, so a branch copies them unchanged.
    """

    game: str = ""  # the episode reference as typed (qualified: `sciworld:boil/0`)
    env: str = "alfworld"
    episode: str | None = None  # None: a header from before the environment seam (ALFWorld's `game_path`)
    fingerprint: str | None = None
    game_path: str | None = None  # ALFWorld's game file, also written by newer versions
    game_hash: str | None = None
    agent: str = "recode"
    agent_options: Mapping[str, Any] = field(default_factory=dict)
    task_type: str | None = None
    max_steps: int | None = None  # None: not recorded; such a journal opens but cannot be replayed
    limits: Limits | None = None
    preset: str = ""
    prompt_set: str | None = None
    prompt_hash: str | None = None
    prompt_files: Mapping[str, str] | None = None
    llm: str = "human"
    profiles: str | None = None
    model: str | None = None
    base_url: str | None = None  # where a profile's requests (and key) went
    key_env: str | None = None  # the environment variable the key was read from (never the key itself)
    review: bool = False  # the console's --review: a model's answers were proposals a person accepted
    runner: str = SANDBOX_RUNNER
    trusted: bool = False
    node_timeout: float = DEFAULT_NODE_TIMEOUT
    sandbox_seed: int | None = None
    # the sandbox node code had (agent.sandbox.walls.in_force: layers, walls raised, strict or weak);
    # None: not recorded (journals before it, a runner not built by the sandbox)
    sandbox: str | None = None
    parent: SessionParent | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    version: str = JOURNAL_VERSION
    created: float = 0.0
    session_id: str = ""  # the journal's own id, unique even where folders share a name; '' in older journals

    # ------------------------------------------------------------------ what readers ask
    @property
    def episode_ref(self) -> str:
        """The episode reference to replay: `{env}:{episode}` for a new header, the game file for a pre-seam one."""
        from envs import registry

        if self.episode is not None:
            return registry.qualify(self.episode, self.env)
        return self.game_path or self.game

    @property
    def episode_name(self) -> str:
        """How the episode is named in lists and traces: the episode id, else the reference as typed."""
        return self.episode or self.game or self.game_path or ""

    @property
    def recorded_unchecked(self) -> bool:
        """The recording ran node code without the sandbox's static checks (in-process, or --trusted)."""
        return self.runner == "ThreadRunner" or self.trusted

    def settings_differences(self, other: "JournalHeader") -> list[tuple[str, Any, Any]]:
        """(name, this value, the other's) for every recorded setting that differs, in field order, read from
        the fields themselves: a field added to the header is compared with no new code. Left out: what
        names the episode or the file rather than how the run was set up (`_NOT_SETTINGS`)."""
        return [(spec.name, mine, theirs) for spec in fields(self) if spec.name not in _NOT_SETTINGS
                for mine, theirs in [(getattr(self, spec.name), getattr(other, spec.name))]  # dynamic: every field
                if mine != theirs]

    def branched(self, parent: SessionParent, **changes: Any) -> "JournalHeader":
        """This header for a new session branched from this one (its own id and start time come when written)."""
        return replace(self, parent=parent, created=0.0, session_id="", **changes)

    # ------------------------------------------------------------------ writing
    def to_json(self) -> dict[str, Any]:
        """The header line as written (`type` and `version` first)."""
        return {
            "type": "session", "version": self.version,
            **({"created": self.created} if self.created else {}),
            "game": self.game, "env": self.env,
            **({"episode": self.episode} if self.episode is not None else {}),
            **({"fingerprint": self.fingerprint} if self.fingerprint is not None else {}),
            **({"game_path": self.game_path} if self.game_path is not None else {}),
            **({"game_hash": self.game_hash} if self.game_hash is not None else {}),
            **self.extra,
            "agent": self.agent,
            **({"agent_options": dict(self.agent_options)} if self.agent_options else {}),
            "task_type": self.task_type,
            **({"max_steps": self.max_steps} if self.max_steps is not None else {}),
            **({"limits": asdict(self.limits)} if self.limits is not None else {}),
            "preset": self.preset or None,
            **({"prompt_set": self.prompt_set} if self.prompt_set is not None else {}),
            "prompt_hash": self.prompt_hash,
            **({"prompt_files": dict(self.prompt_files)} if self.prompt_files is not None else {}),
            "llm": self.llm, "profiles": self.profiles, "model": self.model,
            **({"base_url": self.base_url} if self.base_url is not None else {}),
            **({"key_env": self.key_env} if self.key_env is not None else {}),
            **({"review": True} if self.review else {}),  # older journals: none (no review then)
            "runner": self.runner, "trusted": self.trusted, "node_timeout": self.node_timeout,
            **({"sandbox_seed": self.sandbox_seed} if self.sandbox_seed is not None else {}),
            **({"sandbox": self.sandbox} if self.sandbox is not None else {}),
            "parent": self.parent.to_json() if self.parent is not None else None,
            **({"session_id": self.session_id} if self.session_id else {}),
        }

    # ------------------------------------------------------------------ reading
    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "JournalHeader":
        """The header of a journal line; HeaderError (one line) for one this version cannot use.

        Every field is read and checked by its annotation (`agent.runtime.typed_record`); what an
        older journal lacks takes the field's default (see the module's docstring).
        """
        if data.get("type") != "session":
            raise HeaderError("has no session header (its first line is not one)")
        version = data.get("version")
        if version != JOURNAL_VERSION:
            raise HeaderError(f"is version {version!r}; this recode-tui reads {JOURNAL_VERSION} "
                              "(open it with the recode-tui that wrote it)")
        try:
            fields = read_fields(cls, data, skip=frozenset({"extra", "version", "parent"}))
            parent = data.get("parent")
            if parent is not None and not isinstance(parent, dict):
                raise RecordFieldError("parent", parent, "an object")
            fields["parent"] = read_record(SessionParent, parent, prefix="parent.") if parent else None
        except RecordFieldError as exc:
            raise HeaderError(f"line 1: the session header's {exc}; the journal was edited or is not recode-tui's: "
                              "restore it from a copy or start a new run") from None
        for name in _EMPTY_IS_DEFAULT:  # an empty value is as good as none: the default of its time
            if fields.get(name) == "":
                del fields[name]
        if not fields.get("node_timeout", DEFAULT_NODE_TIMEOUT) > 0:  # a journal without one ran with the default
            del fields["node_timeout"]
        known = {name for name in cls.__dataclass_fields__ if name != "extra"} | {"type", "at"}  # `at`: the line's time
        return cls(**fields, extra={k: v for k, v in data.items() if k not in known})


_EMPTY_IS_DEFAULT = ("env", "agent", "llm", "runner")
# Header fields that are not settings: the episode and its files (the diff names them apart), where the
# set was found (its hash is the setting), the per-run sandbox seed, and the record's own bookkeeping.
_NOT_SETTINGS = frozenset({"game", "env", "episode", "fingerprint", "game_path", "game_hash", "task_type",
                           "prompt_set", "prompt_files", "sandbox_seed", "parent", "extra", "version", "created",
                           "session_id"})


def load_header(file: Path) -> JournalHeader:
    """The header of a journal file from its first line alone (a reader that needs nothing else, such as
    `compare` naming a run's prompt hash); HeaderError (one line) when it has none this version reads."""
    try:
        with open(file, "rb") as handle:
            first = handle.readline()
    except OSError as exc:
        raise HeaderError(f"cannot be read ({exc.strerror}); check the path") from None
    try:
        data = json.loads(first)
    except ValueError:
        raise HeaderError("is not a recode-tui journal (line 1 is not JSON)") from None
    if not isinstance(data, dict):
        raise HeaderError("is not a recode-tui journal (line 1 is not a record)")
    return JournalHeader.from_json(data)
