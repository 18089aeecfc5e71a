"""Compare evaluation reports: what changed between a baseline run and the others.

A researcher fixes a prompt or a model and runs the evaluation again; this says
whether the two runs are comparable (same episodes, same settings), how each
task type moved (success, steps, LLM calls, tokens, cost, time, score), and
which episodes flipped between won and lost, with their journals to open.

Pure functions over report dicts (`recode.eval.v1`, read as JSON), plus
`load_report`, the one place that touches files. Fields are read tolerantly:
an episode is named by `episode`, `id` or `game`; a plan lists its episodes
under `games` or `episodes`; a missing number counts as absent, not zero.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from agent.eval.intervals import episode_interval
from agent.eval.paired import McNemar, SignFlip, discordant, mcnemar_exact, sign_flip_test
from agent.eval.prompt_files import PromptFileChange, prompt_file_changes
from agent.eval.repeats import identical_plays, mean_success
from agent.eval.report_fields import report_problem
from agent.sessions.header import HeaderError, JournalHeader, load_header

KNOWN_VERSIONS = ("recode.eval.v1", "recode.eval.v2")
REPORT_FILE = "report.json"
JOURNALS_DIR = "journals"

# (label, how one episode gives the value); the mean over episodes is compared
METRICS: tuple[tuple[str, str], ...] = (
    ("success", "success"),
    ("steps", "steps"),
    ("LLM calls", "llm_calls"),
    ("tokens", "tokens"),
    ("cost", "cost"),
    ("time", "seconds"),
    ("score", "score"),
)
SETTINGS = ("env", "llm", "prompt_hash", "max_steps", "limits", "preset", "agent")


class CompareError(ValueError):
    """The reports cannot be compared; the message is one line that says why."""


# ------------------------------------------------------------------ reading
def episode_id(record: dict[str, Any]) -> str:
    """An episode's name in a report: `episode` (newer plans), `id` (plan games) or `game` (results)."""
    for key in ("episode", "id", "game"):
        value = record.get(key)
        if isinstance(value, dict):  # an `episode` that is itself a record
            value = value.get("id") or value.get("episode")
        if value:
            return str(value)
    return ""


def plan_episode_ids(report: dict[str, Any]) -> list[str]:
    """The episodes a report set out to run, in order."""
    plan = report.get("plan") or {}
    listed = plan.get("episodes") or plan.get("games") or []
    return [i for i in (episode_id(g) if isinstance(g, dict) else str(g) for g in listed) if i]


def results_by_episode(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Finished episodes by id (the last result of an id wins)."""
    found: dict[str, dict[str, Any]] = {}
    for record in report.get("episodes") or []:
        if isinstance(record, dict) and episode_id(record):
            found[episode_id(record)] = record
    return found


def plays_by_episode(report: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Every finished play of each episode (`eval --repeat` plays each several times), in report order."""
    found: dict[str, list[dict[str, Any]]] = {}
    for record in report.get("episodes") or []:
        if isinstance(record, dict) and episode_id(record):
            found.setdefault(episode_id(record), []).append(record)
    return found


def repeats_of(report: dict[str, Any]) -> int:
    """How many times the report's plan plays each episode (1 without --repeat)."""
    value = (report.get("plan") or {}).get("repeat", 1)
    return value if isinstance(value, int) and value > 1 else 1


def _aliases(record: dict[str, Any]) -> list[str]:
    """Every name a result goes by (`episode`, `id`, `game`), so an older report matches a newer one."""
    names = [episode_id({key: record.get(key)}) for key in ("episode", "id", "game")]
    return [n for n in dict.fromkeys(names) if n]


def _matched(a: dict[str, dict[str, Any]], b: dict[str, dict[str, Any]]) -> dict[str, str]:
    """b's episode id -> a's, where b names an episode of a by another of its names."""
    renamed = {}
    for key, record in b.items():
        if key not in a:
            other = next((n for n in _aliases(record) if n in a), None)
            if other is not None:
                renamed[key] = other
    return renamed


def load_report(path: str | Path) -> dict[str, Any]:
    """Read a report file or an eval folder; raises CompareError with a one-line reason.

    Adds `_path` (the report file) and, when a journal of the run is readable,
    `_journal_header` (its session header, which records the prompt set's hash).
    """
    given = Path(path)
    file = given / REPORT_FILE if given.is_dir() else given
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CompareError(f"no report at {given}; give an eval folder or its report.json") from None
    except OSError as exc:
        raise CompareError(f"cannot read {file}: {exc.strerror}") from None
    except ValueError:
        raise CompareError(f"{file} is not JSON, so not an evaluation report") from None
    if not isinstance(data, dict) or not str(data.get("version", "")).startswith("recode.eval."):
        raise CompareError(f"{file} is not a recode-tui evaluation report")
    if data["version"] not in KNOWN_VERSIONS:
        raise CompareError(f"{file} is report version {data['version']!r}; this recode-tui compares "
                           f"{', '.join(KNOWN_VERSIONS)}")
    problem = report_problem(data, strict=False)
    if problem:
        raise CompareError(f"report {file}: {problem}")
    data["_path"] = str(file)
    for record in results_by_episode(data).values():
        header = _first_line(journal_path(data, record))
        if header is not None:
            data["_journal_header"] = header
            break
    return data


def split_by_agent(report: dict[str, Any]) -> list[dict[str, Any]]:
    """A comparison report (`eval --agent a,b,...`) as one report per agent, in its order, so
    `compare DIR` sets each agent against the first; any other report as itself."""
    agents = (report.get("plan") or {}).get("agents") or []
    if len(agents) < 2:
        return [report]
    parts = []
    for name in agents:
        part = {k: v for k, v in report.items() if k not in ("by_agent", "summary", "failures", "_journal_header")}
        part["plan"] = {**report["plan"], "agent": name, "agents": [],
                        "agent_options": (report["plan"].get("options_by_agent") or {}).get(name, {})}
        part["episodes"] = [e for e in report.get("episodes") or [] if e.get("agent") == name]
        part["_path"] = f"{report.get('_path', '')} [{name}]"
        for record in part["episodes"]:
            header = _first_line(journal_path(report, record))
            if header is not None:
                part["_journal_header"] = header
                break
        parts.append(part)
    return parts


def _first_line(folder: str) -> JournalHeader | None:
    """The session header of a journal of the run, through its loader (None: no readable one)."""
    if not folder:
        return None
    try:
        return load_header(Path(folder) / "journal.jsonl")
    except HeaderError:  # a journal missing or not of this version says nothing about the run
        return None


def journal_path(report: dict[str, Any], record: dict[str, Any]) -> str:
    """Where an episode's journal is: as recorded, else under the report's folder (a moved eval)."""
    recorded = str(record.get("journal") or "")
    if recorded and Path(recorded).exists():
        return recorded
    if report.get("_path"):
        moved = Path(report["_path"]).parent / JOURNALS_DIR / (Path(recorded).name or episode_id(record))
        if moved.exists():
            return str(moved)
    return recorded


# ------------------------------------------------------------------ settings
def settings_of(report: dict[str, Any]) -> dict[str, Any]:
    """What a run was played with, as far as the report (and one of its journals) says."""
    plan = report.get("plan") or {}
    journal: JournalHeader | None = report.get("_journal_header")
    limits = plan.get("limits")
    if isinstance(limits, dict):
        limits = {k: limits[k] for k in sorted(limits)}
    return {
        "env": plan.get("env") or (journal.env if journal else None),
        "llm": plan.get("llm") or plan.get("model") or (journal.llm if journal else None),
        "prompt_hash": plan.get("prompt_hash") or (journal.prompt_hash if journal else None),
        "max_steps": plan.get("max_steps", journal.max_steps if journal else None),
        "limits": limits,
        "preset": plan.get("preset") or (journal.preset or None if journal else None),
        "agent": plan.get("agent") or (journal.agent if journal else None),
    }


def setting_differences(base: dict[str, Any], other: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """(name, baseline value, other value) for every setting known in both that differs.

    A setting one report does not record (an older report has no `agent`) is not a difference.
    """
    out = []
    for name in SETTINGS:
        a, b = base.get(name), other.get(name)
        if a is not None and b is not None and a != b:
            out.append((name, a, b))
    return out


# ------------------------------------------------------------------ numbers
def _value(record: dict[str, Any], key: str) -> float | None:
    if key == "success":
        value = record.get("success")
        return None if value is None else float(bool(value))
    if key == "tokens" and "tokens" not in record:
        parts = [record.get("input_tokens"), record.get("output_tokens")]
        if all(p is None for p in parts):
            return None
        return float(sum(p or 0 for p in parts))
    value = record.get(key)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def mean_of(records: Iterable[dict[str, Any]], key: str) -> float | None:
    """The mean over the records that have the value; None when none has it."""
    values = [v for v in (_value(r, key) for r in records) if v is not None]
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
    identical: tuple[str, str] = ("", "")  # why each side's repeats cannot differ ('' when they can)
    prompt_files: list[PromptFileChange] = field(default_factory=list)  # prompt files whose text differs

    @property
    def identical_plays(self) -> bool:
        """Both sides repeated with an LLM that cannot answer differently: their plays are copies."""
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


def _task_type(*records: dict[str, Any]) -> str:
    return next((str(r["task_type"]) for r in records if r.get("task_type")), "?")


def compare_pair(base: dict[str, Any], other: dict[str, Any]) -> Comparison:
    """Compare two reports over the episodes both finished; CompareError when they share none.

    With repeats (`eval --repeat`), an episode's numbers are the mean over its plays, each side
    gets a 95 % interval for its success rate, and an episode flipped when it won most of its plays
    on one side and not on the other.
    """
    a, b = results_by_episode(base), results_by_episode(other)
    plays_a, plays_b = plays_by_episode(base), plays_by_episode(other)
    planned_a = plan_episode_ids(base) or list(a)
    planned_b = plan_episode_ids(other) or list(b)
    renamed = _matched(a, b)
    if renamed:  # the two reports name episodes differently (an older report): use the baseline's names
        b = {renamed.get(k, k): v for k, v in b.items()}
        plays_b = {renamed.get(k, k): v for k, v in plays_b.items()}
        planned_b = [renamed.get(k, k) for k in planned_b]
    order = {e: i for i, e in enumerate(dict.fromkeys([*planned_a, *a]))}  # the plan's order, not finishing order
    common = sorted((e for e in a if e in b), key=order.__getitem__)
    label_a, label_b = base.get("_path", "the baseline"), other.get("_path", "the other report")
    if not common:
        if not a or not b:
            empty = label_a if not a else label_b
            raise CompareError(f"{empty} has no finished episodes; nothing to compare")
        raise CompareError(f"{label_a} and {label_b} have no episode in common "
                           f"(e.g. {next(iter(a))} vs {next(iter(b))}); compare evaluations of the same games")
    metrics = [m for m, key in METRICS
               if mean_of(a.values(), key) is not None or mean_of(b.values(), key) is not None]
    keys = dict(METRICS)
    groups: dict[str, list[str]] = {}
    for episode in common:
        groups.setdefault(_task_type(a[episode], b[episode]), []).append(episode)
    repeated = repeats_of(base) > 1 or repeats_of(other) > 1

    def interval(plays: dict[str, list[dict[str, Any]]], episodes: list[str]) -> tuple[float, float] | None:
        if not repeated:
            return None
        return episode_interval([mean_success(plays[e], lambda p: bool(p.get("success"))) for e in episodes])

    def won(plays: list[dict[str, Any]]) -> bool:
        return sum(bool(p.get("success")) for p in plays) * 2 > len(plays)

    def score_test(episodes: list[str]) -> SignFlip | None:
        pairs = [(mean_of(plays_a[e], "score"), mean_of(plays_b[e], "score")) for e in episodes]
        differences = [y - x for x, y in pairs if x is not None and y is not None]
        return sign_flip_test(differences) if differences else None

    def row(label: str, episodes: list[str]) -> Row:
        b, c = discordant([won(plays_a[e]) for e in episodes], [won(plays_b[e]) for e in episodes])
        return Row(label, len(episodes),
                   {m: mean_of((p for e in episodes for p in plays_a[e]), keys[m]) for m in metrics},
                   {m: mean_of((p for e in episodes for p in plays_b[e]), keys[m]) for m in metrics},
                   interval(plays_a, episodes), interval(plays_b, episodes),
                   mcnemar_exact(b, c), score_test(episodes) if "score" in metrics else None)

    rows = [row(t, groups[t]) for t in groups]
    rows.append(row("overall", common))
    flips = []
    for episode in common:
        won_a, won_b = won(plays_a[episode]), won(plays_b[episode])
        if won_a != won_b:
            loser = b[episode] if won_a else a[episode]
            flips.append(Flip(episode, _task_type(a[episode], b[episode]), won_a, journal_path(base, a[episode]),
                              journal_path(other, b[episode]), str(loser.get("reason") or "")))
    return Comparison(
        base_path=label_a,
        other_path=label_b,
        common=common,
        only_base=[e for e in dict.fromkeys([*planned_a, *a]) if e not in b],
        only_other=[e for e in dict.fromkeys([*planned_b, *b]) if e not in a],
        rows=rows,
        flips=flips,
        differences=setting_differences(settings_of(base), settings_of(other)),
        metrics=metrics,
        unfinished=(set(planned_a) - set(a)) | (set(planned_b) - set(b)),
        agents=(settings_of(base).get("agent"), settings_of(other).get("agent")),
        repeats=(repeats_of(base), repeats_of(other)),
        identical=(_identical(base), _identical(other)),
        prompt_files=prompt_file_changes(base, other) if not _two_agents(base, other) else [],
    )


def _two_agents(base: dict[str, Any], other: dict[str, Any]) -> bool:
    """Two different agents: their prompt sets differ by design, file by file."""
    a, b = settings_of(base).get("agent"), settings_of(other).get("agent")
    return a is not None and b is not None and a != b


def _identical(report: dict[str, Any]) -> str:
    """Why a report's repeats cannot differ ('' when they can, or when it has none)."""
    if repeats_of(report) <= 1:
        return ""
    temperatures = [e.get("temperature") for e in report.get("episodes") or [] if isinstance(e, dict)]
    return identical_plays(str(settings_of(report).get("llm") or ""), temperatures)


RELATIVE_METRICS = ("cost", "tokens", "LLM calls", "steps", "time")


def relative_change(row: Row, metric: str) -> float | None:
    """The other run's value relative to the baseline's, in percent (the paper's "-78.9 % vs ReAct");
    None when either is missing or the baseline's is zero."""
    a, b = row.base.get(metric), row.other.get(metric)
    if a is None or b is None or a == 0:
        return None
    return (b - a) / a * 100.0


def compare_reports(reports: Sequence[dict[str, Any]]) -> list[Comparison]:
    """The first report is the baseline; one comparison per other report."""
    if len(reports) < 2:
        raise CompareError("compare needs two reports or more (the first is the baseline)")
    return [compare_pair(reports[0], other) for other in reports[1:]]
