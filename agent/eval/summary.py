"""An evaluation's numbers: success rates, means and totals over episodes, per task type, topic, agent and LLM role.

Apart from `agent.eval.batch` (which runs the episodes) so the aggregation
is pure: episode results in, the report's `summary` and `by_agent` out.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from agent.eval.intervals import episode_interval
from agent.eval.repeats import group_plays, mean_success
from agent.eval.results import EpisodeResult
from envs import registry
from envs.provider import Capability


def _stats(episodes: Sequence[EpisodeResult], repeats: int = 1) -> dict[str, Any]:
    """A row's numbers; `episodes` counts distinct episodes, and with repeats `plays` counts every play
    (the means are over plays, the success interval over episodes)."""
    n = len(episodes)
    wins = sum(e.success for e in episodes)
    calls = sum(e.llm_calls for e in episodes)

    def mean(values: list[float]) -> float:
        return sum(values) / n if n else 0.0

    scores = [e.score for e in episodes if e.score is not None]
    return {
        "episodes": len({e.game for e in episodes}) if repeats > 1 else n,
        **({"plays": n} if repeats > 1 else {}),
        "mean_score": sum(scores) / len(scores) if scores else None,  # only for an env with a score
        "successes": wins,
        "success_rate": wins / n if n else 0.0,
        "errors": sum(bool(e.error) for e in episodes),
        "mean_steps": mean([e.steps for e in episodes]),
        "mean_llm_calls": mean([e.llm_calls for e in episodes]),
        "mean_input_tokens": mean([e.input_tokens for e in episodes]),
        "mean_output_tokens": mean([e.output_tokens for e in episodes]),
        "mean_tokens": mean([e.tokens for e in episodes]),
        "mean_cost": mean([e.cost for e in episodes]),
        "total_cost": sum(e.cost for e in episodes),
        "total_tokens": sum(e.tokens for e in episodes),
        # per call, not per episode: how fast the model answers, whatever the episode length
        "mean_llm_seconds": sum(e.llm_seconds for e in episodes) / calls if calls else 0.0,
        "person_seconds": sum(e.person_seconds for e in episodes),
        "llm_failures": sum(e.llm_failures for e in episodes),
        "cached_calls": sum(e.cached_calls for e in episodes),
        **(_repeat_stats(episodes, repeats) if repeats > 1 else {}),
    }


def _repeat_stats(episodes: Sequence[EpisodeResult], repeats: int) -> dict[str, Any]:
    """With repeats: the success rate's 95 % interval over episodes (each once, at its mean over its
    plays: plays of one episode are not independent), and each repeat's own rate."""
    rates = []
    for number in range(1, repeats + 1):
        mine = [e for e in episodes if e.repeat == number]
        rates.append(sum(e.success for e in mine) / len(mine) if mine else None)
    means = [mean_success(plays, lambda e: e.success) for plays in group_plays(episodes, lambda e: e.game).values()]
    interval = episode_interval(means)
    return {"success_interval": list(interval) if interval else None, "repeat_rates": rates}


def summarize(episodes: Sequence[EpisodeResult], env: str | None = None, repeats: int = 1) -> dict[str, Any]:
    """Overall and per-task-type statistics, and per topic when the environment groups its task
    types into topics (ScienceWorld's 10, as its paper reports them)."""
    types = sorted({e.task_type or "?" for e in episodes})
    summary = {
        "overall": _stats(episodes, repeats),
        "by_task_type": {t: _stats([e for e in episodes if (e.task_type or "?") == t], repeats) for t in types},
    }
    topic_of = topic_function(env)
    if topic_of is not None:
        topic = {t: topic_of(t) for t in types}
        summary["by_topic"] = {g: _stats([e for e in episodes if topic[e.task_type or "?"] == g], repeats)
                               for g in sorted(set(topic.values()), key=_topic_order)}
    return summary


def role_sums(episodes: Sequence[EpisodeResult]) -> dict[str, dict[str, Any]]:
    """Per LLM role (planner, executor, ...), the calls, tokens and cost summed over the episodes."""
    sums: dict[str, dict[str, Any]] = {}
    for episode in episodes:
        for role, stats in (episode.roles or {}).items():
            total = sums.setdefault(role, {"llm_calls": 0, "input_tokens": 0, "output_tokens": 0, "cost": 0.0})
            total["llm_calls"] += int(stats.get("llm_calls", stats.get("calls", 0)) or 0)
            total["input_tokens"] += int(stats.get("input_tokens", 0) or 0)
            total["output_tokens"] += int(stats.get("output_tokens", 0) or 0)
            total["cost"] += float(stats.get("cost", 0.0) or 0.0)
    return sums


def summarize_agents(episodes: Sequence[EpisodeResult], agents: Sequence[str], env: str | None = None,
                     repeats: int = 1) -> dict[str, dict[str, Any]]:
    """A comparison's summary per agent: its overall and per-task-type rows, and its per-role sums."""
    out: dict[str, dict[str, Any]] = {}
    for name in agents:
        mine = [e for e in episodes if e.agent == name]
        summary = summarize(mine, env, repeats)
        summary["overall"]["input_tokens"] = sum(e.input_tokens for e in mine)
        summary["overall"]["output_tokens"] = sum(e.output_tokens for e in mine)
        summary["overall"]["llm_calls"] = sum(e.llm_calls for e in mine)
        summary["roles"] = role_sums(mine)
        out[name] = summary
    return out


def topic_function(env: str | None) -> Callable[[str], str] | None:
    """The provider's `topic_of(task_type)` (None: the environment has no topics); unknown types are `?`."""
    if env is None:
        return None
    try:
        source = registry.provider(env)
    except Exception:  # noqa: BLE001 - a report of an environment no longer registered still shows
        return None
    if not source.offers(Capability.TOPICS):
        return None
    topic_of = source.topic_of

    def safe(task_type: str) -> str:
        try:
            return str(topic_of(task_type))
        except Exception:  # noqa: BLE001
            return "?"

    return safe


def _topic_order(label: str) -> tuple[int, str]:
    """`2 Measurement` before `10 Forces`: by the leading number when there is one."""
    head = label.split(" ", 1)[0]
    return (int(head), label) if head.isdigit() else (10**6, label)
