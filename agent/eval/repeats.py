"""Repeated plays (`eval --repeat`): grouping plays by episode, and knowing when they did not differ.

An episode's plays that recorded the same outcome, steps, calls and tokens are one play recorded
several times and add no evidence: the tables say so ("identical plays") instead of letting the
count of plays look like a larger sample. That is checked on the recorded plays, never assumed
from the LLM: hosted APIs and batched servers are not deterministic at temperature 0, and even a
script's play can end differently (a stall, a worker lost).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence, TypeVar

DETERMINISTIC = ("demo", "gold")  # offline LLMs named by a word
DETERMINISTIC_PREFIXES = ("scripted:", "journal:")  # ... and by a file

Play = TypeVar("Play")


def _deterministic(spec: str) -> bool:
    return spec in DETERMINISTIC or spec.startswith(DETERMINISTIC_PREFIXES)


def llm_parts(llm_spec: str) -> list[str]:
    """The LLM specs of every role of `llm_spec` (`planner=demo,executor=profile:x` -> both)."""
    from agent.llm.routing import RoleError, split_spec

    spec = str(llm_spec or "")
    try:
        split = split_spec(spec)
    except RoleError:
        split = None
    return [p for p in ([split[0]] if split and split[0] else []) + list(split[1].values())] if split else [spec]


def offline_llm(llm_spec: str) -> bool:
    """Whether no model answered any role (a script, a journal, the gold path): its tokens are a
    quarter of the characters, an estimate, never a model's count."""
    parts = llm_parts(llm_spec)
    return bool(parts) and all(_deterministic(p) for p in parts)


def play_record(play: Any) -> tuple[Any, ...]:
    """What a play recorded, as two plays of one episode are compared: outcome, reason, steps, calls, tokens."""
    return (play.success, play.reason, play.error, play.steps, play.llm_calls, play.input_tokens,
            play.output_tokens, play.score)


def identical_plays(llm_spec: str, plays: Iterable[Any] = ()) -> str:
    """Why an evaluation's repeated plays add no evidence, in a few words ('' when they do): every
    episode played more than once recorded the same play each time (`play_record`). The LLM is named
    when it explains why (`demo: deterministic`, `temperature 0`); it is never the evidence."""
    by_episode = group_plays(plays, lambda play: f"{play.agent}\0{play.game}")
    repeated = [group for group in by_episode.values() if len(group) > 1]
    if not repeated or any(len({play_record(p) for p in group}) > 1 for group in repeated):
        return ""
    parts = llm_parts(llm_spec)
    if offline_llm(llm_spec):
        named = ", ".join(dict.fromkeys(p.split(":", 1)[0] for p in parts))
        return f"recorded the same; {named}: deterministic"
    known = [p.temperature for group in repeated for p in group if p.temperature is not None]
    if known and all(t == 0 for t in known):
        return "recorded the same; temperature 0"
    return "recorded the same"


def group_plays(plays: Iterable[Play], key: Callable[[Play], str]) -> dict[str, list[Play]]:
    """Plays by episode, in the order episodes first appear."""
    found: dict[str, list[Play]] = {}
    for play in plays:
        found.setdefault(key(play), []).append(play)
    return found


def mean_success(plays: Sequence[Any], won: Callable[[Any], bool]) -> float:
    """An episode's success over its plays (0-1)."""
    return sum(1 for p in plays if won(p)) / len(plays) if plays else 0.0
