"""Two evaluations diffed episode by episode: every common episode, the flipped ones first.

The reports say which episodes both finished and where their journals are
(`agent.eval.loaded_report`); each pair of journals is diffed as two runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent.eval.compare import compare_pair
from agent.eval.loaded_report import CompareError, load_report
from agent.eval.report import REPORT_FILE
from agent.sessions.journal_read import JournalError, read_journal
from agent.eval.rundiff.diff import IncomparableRuns, RunDiff, diff_runs


@dataclass
class EpisodeDiff:
    episode: str
    task_type: str
    won_a: bool
    won_b: bool
    diff: RunDiff | None
    refused: str = ""  # why this episode could not be diffed (no journal, another game)

    @property
    def flipped(self) -> bool:
        return self.won_a != self.won_b


@dataclass
class EvalDiff:
    a: str  # the report files
    b: str
    episodes: list[EpisodeDiff]  # flipped first, then the rest, each in the plan's order


def is_eval_folder(path: str | Path) -> bool:
    """An evaluation's folder or report (a report.json), as opposed to one session."""
    given = Path(path)
    return (given / REPORT_FILE).is_file() or (given.is_file() and given.name == REPORT_FILE)


def diff_evals(path_a: str | Path, path_b: str | Path) -> EvalDiff:
    """Diff every episode both evaluations finished; IncomparableRuns (one line) when they share none."""
    try:
        base, other = load_report(path_a), load_report(path_b)
        for report in (base, other):
            agents = report.report.plan.agents
            if report.report.plan.multi:  # its episodes are named once per agent: pairing them by name would mix agents
                raise IncomparableRuns(
                    f"{report.label} is an evaluation of {len(agents)} agents ({', '.join(map(str, agents))}); "
                    "diff one episode of two agents instead: recode-tui diff EVAL/journals/AGENT_A/EPISODE EVAL/journals/AGENT_B/EPISODE")
        comparison = compare_pair(base, other)
    except CompareError as exc:
        raise IncomparableRuns(str(exc)) from None
    results_a, results_b = base.results(), other.results()
    found = []
    for episode in comparison.common:
        ra, rb = results_a[episode], results_b[episode]
        ja, jb = base.journal_path(ra), other.journal_path(rb)
        task_type = str(ra.task_type or rb.task_type or "?")
        item = EpisodeDiff(episode, task_type, bool(ra.success), bool(rb.success), None)
        if not ja or not jb:
            item.refused = "no journal recorded for it in " + ("the first evaluation" if not ja else "the second")
        else:
            try:
                item.diff = diff_runs(read_journal(ja, lenient=True), read_journal(jb, lenient=True))
            except (JournalError, IncomparableRuns) as exc:
                item.refused = str(exc)
        found.append(item)
    found.sort(key=lambda e: not e.flipped)  # stable: the plan's order within each group
    return EvalDiff(base.label, other.label, found)
