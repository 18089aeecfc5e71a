"""An evaluation report as `compare` and `diff` read it: the typed record, where its file is, and one
journal header of its run (which records what the report does not: the prompt set's hash and files).

The record comes from the report's one loader (`EvalReport.checked`), so the defaults an older report
gets are decided there once; this module adds only what a comparison needs around it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, is_dataclass, replace
from pathlib import Path
from typing import Any, Mapping

from agent.eval.report import REPORT_FILE, EvalReport, read_json
from agent.eval.results import EpisodeResult, EvalPlan
from agent.sessions.header import HeaderError, JournalHeader, load_header

JOURNALS_DIR = "journals"


class CompareError(ValueError):
    """The reports cannot be compared; the message is one line that says why."""


# Plan fields that are not settings: which episodes and how they were picked (compared episode by episode),
# how many ran at once, where the prompt set and cache were found (the prompt hash is the setting), what was
# derived from the episodes, the repeats (a line of their own) and the record's own bookkeeping.
_NOT_SETTINGS = frozenset({"games", "selection", "concurrency", "prompts", "cache_dir", "agents", "options_by_agent",
                           "gold_cannot_win", "repeat", "version"})
_HEADER_FIELDS = frozenset(f.name for f in fields(JournalHeader))


@dataclass(frozen=True)
class RecordedSettings:
    """What a run was played with, by name, as far as its report (and one of its journals) says; None: not
    recorded. The names are the plan's fields (and the journal's `prompt_hash`), read from the fields
    themselves: a field added to the plan is compared with no new code."""

    values: Mapping[str, Any]

    def get(self, name: str) -> Any:
        return self.values.get(name)

    def known(self) -> list[str]:
        return [name for name, value in self.values.items() if value is not None]

    def differences(self, other: "RecordedSettings") -> list[tuple[str, Any, Any]]:
        """(name, this value, the other's) for every setting known in both that differs, in field order.

        A setting one side does not record (a journal without `prompt_hash`) is not a difference."""
        return [(name, a, other.get(name)) for name, a in self.values.items()
                if a is not None and other.get(name) is not None and a != other.get(name)]


def _setting(value: Any) -> Any:
    """A recorded value as compared and shown: a record as its fields, a mapping with sorted keys, '' as None."""
    if is_dataclass(value) and not isinstance(value, type):
        value = asdict(value)
    if isinstance(value, Mapping):
        return {k: value[k] for k in sorted(value)}
    return None if value == "" else value


@dataclass(frozen=True)
class LoadedReport:
    """A report, the file it came from (`file`, None when built in memory) and the name it is shown by.

    `recorded`: the plan's fields the file holds. A report written before the plan had a setting
    (`agent`, `preset`) gets the record's default from the loader, but a comparison takes the
    setting from its journal instead, and does not count it as a difference when that has none.
    """

    report: EvalReport
    label: str = ""
    file: Path | None = None
    journal_header: JournalHeader | None = None
    recorded: frozenset[str] = frozenset(f.name for f in fields(EvalPlan))

    @classmethod
    def from_json(cls, data: dict[str, Any], label: str = "", file: Path | None = None) -> "LoadedReport":
        """A report's JSON through the report's loader (`file`: where it was read, to find moved journals)."""
        try:
            report = EvalReport.checked(data, file or label or "in memory")
        except ValueError as exc:
            raise CompareError(str(exc)) from None
        return cls(report, label, file, recorded=frozenset(data["plan"]))

    @property
    def episodes(self) -> list[EpisodeResult]:
        return self.report.episodes

    @property
    def planned(self) -> list[str]:
        """The episodes the report set out to run, in order."""
        return [g.id for g in self.report.plan.games if g.id]

    @property
    def repeats(self) -> int:
        """How many times the plan plays each episode (1 without --repeat)."""
        return max(1, self.report.plan.repeat)

    def results(self) -> dict[str, EpisodeResult]:
        """Finished episodes by id (the last result of an id wins)."""
        return {e.game: e for e in self.episodes if e.game}

    def plays(self) -> dict[str, list[EpisodeResult]]:
        """Every finished play of each episode (`eval --repeat` plays each several times), in report order."""
        found: dict[str, list[EpisodeResult]] = {}
        for episode in self.episodes:
            if episode.game:
                found.setdefault(episode.game, []).append(episode)
        return found

    def settings(self) -> RecordedSettings:
        """The plan's settings field by field. One the file does not hold (a report written before the plan
        had it) is the journal's when the header records it too (None without a journal), else the loader's
        default (what a plan that leaves out a default means)."""
        plan, journal = self.report.plan, self.journal_header
        values: dict[str, Any] = {"prompt_hash": journal.prompt_hash if journal else None}
        for spec in fields(plan):
            if spec.name in _NOT_SETTINGS:
                continue
            value = _setting(getattr(plan, spec.name))  # dynamic: every field of the plan
            if (value is None or spec.name not in self.recorded) and spec.name in _HEADER_FIELDS:
                value = _setting(getattr(journal, spec.name)) if journal else None  # dynamic: the same field
            values[spec.name] = value
        return RecordedSettings(values)

    def journal_path(self, episode: EpisodeResult) -> str:
        """Where an episode's journal is: as recorded, else under the report's folder (a moved eval)."""
        recorded = episode.journal
        if recorded and Path(recorded).exists():
            return recorded
        if self.file is not None:
            moved = self.file.parent / JOURNALS_DIR / (Path(recorded).name or episode.game)
            if moved.exists():
                return str(moved)
        return recorded

    def with_journal_header(self) -> "LoadedReport":
        """This report with the session header of the first of its journals that is readable."""
        for episode in self.results().values():
            header = _header_at(self.journal_path(episode))
            if header is not None:
                return replace(self, journal_header=header)
        return replace(self, journal_header=None)

    def by_agent(self) -> list["LoadedReport"]:
        """A comparison report (`eval --agent a,b,...`) as one report per agent, in its order, so
        `compare DIR` sets each agent against the first; any other report as itself."""
        plan = self.report.plan
        if not plan.multi:
            return [self]
        return [replace(self, label=f"{self.label} [{name}]", recorded=self.recorded | {"agent"}, report=replace(
            self.report, episodes=[e for e in self.episodes if e.agent == name],
            plan=replace(plan, agent=name, agents=[], agent_options=dict(plan.options_by_agent.get(name, {})))
        )).with_journal_header() for name in plan.agents]


def _header_at(folder: str) -> JournalHeader | None:
    """The session header of a journal of the run, through its loader (None: no readable one)."""
    if not folder:
        return None
    try:
        return load_header(Path(folder) / "journal.jsonl")
    except HeaderError:  # a journal missing or not of this version says nothing about the run
        return None


def load_report(path: str | Path) -> LoadedReport:
    """Read a report file or an eval folder through the report's loader; CompareError with a one-line reason."""
    given = Path(path)
    file = given / REPORT_FILE if given.is_dir() else given
    try:
        data = read_json(file)
    except ValueError as exc:
        raise CompareError(str(exc)) from None
    return LoadedReport.from_json(data, str(file), file).with_journal_header()
