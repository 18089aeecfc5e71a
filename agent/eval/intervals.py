"""How sure a success rate is: the 95 % interval `eval --repeat` shows.

A success rate over n independent episodes is a binomial proportion; the Wilson
score interval is the usual one for it (it stays inside 0-100 % and is sensible
at 0 or n wins, where the textbook normal interval collapses to a point).

Repeats are not independent episodes: the plays of one episode share its task,
its room and its difficulty, and with a deterministic model they are the same
play. So the interval counts episodes, not plays: each episode enters once, at
its mean success over its plays, and n is the number of episodes. The variance
of a value in [0, 1] with mean p is at most p(1 - p), so treating each
episode's mean as one binomial draw is conservative; three identical plays of
an episode narrow nothing.
"""

from __future__ import annotations

import math
from typing import Sequence

Z95 = 1.959963984540054  # the standard normal's 97.5th percentile


def wilson_rate(rate: float, n: int, z: float = Z95) -> tuple[float, float] | None:
    """The 95 % Wilson score interval of a proportion `rate` (0-1) over `n` observations; None for none."""
    if n <= 0:
        return None
    spread = z * z / n
    centre = (rate + spread / 2) / (1 + spread)
    half = z * math.sqrt(max(0.0, rate * (1 - rate)) / n + z * z / (4 * n * n)) / (1 + spread)
    low = 0.0 if rate <= 0.0 else max(0.0, centre - half)  # exact at the ends, not 1e-17 off
    high = 1.0 if rate >= 1.0 else min(1.0, centre + half)
    return low, high


def episode_interval(episode_means: Sequence[float]) -> tuple[float, float] | None:
    """The 95 % interval of a success rate over episodes, each counted once at its mean over its plays."""
    if not episode_means:
        return None
    return wilson_rate(sum(episode_means) / len(episode_means), len(episode_means))
