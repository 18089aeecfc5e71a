"""How sure a success rate is: the 95 % interval `eval --repeat` shows, and whether two runs differ beyond it.

A success rate over n plays is a binomial proportion; the Wilson score interval
is the usual one for it (it stays inside 0-100 % and is sensible at 0 or n
wins, where the textbook normal interval collapses to a point). With repeats,
the plays of a cell are its episodes times the repeats.
"""

from __future__ import annotations

import math

Z95 = 1.959963984540054  # the standard normal's 97.5th percentile


def wilson(successes: int, plays: int, z: float = Z95) -> tuple[float, float] | None:
    """The 95 % Wilson score interval of `successes` in `plays`, as rates (0-1); None for no plays."""
    if plays <= 0:
        return None
    rate = successes / plays
    spread = z * z / plays
    centre = (rate + spread / 2) / (1 + spread)
    half = z * math.sqrt(rate * (1 - rate) / plays + z * z / (4 * plays * plays)) / (1 + spread)
    low = 0.0 if successes == 0 else max(0.0, centre - half)  # exact at the ends, not 1e-17 off
    high = 1.0 if successes == plays else min(1.0, centre + half)
    return low, high


def within_noise(a: tuple[float, float] | None, b: tuple[float, float] | None) -> bool:
    """Whether two runs' intervals overlap: then their difference is inside the noise (a cautious reading)."""
    if a is None or b is None:
        return False
    return a[0] <= b[1] and b[0] <= a[1]
