"""Align two sequences by longest common subsequence, for runs of any length.

Runs share long stretches (a fork shares everything before its edit), so the
common head and tail are cut first, and items that occur on one side only
are set aside (they cannot be matched; a fork's tail of new actions mostly
is such). What is left is aligned with Myers' O(ND) algorithm, which is exact
when the two differ in few places. When they differ in more than
`WINDOW_EDITS` places, Myers runs in windows: each search stops at that many
edits, keeps the path that got furthest, and starts again from its end (the
heuristic GNU diff uses for costly inputs), so the time stays bounded and the
result stays close to the longest. After `MAX_WINDOWS` windows the rest is
aligned by difflib's matching blocks (with its junk heuristic): fewer matches
than the longest may have, never a wrong one. Rows left over are paired.
"""

from __future__ import annotations

import difflib
from typing import Hashable, Sequence

WINDOW_EDITS = 300  # edits one Myers search may make before it settles for the furthest path
MAX_WINDOWS = 12  # windows before the rest is left to difflib
EXACT_BUDGET = WINDOW_EDITS  # up to this many edits the result is an exact longest common subsequence

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
    in_a, in_b = set(mid_a), set(mid_b)
    keep_a = [i for i, x in enumerate(mid_a) if x in in_b]  # an item the other side lacks is never matched
    keep_b = [j for j, y in enumerate(mid_b) if y in in_a]
    inner = _windowed([mid_a[i] for i in keep_a], [mid_b[j] for j in keep_b])
    pairs = [(i, i) for i in range(head)]
    pairs += [(keep_a[i] + head, keep_b[j] + head) for i, j in inner]
    pairs += [(len(a) - tail + k, len(b) - tail + k) for k in range(tail)]
    return pairs


def _windowed(a: Sequence[Hashable], b: Sequence[Hashable]) -> list[tuple[int, int]]:
    """Myers window after window from where the last one got to; difflib for what is left after MAX_WINDOWS."""
    pairs: list[tuple[int, int]] = []
    x0 = y0 = 0
    for _ in range(MAX_WINDOWS):
        if x0 >= len(a) or y0 >= len(b):
            return pairs
        found, x, y, finished = _myers(a[x0:], b[y0:])
        pairs += [(i + x0, j + y0) for i, j in found]
        if finished:
            return pairs
        x0, y0 = x0 + x, y0 + y
    matcher = difflib.SequenceMatcher(None, list(a[x0:]), list(b[y0:]))  # autojunk: bounded time
    pairs += [(x0 + block.a + k, y0 + block.b + k) for block in matcher.get_matching_blocks() for k in range(block.size)]
    return pairs


def _myers(a: Sequence[Hashable], b: Sequence[Hashable]) -> tuple[list[tuple[int, int]], int, int, bool]:
    """Myers' greedy search: (matched pairs, the point reached, whether it reached the end).

    It stops after WINDOW_EDITS edits at the point that got furthest (largest x + y).
    """
    n, m = len(a), len(b)
    if n == 0 or m == 0:
        return [], n, m, True
    offset = n + m + 1  # diagonal k lives at v[offset + k]; the frontier slices below stay inside v
    v = [0] * (2 * offset + 2)
    trace: list[list[int]] = []
    last = min(n + m, WINDOW_EDITS)
    for d in range(last + 1):
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
                return _backtrack(a, b, trace, d, x, y), x, y, True
    inside = [k for k in range(-last, last + 1, 2) if v[offset + k] <= n and 0 <= v[offset + k] - k <= m]
    if not inside:
        return [], 0, 0, False
    k = max(inside, key=lambda k: (2 * v[offset + k] - k, -abs(k)))  # the furthest point, nearest the middle
    x = v[offset + k]
    y = x - k
    return _backtrack(a, b, trace, last, x, y), x, y, False


def _backtrack(a: Sequence[Hashable], b: Sequence[Hashable], trace: list[list[int]], last: int, x: int,
               y: int) -> list[tuple[int, int]]:
    """Walk the saved frontiers back from (x, y), reached at step `last`, to (0, 0), collecting the equal moves."""
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
