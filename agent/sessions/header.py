"""The journal header (a journal's first line) as a typed record: written by `to_json`, read by `from_json`.

What decided the run is one object, `run` (an `agent.run.spec.RunSpec`: agent, preset, limits,
prompts, model, runner, sandbox, environment); beside it, the episode and the record's own
bookkeeping. Every reader (replay, listing, export, traces, `diff`, `compare`, eval's journal index)
takes the fields from `JournalHeader`. A journal an earlier version wrote is brought to this version
by the named steps of `UPGRADES` before the typed read (`agent.runtime.typed_record`), which gives
what it lacks its default once: no `env` is ALFWorld (journals before the environment seam), no
`agent` is ReCode (before the agent seam), no seed a seed never recorded, no `llm` a person.
A field of the wrong kind is refused with one line that says which field and what to do,
rather than met later as a KeyError or a wrong default in some reader.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from agent.run.spec import RunSpec
from agent.runtime.typed_record import RecordFieldError, UnknownVersion, read_fields, read_record, upgraded, written

JOURNAL_VERSION = "recode.journal.v2"
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


@dataclass(frozen=True)
class JournalHeader:
    """What a session was started with: its episode and its run's settings (`run`), whole.

    `extra` keeps the fields an environment provider adds to find its episode and any a newer
    version wrote, so a branch copies them unchanged.
    """

    game: str = ""  # the episode reference as typed (qualified: `sciworld:boil/0`)
    episode: str | None = None  # None: a header from before the environment seam (ALFWorld's `game_path`)
    fingerprint: str | None = None
    game_path: str | None = None  # ALFWorld's game file, also written by newer versions
    game_hash: str | None = None
    task_type: str | None = None
    run: RunSpec = field(default_factory=RunSpec)  # `run.max_steps`: the step limit played (None: not recorded)
    runner: str = SANDBOX_RUNNER  # the runner's kind: a test's in-process `ThreadRunner` had no checks
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
            return registry.qualify(self.episode, self.run.env.name)
        return self.game_path or self.game

    @property
    def episode_name(self) -> str:
        """How the episode is named in lists and traces: the episode id, else the reference as typed."""
        return self.episode or self.game or self.game_path or ""

    @property
    def recorded_unchecked(self) -> bool:
        """The recording ran node code without the sandbox's static checks (in-process, or --trusted)."""
        return self.runner == "ThreadRunner" or self.run.runner.trusted

    def settings_differences(self, other: "JournalHeader") -> list[tuple[str, Any, Any]]:
        """(dotted name, this value, the other's) for every setting of the two runs' records that differs
        (`RunSpec.differences`): a field added to the record is compared with no new code."""
        return self.run.differences(other.run)

    def branched(self, parent: SessionParent, **changes: Any) -> "JournalHeader":
        """This header for a new session branched from this one (its own id and start time come when written);
        `changes` are fields of its run's record."""
        return replace(self, parent=parent, created=0.0, session_id="", run=replace(self.run, **changes))

    # ------------------------------------------------------------------ writing
    def to_json(self) -> dict[str, Any]:
        """The header line as written (`type` and `version` first): every field, whatever its value."""
        data = written(self)
        extra = data.pop("extra")
        return {"type": "session", "version": data.pop("version"), **data, **extra}

    # ------------------------------------------------------------------ reading
    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "JournalHeader":
        """The header of a journal line; HeaderError (one line) for one this version cannot use.

        An older version's header is upgraded first (`UPGRADES`); then every field is read and checked by
        its annotation (`agent.runtime.typed_record`); what an older journal lacks takes the field's default.
        """
        if data.get("type") != "session":
            raise HeaderError("has no session header (its first line is not one)")
        try:
            data = upgraded(data, UPGRADES, JOURNAL_VERSION)
        except UnknownVersion as exc:
            raise HeaderError(f"is version {exc.version!r}; this recode-tui reads {', '.join(map(str, UPGRADES))} "
                              f"and {JOURNAL_VERSION} (open it with the recode-tui that wrote it)") from None
        try:
            fields = read_fields(cls, data, skip=frozenset({"extra", "version", "parent"}))
            parent = data.get("parent")
            if parent is not None and not isinstance(parent, dict):
                raise RecordFieldError("parent", parent, "an object")
            fields["parent"] = read_record(SessionParent, parent, prefix="parent.") if parent else None
        except (RecordFieldError, ValueError) as exc:  # ValueError: a part's own check (a node time limit of 0)
            raise HeaderError(f"line 1: the session header's {exc}; the journal was edited or is not recode-tui's: "
                              "restore it from a copy or start a new run") from None
        known = {name for name in cls.__dataclass_fields__ if name != "extra"} | {"type", "at"}  # `at`: the line's time
        return cls(**fields, extra={k: v for k, v in data.items() if k not in known})


# ---------------------------------------------------------------------- older versions
# v1 (recode-tui before the run record): the run's settings flat beside the episode's fields.
_V1_RUN = {"agent": ("agent", "name"), "agent_options": ("agent", "options"), "preset": ("preset",),
           "max_steps": ("max_steps",), "limits": ("limits",), "prompt_set": ("prompts", "path"),
           "prompt_hash": ("prompts", "hash"), "prompt_files": ("prompts", "files"), "llm": ("model", "llm"),
           "profiles": ("model", "profiles"), "model": ("model", "model"), "base_url": ("model", "base_url"),
           "key_env": ("model", "key_env"), "review": ("model", "review"), "trusted": ("runner", "trusted"),
           "node_timeout": ("runner", "node_timeout"), "sandbox_seed": ("runner", "seed"), "sandbox": ("sandbox",),
           "env": ("env", "name")}
_V1_EMPTY_IS_DEFAULT = ("env", "agent", "llm", "runner")  # an empty value is as good as none: the default of its time


def journal_v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    """A v1 header: its flat settings moved into `run`'s parts (the same names the record gives them); an
    empty or absent one takes the default of its time, as v1's reader gave it; a node time limit that is
    not above 0 is the one a journal without it ran with."""
    out = {k: v for k, v in data.items() if k not in _V1_RUN and not (k in _V1_EMPTY_IS_DEFAULT and v == "")}
    run: dict[str, Any] = {}
    for old, path in _V1_RUN.items():
        value = data.get(old)
        if old not in data or (old in _V1_EMPTY_IS_DEFAULT and value == "") or value is None:
            continue
        if old == "node_timeout" and isinstance(value, (int, float)) and not isinstance(value, bool) and not value > 0:
            continue
        part = run
        for key in path[:-1]:
            part = part.setdefault(key, {})
        part[path[-1]] = value
    run.setdefault("preset", "")  # v1's reader: a journal naming no preset has none
    out["run"], out["version"] = run, JOURNAL_VERSION
    return out


UPGRADES = {"recode.journal.v1": journal_v1_to_v2}


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
