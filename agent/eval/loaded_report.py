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
from agent.eval.results import EpisodeResult, plan_upgraded
from agent.run.spec import AgentChoice, RunSpec, leaves
from agent.sessions.header import HeaderError, JournalHeader, load_header

JOURNALS_DIR = "journals"


class CompareError(ValueError):
    """The reports cannot be compared; the message is one line that says why."""


@dataclass(frozen=True)
class RecordedSettings:
    """What a run was played with, by name, as far as its report (and one of its journals) says. The names
    are the plan's settings, its run record's leaves by their dotted names (`model.llm`,
    `runner.node_timeout`), read from the fields themselves: a field added to the record or the plan is
    compared with no new code. `unknown`: the settings neither the report nor a journal records."""

    values: Mapping[str, Any]
    unknown: frozenset[str] = frozenset()

    def get(self, name: str) -> Any:
        return self.values.get(name)

    def known(self) -> list[str]:
        return [name for name, value in self.values.items() if value is not None and name not in self.unknown]

    def differences(self, other: "RecordedSettings") -> list[tuple[str, Any, Any]]:
        """(name, this value, the other's) for every setting known on both sides that differs, in field order.

        A setting one side does not record (a report without its journal, written before the plan had
        it) is not a difference."""
        return [(name, a, other.get(name)) for name, a in self.values.items()
                if name not in self.unknown and name not in other.unknown and a != other.get(name)]


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

    `recorded`: the settings the file holds (dotted names, as `settings` gives them). A report written before
    the plan had a setting (`agent.name`, `preset`) gets the record's default from the loader, but a
    comparison takes the setting from its journal instead, and does not count it as a difference when that
    has none.
    """

    report: EvalReport
    label: str = ""
    file: Path | None = None
    journal_header: JournalHeader | None = None
    recorded: frozenset[str] | None = None  # None: every setting (a report built in memory)

    @classmethod
    def from_json(cls, data: dict[str, Any], label: str = "", file: Path | None = None) -> "LoadedReport":
        """A report's JSON through the report's loader (`file`: where it was read, to find moved journals)."""
        try:
            report = EvalReport.checked(data, file or label or "in memory")
        except ValueError as exc:
            raise CompareError(str(exc)) from None
        return cls(report, label, file, recorded=frozenset(_paths(plan_upgraded(data["plan"]))))

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
        """The plan's settings, leaf by leaf (`agent.run.spec.leaves`). One of the run's record that the file
        does not hold (a report written before the plan had it), or holds as None (a plan records no prompt
        hash), is the journal's; without a journal it is unknown."""
        plan, journal = self.report.plan, self.journal_header
        theirs = dict(leaves(journal.run, settings_only=True)) if journal else {}
        values: dict[str, Any] = {}
        unknown: set[str] = set()
        for path, value in leaves(plan, settings_only=True):
            name = path.removeprefix("run.")
            value = _setting(value)
            unrecorded = self.recorded is not None and path not in self.recorded
            if (value is None or unrecorded) and name in _RUN_SETTINGS:  # a setting a journal records too
                value = _setting(theirs.get(name))
                if journal is None:
                    unknown.add(name)
            values[name] = value
        return RecordedSettings(values, frozenset(unknown))

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
        return [replace(self, label=f"{self.label} [{name}]", recorded=(self.recorded or frozenset()) | {
            "run.agent.name", "run.agent.options"}, report=replace(
            self.report, episodes=[e for e in self.episodes if e.agent == name],
            plan=replace(plan, agents=[], run=replace(plan.run, agent=AgentChoice(name, dict(
                plan.options_by_agent.get(name, {})))))
        )).with_journal_header() for name in plan.agents]


_RUN_SETTINGS = frozenset(name for name, _ in leaves(RunSpec(), settings_only=True))


def _paths(data: Mapping[str, Any], prefix: str = "") -> list[str]:
    """The dotted names of every value an object on disk holds, its objects opened (`run.model.llm`)."""
    found = []
    for key, value in data.items():
        found.append(prefix + key)
        if isinstance(value, dict):
            found += _paths(value, f"{prefix}{key}.")
    return found


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
