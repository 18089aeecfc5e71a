"""Compare evaluation reports: what changed between a baseline run and the others.

A researcher fixes a prompt or a model and runs the evaluation again; this says
whether the two runs are comparable (same episodes, same settings), how each
task type moved (success, steps, LLM calls, tokens, cost, time, score), and
which episodes flipped between won and lost, with their journals to open.

Pure functions over reports read by `agent.eval.loaded_report` (the typed record
from the report's one loader, so an older report's defaults are decided there).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from agent.eval.intervals import episode_interval
from agent.eval.loaded_report import CompareError, LoadedReport
from agent.eval.paired import McNemar, SignFlip, discordant, mcnemar_exact, sign_flip_test
from agent.eval.prompt_files import PromptFileChange, header_changes
from agent.eval.repeats import identical_plays, mean_success, offline_llm
from agent.eval.results import EpisodeResult

Value = Callable[[EpisodeResult], float | None]


def _score(episode: EpisodeResult) -> float | None:
    return None if episode.score is None else float(episode.score)


# (label, how one episode gives the value); the mean over episodes is compared
METRICS: tuple[tuple[str, Value], ...] = (
    ("success", lambda e: float(bool(e.success))),
    ("steps", lambda e: float(e.steps)),
    ("LLM calls", lambda e: float(e.llm_calls)),
    ("tokens", lambda e: float(e.tokens)),
    ("cost", lambda e: float(e.cost)),
    ("time", lambda e: float(e.seconds)),
    ("score", _score),
)


# ------------------------------------------------------------------ numbers
def mean_of(records: Iterable[EpisodeResult], value: Value) -> float | None:
    """The mean over the records that have the value; None when none has it."""
    values = [v for v in (value(r) for r in records) if v is not None]
    return sum(values) / len(values) if values else None


@dataclass
class Row:
    """One task type (or `overall`): episodes and each metric's mean in the baseline and the other run."""

    task_type: str
    episodes: int
    base: dict[str, float | None]
    other: dict[str, float | None]
    # the success rate's 95 % interval on each side, over episodes, when the runs were repeated (eval --repeat)
    base_interval: tuple[float, float] | None = None
    other_interval: tuple[float, float] | None = None
    success_test: McNemar | None = None  # paired: the episodes' won/lost on each side
    score_test: SignFlip | None = None  # paired: the episodes' mean score on each side, where both have one
    # the episodes `time` is the mean over, when cache replays (which take no model time) left some out
    timed: int | None = None

    def delta(self, metric: str) -> float | None:
        a, b = self.base.get(metric), self.other.get(metric)
        return None if a is None or b is None else b - a

    def test(self, metric: str) -> McNemar | SignFlip | None:
        """The paired test behind a metric's change (success and score have one)."""
        return self.success_test if metric == "success" else self.score_test if metric == "score" else None


@dataclass
class Flip:
    episode: str
    task_type: str
    won_before: bool
    base_journal: str
    other_journal: str
    reason: str  # why the losing side lost


@dataclass
class Comparison:
    """The baseline against one other report."""

    base_path: str
    other_path: str
    common: list[str]
    only_base: list[str]
    only_other: list[str]
    rows: list[Row]
    flips: list[Flip]
    differences: list[tuple[str, Any, Any]]
    metrics: list[str] = field(default_factory=list)  # the metrics either report has
    unfinished: set[str] = field(default_factory=set)  # planned by a report that has no result for it (yet)
    agents: tuple[str | None, str | None] = (None, None)  # the agent of each report, where it says
    repeats: tuple[int, int] = (1, 1)  # plays of each episode on each side
    estimated: tuple[bool, bool] = (False, False)  # each side's tokens are a script's estimate, not a model's count
    identical: tuple[str, str] = ("", "")  # each side: its repeats recorded the same, and why ('' when they differ)
    prompt_files: list[PromptFileChange] = field(default_factory=list)  # prompt files whose text differs
    timed: int | None = None  # of `common`, the episodes `time` compares (no cache replay on either side), if fewer

    @property
    def time_unknown(self) -> bool:
        """Every common episode had cache replays on a side: no like-with-like time to compare."""
        return self.timed == 0

    @property
    def identical_plays(self) -> bool:
        """Both sides' repeated plays recorded the same, episode by episode: their plays are copies."""
        return max(self.repeats) > 1 and all(self.identical)

    @property
    def cross_agent(self) -> bool:
        """Two agents (ReCode against ReAct, ...) on the same episodes: comparable, their prompts differ by design."""
        a, b = self.agents
        return a is not None and b is not None and a != b

    @property
    def same_episodes(self) -> bool:
        return not self.only_base and not self.only_other

    @property
    def won_to_lost(self) -> list[Flip]:
        return [f for f in self.flips if f.won_before]

    @property
    def lost_to_won(self) -> list[Flip]:
        return [f for f in self.flips if not f.won_before]


def _task_type(*records: EpisodeResult) -> str:
    return next((str(r.task_type) for r in records if r.task_type), "?")


def compare_pair(base: LoadedReport, other: LoadedReport) -> Comparison:
    """Compare two reports over the episodes both finished; CompareError when they share none.

    With repeats (`eval --repeat`), an episode's numbers are the mean over its plays, each side
    gets a 95 % interval for its success rate, and an episode flipped when it won most of its plays
    on one side and not on the other.
    """
    a, b = base.results(), other.results()
    plays_a, plays_b = base.plays(), other.plays()
    planned_a = base.planned or list(a)
    planned_b = other.planned or list(b)
    order = {e: i for i, e in enumerate(dict.fromkeys([*planned_a, *a]))}  # the plan's order, not finishing order
    common = sorted((e for e in a if e in b), key=order.__getitem__)
    label_a, label_b = base.label or "the baseline", other.label or "the other report"
    if not common:
        if not a or not b:
            empty = label_a if not a else label_b
            raise CompareError(f"{empty} has no finished episodes; nothing to compare")
        raise CompareError(f"{label_a} and {label_b} have no episode in common "
                           f"(e.g. {next(iter(a))} vs {next(iter(b))}); compare evaluations of the same games")
    metrics = [m for m, value in METRICS
               if mean_of(a.values(), value) is not None or mean_of(b.values(), value) is not None]
    values = dict(METRICS)
    groups: dict[str, list[str]] = {}
    for episode in common:
        groups.setdefault(_task_type(a[episode], b[episode]), []).append(episode)
    repeated = base.repeats > 1 or other.repeats > 1

    def interval(plays: dict[str, list[EpisodeResult]], episodes: list[str]) -> tuple[float, float] | None:
        if not repeated:
            return None
        return episode_interval([mean_success(plays[e], lambda p: bool(p.success)) for e in episodes])

    def won(plays: list[EpisodeResult]) -> bool:
        return sum(bool(p.success) for p in plays) * 2 > len(plays)

    def score_test(episodes: list[str]) -> SignFlip | None:
        pairs = [(mean_of(plays_a[e], _score), mean_of(plays_b[e], _score)) for e in episodes]
        differences = [y - x for x, y in pairs if x is not None and y is not None]
        return sign_flip_test(differences) if differences else None

    # A cache replay takes no model time: time compares only episodes whose every call on both sides went to the LLM.
    replayed = {e for e in common if any(p.cached_calls for p in (*plays_a[e], *plays_b[e]))}

    def means(plays: dict[str, list[EpisodeResult]], episodes: list[str]) -> dict[str, float | None]:
        timed = [e for e in episodes if e not in replayed]
        return {m: mean_of((p for e in (timed if m == "time" else episodes) for p in plays[e]), values[m])
                for m in metrics}

    def row(label: str, episodes: list[str]) -> Row:
        b, c = discordant([won(plays_a[e]) for e in episodes], [won(plays_b[e]) for e in episodes])
        timed = sum(e not in replayed for e in episodes)
        return Row(label, len(episodes), means(plays_a, episodes), means(plays_b, episodes),
                   interval(plays_a, episodes), interval(plays_b, episodes),
                   mcnemar_exact(b, c), score_test(episodes) if "score" in metrics else None,
                   timed if replayed.intersection(episodes) else None)

    rows = [row(t, groups[t]) for t in groups]
    rows.append(row("overall", common))
    flips = []
    for episode in common:
        won_a, won_b = won(plays_a[episode]), won(plays_b[episode])
        if won_a != won_b:
            loser = b[episode] if won_a else a[episode]
            flips.append(Flip(episode, _task_type(a[episode], b[episode]), won_a, base.journal_path(a[episode]),
                              other.journal_path(b[episode]), loser.reason))
    settings_a, settings_b = base.settings(), other.settings()
    two_agents = settings_a.get("agent.name") is not None and settings_b.get("agent.name") is not None and settings_a.get("agent.name") != settings_b.get("agent.name")
    return Comparison(
        base_path=label_a,
        other_path=label_b,
        common=common,
        only_base=[e for e in dict.fromkeys([*planned_a, *a]) if e not in b],
        only_other=[e for e in dict.fromkeys([*planned_b, *b]) if e not in a],
        rows=rows,
        flips=flips,
        differences=settings_a.differences(settings_b),
        metrics=metrics,
        unfinished=(set(planned_a) - set(a)) | (set(planned_b) - set(b)),
        agents=(settings_a.get("agent.name"), settings_b.get("agent.name")),
        repeats=(base.repeats, other.repeats),
        identical=(_identical(base), _identical(other)),
        estimated=(offline_llm(str(settings_a.get("model.llm") or "")), offline_llm(str(settings_b.get("model.llm") or ""))),
        # two agents' prompt sets differ by design, file by file
        prompt_files=[] if two_agents else header_changes(base.journal_header, other.journal_header),
        timed=len(common) - len(replayed) if replayed else None,
    )


def _identical(report: LoadedReport) -> str:
    """That a report's repeats recorded the same, and why ('' when they differ, or when it has none)."""
    if report.repeats <= 1:
        return ""
    return identical_plays(str(report.settings().get("model.llm") or ""), report.episodes)


RELATIVE_METRICS = ("cost", "tokens", "LLM calls", "steps", "time")


def relative_change(row: Row, metric: str) -> float | None:
    """The other run's value relative to the baseline's, in percent (the paper's "-78.9 % vs ReAct");
    None when either is missing or the baseline's is zero."""
    a, b = row.base.get(metric), row.other.get(metric)
    if a is None or b is None or a == 0:
        return None
    return (b - a) / a * 100.0


def compare_reports(reports: Sequence[LoadedReport]) -> list[Comparison]:
    """The first report is the baseline; one comparison per other report."""
    if len(reports) < 2:
        raise CompareError("compare needs two reports or more (the first is the baseline)")
    return [compare_pair(reports[0], other) for other in reports[1:]]
