"""Paired tests for two runs of the same episodes: did the change make a difference beyond chance?

Two evaluations of one set of episodes are paired: each episode is played by
both, so the question is how the episodes moved, not whether two separate
samples differ. An unpaired check (do the two intervals overlap?) throws the
pairing away and calls even a flip of every episode "noise" when there are few.

- Success: McNemar's exact test. Only the discordant episodes speak (won then
  lost: `b`; lost then won: `c`); under "no effect" each is equally likely to go
  either way, so the smaller count is binomial(b + c, 1/2) and the two-sided
  p-value is twice its tail, capped at 1.
- A score (WebShop's reward, ScienceWorld's score): a paired sign-flip
  permutation test on the per-episode differences. Under "no effect" each
  difference is as likely to have the opposite sign; the p-value is the share
  of the 2^m sign assignments whose mean is at least as far from zero as the
  observed one. Exact for up to EXACT_LIMIT nonzero differences, else a fixed
  number of random assignments drawn with a fixed seed (the same answer every
  time), counted as (1 + hits) / (1 + draws) so it is never 0.

Pure functions of numbers; no report format here.
"""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass
from typing import Sequence

EXACT_LIMIT = 16  # nonzero differences up to which every sign assignment is counted (65,536 of them)
DRAWS = 20_000  # random sign assignments beyond it
SEED = 20_240_601  # fixed: a report's p-value never changes between two readings
TOLERANCE = 1e-9  # a flipped mean equal to the observed one (up to rounding) counts as "as extreme"


@dataclass(frozen=True)
class McNemar:
    """McNemar's exact test of paired success: `b` episodes won then lost, `c` lost then won."""

    b: int
    c: int
    p: float

    @property
    def discordant(self) -> int:
        return self.b + self.c


@dataclass(frozen=True)
class SignFlip:
    """The paired sign-flip permutation test of a mean difference (other minus baseline)."""

    pairs: int  # episodes with a value on both sides
    mean_difference: float
    p: float
    exact: bool  # every sign assignment counted (else DRAWS random ones)


def binomial_tail(k: int, n: int) -> float:
    """P(X <= k) for X ~ binomial(n, 1/2), computed exactly with integers."""
    if k < 0:
        return 0.0
    return sum(math.comb(n, i) for i in range(min(k, n) + 1)) / 2**n


def mcnemar_exact(b: int, c: int) -> McNemar:
    """The two-sided exact McNemar test: 2 P(X <= min(b, c)), X ~ binomial(b + c, 1/2), at most 1.

    No discordant episode at all gives p = 1 (nothing moved)."""
    if b < 0 or c < 0:
        raise ValueError(f"discordant counts cannot be negative (b={b}, c={c})")
    n = b + c
    p = 1.0 if n == 0 else min(1.0, 2 * binomial_tail(min(b, c), n))
    return McNemar(b, c, p)


def sign_flip_test(differences: Sequence[float], draws: int = DRAWS, seed: int = SEED) -> SignFlip:
    """The two-sided paired permutation test of `differences` (one per episode); p = 1 when all are 0."""
    values = [float(d) for d in differences]
    n = len(values)
    observed = sum(values) / n if n else 0.0
    moving = [abs(v) for v in values if v != 0.0]
    if not moving:
        return SignFlip(n, observed, 1.0, True)
    target = abs(sum(values)) - TOLERANCE * max(1.0, abs(sum(values)))
    if len(moving) <= EXACT_LIMIT:
        hits = sum(1 for signs in itertools.product((1, -1), repeat=len(moving))
                   if abs(sum(s * v for s, v in zip(signs, moving))) >= target)
        return SignFlip(n, observed, hits / 2 ** len(moving), True)
    rng = random.Random(seed)
    hits = 0
    for _ in range(draws):
        total = sum(v if rng.random() < 0.5 else -v for v in moving)
        hits += abs(total) >= target
    return SignFlip(n, observed, (1 + hits) / (1 + draws), False)


def discordant(base_won: Sequence[bool], other_won: Sequence[bool]) -> tuple[int, int]:
    """(won then lost, lost then won) over paired outcomes."""
    if len(base_won) != len(other_won):
        raise ValueError("paired outcomes need one value per episode on each side")
    b = sum(1 for x, y in zip(base_won, other_won) if x and not y)
    c = sum(1 for x, y in zip(base_won, other_won) if y and not x)
    return b, c


def p_text(p: float) -> str:
    """A p-value as reports print it: three decimals, `< 0.001` below that."""
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"
