"""Align two sequences by longest common subsequence, for runs of any length.

Runs share long stretches (a fork shares everything before its edit), so the
common head and tail are cut first; what is left is aligned with Myers' O(ND)
algorithm, which gives an exact longest common subsequence when the two
differ in few places. Past `EXACT_BUDGET` differences (two unrelated runs of
thousands of steps) the exact search would cost seconds in Python, so the
middle is aligned by difflib's matching blocks instead (with its junk
heuristic, so the time stays bounded): fewer matches than the longest common
subsequence may have, never a wrong one; the rows left over are paired.
"""

from __future__ import annotations

import difflib
from typing import Hashable, Sequence

EXACT_BUDGET = 400  # differences searched exactly; more fall back to difflib (see the module note)

Pair = tuple[int | None, int | None]  # (index in a, index in b); None: no partner on that side


def lcs_pairs(a: Sequence[Hashable], b: Sequence[Hashable]) -> list[tuple[int, int]]:
    """The index pairs (i, j) with a[i] == b[j] of a longest common subsequence, in order."""
    head = 0
    while head < len(a) and head < len(b) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < len(a) - head and tail < len(b) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    mid_a, mid_b = a[head:len(a) - tail], b[head:len(b) - tail]
    pairs = [(i, i) for i in range(head)]
    inner = _myers(mid_a, mid_b)
    if inner is None:
        matcher = difflib.SequenceMatcher(None, list(mid_a), list(mid_b))  # autojunk: bounded time
        inner = [(block.a + k, block.b + k) for block in matcher.get_matching_blocks() for k in range(block.size)]
    pairs += [(i + head, j + head) for i, j in inner]
    pairs += [(len(a) - tail + k, len(b) - tail + k) for k in range(tail)]
    return pairs


def _myers(a: Sequence[Hashable], b: Sequence[Hashable]) -> list[tuple[int, int]] | None:
    """Myers' greedy shortest edit script as matched pairs; None when it needs more than EXACT_BUDGET edits."""
    n, m = len(a), len(b)
    if n == 0 or m == 0:
        return []
    offset = n + m + 1  # diagonal k lives at v[offset + k]; the frontier slices below stay inside v
    v = [0] * (2 * offset + 2)
    trace: list[list[int]] = []
    for d in range(min(n + m, EXACT_BUDGET) + 1):
        trace.append(v[offset - d - 1: offset + d + 2])  # the diagonals step d reads from
        for k in range(-d, d + 1, 2):
            if k == -d or (k != d and v[offset + k - 1] < v[offset + k + 1]):
                x = v[offset + k + 1]
            else:
                x = v[offset + k - 1] + 1
            y = x - k
            while x < n and y < m and a[x] == b[y]:
                x, y = x + 1, y + 1
            v[offset + k] = x
            if x >= n and y >= m:
                return _backtrack(a, b, trace, d)
    return None


def _backtrack(a: Sequence[Hashable], b: Sequence[Hashable], trace: list[list[int]], last: int) -> list[tuple[int, int]]:
    """Walk the saved frontiers back from (n, m) to (0, 0), collecting the diagonal (equal) moves."""
    x, y = len(a), len(b)
    pairs: list[tuple[int, int]] = []
    for d in range(last, 0, -1):
        saved = trace[d]  # the frontier before step d, for diagonals -d-1 .. d+1
        k = x - y
        down = k == -d or (k != d and saved[k - 1 + d + 1] < saved[k + 1 + d + 1])
        prev_k = k + 1 if down else k - 1
        prev_x = saved[prev_k + d + 1]
        prev_y = prev_x - prev_k
        while x > prev_x and y > prev_y:  # the snake after the edit
            x, y = x - 1, y - 1
            pairs.append((x, y))
        x, y = prev_x, prev_y
    while x > 0 and y > 0:  # the first snake, from (0, 0)
        x, y = x - 1, y - 1
        pairs.append((x, y))
    pairs.reverse()
    return pairs


def align(a: Sequence[Hashable], b: Sequence[Hashable], *, pair_gaps: bool = True) -> list[Pair]:
    """Every index of a and of b, in order, as rows: matched pairs, and the unmatched ones between them.

    With `pair_gaps`, unmatched stretches that face each other between two matches are paired
    row by row (a replaced step shows beside its replacement); the longer side's rest stands alone.
    """
    rows: list[Pair] = []
    i = j = 0
    for mi, mj in [*lcs_pairs(a, b), (len(a), len(b))]:
        gap_a, gap_b = list(range(i, mi)), list(range(j, mj))
        if pair_gaps:
            both = min(len(gap_a), len(gap_b))
            rows += [(gap_a[k], gap_b[k]) for k in range(both)]
            gap_a, gap_b = gap_a[both:], gap_b[both:]
        rows += [(x, None) for x in gap_a]
        rows += [(None, y) for y in gap_b]
        if mi < len(a) and mj < len(b):
            rows.append((mi, mj))
        i, j = mi + 1, mj + 1
    return rows
