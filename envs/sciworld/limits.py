"""ScienceWorld step limits, derived from the gold-path lengths in `gold_lengths.json`.

The rule: a task's limit is 1.5x the longest gold path over every variation of
every split (train, dev and test) under the setting, rounded up to a multiple
of 10, and at least 50 (ALFWorld's paper limit). The gold path is the
simulator's own solution, so the limit leaves room for it plus half again for
exploring and mistakes, on the variation where it is longest. The half
again also absorbs what one measurement misses: a variation's gold path is
not fixed, it changes with what the JVM loaded before (freeze/21 gave 73, 79
and 85 steps; test-conductivity/676 29, 33 and 37), and the table holds one
measurement per variation and setting.

`gold_lengths.json` holds the length of each variation's gold path, a list per
task indexed by variation number (null: not measured), for each setting
("easy" and "none"). `python -m envs.sciworld.derive_limits` measures them
(resumable; see that module). A task with no measured variation falls back to
FALLBACK_LIMITS, the earlier limits fitted to one test variation.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path

LENGTHS_FILE = Path(__file__).resolve().parent / "gold_lengths.json"
PAPER_WINS_FILE = Path(__file__).resolve().parent / "paper_gold_wins.json"
SETTINGS = ("easy", "none")
MARGIN = 1.5
ROUND_TO = 10
MINIMUM = 50
DEFAULT_MAX_STEPS = 100

# Before the sweep: 1.5x the gold path of each task's first test variation (easy), same rule.
FALLBACK_LIMITS: dict[str, int] = {
    "boil": 120, "melt": 90, "freeze": 110, "change-the-state-of-matter-of": 90, "use-thermometer": 50,
    "measure-melting-point-known-substance": 50, "measure-melting-point-unknown-substance": 150,
    "power-component": 50, "power-component-renewable-vs-nonrenewable-energy": 50, "test-conductivity": 50,
    "test-conductivity-of-unknown-substances": 50, "find-living-thing": 50, "find-non-living-thing": 50,
    "find-plant": 50, "find-animal": 50, "grow-plant": 110, "grow-fruit": 110, "chemistry-mix": 50,
    "chemistry-mix-paint-secondary-color": 50, "chemistry-mix-paint-tertiary-color": 50,
    "lifespan-longest-lived": 50, "lifespan-shortest-lived": 50, "lifespan-longest-lived-then-shortest-lived": 50,
    "identify-life-stages-1": 70, "identify-life-stages-2": 50, "inclined-plane-determine-angle": 120,
    "inclined-plane-friction-named-surfaces": 170, "inclined-plane-friction-unnamed-surfaces": 290,
    "mendelian-genetics-known-plant": 200, "mendelian-genetics-unknown-plant": 200,
}
FALLBACK_LIMITS_FULL: dict[str, int] = {
    "grow-fruit": 130, "mendelian-genetics-known-plant": 230, "mendelian-genetics-unknown-plant": 220,
}


def limit_for(longest_gold_path: int) -> int:
    """The rule: 1.5x the longest gold path, rounded up to 10, at least 50."""
    return max(MINIMUM, math.ceil(longest_gold_path * MARGIN / ROUND_TO) * ROUND_TO)


@lru_cache(maxsize=1)
def gold_lengths() -> dict[str, dict[str, list[int | None]]]:
    """setting -> task -> gold path length per variation (None: not measured); empty when the file is absent."""
    try:
        data = json.loads(LENGTHS_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {setting: data.get(setting, {}) for setting in SETTINGS}


@lru_cache(maxsize=1)
def paper_gold_wins() -> dict[str, dict[str, int | None]]:
    """The reference's episodes replayed: episode -> {"gold": length, "wins_at": step or None} (may be partial)."""
    try:
        return dict(json.loads(PAPER_WINS_FILE.read_text(encoding="utf-8")).get("episodes", {}))
    except (OSError, ValueError, AttributeError):
        return {}


def gold_length(task: str, variation: int, setting: str = "easy") -> int | None:
    """The measured gold path length of one variation, or None."""
    lengths = gold_lengths().get(setting, {}).get(task) or []
    return lengths[variation] if 0 <= variation < len(lengths) else None


def coverage(task: str, setting: str = "easy") -> tuple[int, int]:
    """(variations measured, variations in all) for a task under a setting."""
    lengths = gold_lengths().get(setting, {}).get(task) or []
    return sum(n is not None for n in lengths), len(lengths)


def longest_gold_path(task: str, setting: str = "easy") -> int | None:
    """The longest measured gold path under a setting; under "none" the "easy" ones count too
    (without simplifications a gold path is as long or longer: the same variation loaded in one JVM
    gave equal lengths under both, longer ones without self-watering pots)."""
    settings = ("none", "easy") if setting == "none" else (setting,)
    measured = [n for s in settings for n in gold_lengths().get(s, {}).get(task) or [] if n is not None]
    return max(measured) if measured else None


def step_limit(task: str, setting: str = "easy") -> int:
    """A task's step limit under a setting: the rule over the measured gold paths, else the fallback."""
    longest = longest_gold_path(task, setting)
    if longest is not None:
        return limit_for(longest)
    if setting == "none" and task in FALLBACK_LIMITS_FULL:
        return FALLBACK_LIMITS_FULL[task]
    return FALLBACK_LIMITS.get(task, DEFAULT_MAX_STEPS)
