"""Repeated plays (`eval --repeat`): grouping plays by episode, and knowing when they cannot differ.

A model answering at temperature 0, or an offline LLM that answers from a
script, a journal or the gold path, gives the same answer to the same prompt:
its repeats are one play recorded several times and add no evidence. The
tables say so ("identical plays") instead of letting the count of plays look
like a larger sample.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence, TypeVar

DETERMINISTIC = ("demo", "gold")  # offline LLMs named by a word
DETERMINISTIC_PREFIXES = ("scripted:", "journal:")  # ... and by a file

Play = TypeVar("Play")


def _deterministic(spec: str) -> bool:
    return spec in DETERMINISTIC or spec.startswith(DETERMINISTIC_PREFIXES)


def identical_plays(llm_spec: str, temperatures: Iterable[float | None] = ()) -> str:
    """Why repeats of an episode cannot differ, in a few words ('' when they can): every LLM role
    deterministic (`demo: deterministic`), or every model call made at temperature 0."""
    from agent.llm.routing import RoleError, split_spec

    spec = str(llm_spec or "")
    try:
        split = split_spec(spec)
    except RoleError:
        split = None
    parts = [p for p in ([split[0]] if split and split[0] else []) + list(split[1].values())] if split else [spec]
    if parts and all(_deterministic(p) for p in parts):
        named = ", ".join(dict.fromkeys(p.split(":", 1)[0] for p in parts))
        return f"{named}: deterministic"
    known = [t for t in temperatures if t is not None]
    if known and all(t == 0 for t in known):
        return "temperature 0"
    return ""


def group_plays(plays: Iterable[Play], key: Callable[[Play], str]) -> dict[str, list[Play]]:
    """Plays by episode, in the order episodes first appear."""
    found: dict[str, list[Play]] = {}
    for play in plays:
        found.setdefault(key(play), []).append(play)
    return found


def mean_success(plays: Sequence[Any], won: Callable[[Any], bool]) -> float:
    """An episode's success over its plays (0-1)."""
    return sum(1 for p in plays if won(p)) / len(plays) if plays else 0.0
