"""The alignment under the diff: an exact longest common subsequence, every index once, in order, fast on long runs."""

from __future__ import annotations

import random

from agent.eval.rundiff.lcs import EXACT_BUDGET, align, lcs_pairs


def lcs_length(a: list[str], b: list[str]) -> int:
    """The textbook dynamic programme, as the reference."""
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            table[i + 1][j + 1] = table[i][j] + 1 if x == y else max(table[i][j + 1], table[i + 1][j])
    return table[len(a)][len(b)]


def test_the_pairs_are_a_longest_common_subsequence_and_the_rows_cover_both_sides() -> None:
    rng = random.Random(7)
    for _ in range(1500):
        a = [rng.choice("abcd") for _ in range(rng.randint(0, 14))]
        b = [rng.choice("abcd") for _ in range(rng.randint(0, 14))]
        pairs = lcs_pairs(a, b)
        assert all(a[i] == b[j] for i, j in pairs)
        assert all(p[0] < q[0] and p[1] < q[1] for p, q in zip(pairs, pairs[1:]))
        assert len(pairs) == lcs_length(a, b), (a, b)
        rows = align(a, b)
        assert [i for i, _ in rows if i is not None] == list(range(len(a)))
        assert [j for _, j in rows if j is not None] == list(range(len(b)))


def test_windows_past_the_edit_budget_still_give_a_common_subsequence(monkeypatch) -> None:
    import agent.eval.rundiff.lcs as module

    monkeypatch.setattr(module, "WINDOW_EDITS", 3)
    rng = random.Random(11)
    for _ in range(800):
        a = [rng.choice("abcde") for _ in range(rng.randint(0, 40))]
        b = [rng.choice("abcde") for _ in range(rng.randint(0, 40))]
        pairs = lcs_pairs(a, b)
        assert all(a[i] == b[j] for i, j in pairs)
        assert all(p[0] < q[0] and p[1] < q[1] for p, q in zip(pairs, pairs[1:]))
        assert len(pairs) <= lcs_length(a, b)


def test_facing_gaps_pair_up_and_the_rest_stands_alone() -> None:
    assert align(["s", "x", "y", "e"], ["s", "z", "e"]) == [(0, 0), (1, 1), (2, None), (3, 2)]
    assert align(["s", "x"], ["s", "z"], pair_gaps=False) == [(0, 0), (1, None), (None, 1)]


def ten_thousand_steps_a_side() -> tuple[list[str], list[list[str]]]:
    """A 10,000-step run and three others: a fork, a few hundred scattered changes, the run reversed."""
    rng = random.Random(3)
    a = [f"go to {rng.randint(1, 30)}" for _ in range(10_000)]
    fork = a[:5_000] + [f"look {k}" for k in range(5_000)]  # a fork: the same head, then all different
    noisy = [x if rng.random() > 0.02 else "inventory" for x in a]  # a few hundred scattered changes
    return a, [fork, noisy, list(reversed(a))]


def test_ten_thousand_steps_a_side_align_every_step() -> None:
    """Every step of both runs is in the alignment once (how fast: benchmarks/bench_diff.py, 0.5 s CPU)."""
    a, others = ten_thousand_steps_a_side()
    _, noisy, _ = others
    for b in others:
        rows = align(a, b)
        assert [r[0] for r in rows if r[0] is not None] == list(range(len(a)))
        assert [r[1] for r in rows if r[1] is not None] == list(range(len(b)))
    unchanged = sum(x == y for x, y in zip(a, noisy))  # a common subsequence: the LCS is at least this long
    assert len(a) - unchanged < EXACT_BUDGET and len(lcs_pairs(a, noisy)) >= unchanged
