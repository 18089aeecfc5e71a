"""The paired tests `compare` prints: exact values checked against hand computations."""

from __future__ import annotations

import pytest

from agent.eval.paired import EXACT_LIMIT, binomial_tail, discordant, mcnemar_exact, p_text, sign_flip_test
from agent.eval.repeats import identical_plays
from agent.eval.results import EpisodeResult


@pytest.mark.parametrize("b, c, p", [
    (3, 0, 0.25),  # 2 x (1/2)^3
    (0, 3, 0.25),
    (1, 0, 1.0),  # one flipped episode can never be evidence
    (6, 0, 0.03125),  # 2 / 64: the fewest one-way flips below 0.05
    (5, 0, 0.0625),
    (5, 2, 0.453125),  # 2 x (1 + 7 + 21) / 128
    (2, 2, 1.0),  # 2 x 11/16 capped at 1
    (0, 0, 1.0),  # nothing moved
])
def test_mcnemar_exact_matches_the_binomial_by_hand(b, c, p):
    assert mcnemar_exact(b, c).p == pytest.approx(p, abs=1e-12)


def test_mcnemar_refuses_negative_counts_and_the_tail_is_exact():
    with pytest.raises(ValueError, match="cannot be negative"):
        mcnemar_exact(-1, 2)
    assert binomial_tail(2, 4) == 11 / 16 and binomial_tail(-1, 4) == 0.0


def test_discordant_pairs_count_each_direction():
    assert discordant([True, True, False, False], [False, True, True, False]) == (1, 1)
    with pytest.raises(ValueError):
        discordant([True], [True, False])


def test_sign_flip_exact_values_by_hand():
    # +1 +2 +3: of the 8 sign assignments only all-plus and all-minus reach |sum| 6
    assert sign_flip_test([1.0, 2.0, 3.0]).p == pytest.approx(0.25)
    # four +1 and one -1 (sum 3): |2k - 5| >= 3 for k in {0, 1, 4, 5}: 12 of 32
    assert sign_flip_test([1, 1, 1, 1, -1]).p == pytest.approx(0.375)
    test = sign_flip_test([0.0, 0.0, 5.0])  # zero differences carry no sign
    assert (test.p, test.pairs, test.mean_difference, test.exact) == (1.0, 3, pytest.approx(5 / 3), True)
    assert sign_flip_test([0.0, 0.0]).p == 1.0


def test_sign_flip_of_success_differences_is_mcnemar():
    assert sign_flip_test([-1.0, -1.0, -1.0, 0.0]).p == pytest.approx(mcnemar_exact(3, 0).p)


def test_sign_flip_beyond_the_exact_limit_draws_with_a_fixed_seed():
    differences = [1.0] * (EXACT_LIMIT + 4)  # 20 one-way changes: exact p is 2 / 2^20
    first, again = sign_flip_test(differences), sign_flip_test(differences)
    assert not first.exact and first.p == again.p
    assert first.p == pytest.approx(1 / 20_001, rel=0.5)  # (1 + hits) / (1 + draws): never 0
    mixed = [1.0, -1.0] * 10
    assert sign_flip_test(mixed).p > 0.9


def test_p_values_print_with_three_decimals():
    assert p_text(0.25) == "p = 0.250" and p_text(0.0004) == "p < 0.001"


def test_identical_plays_are_checked_on_the_recorded_plays_never_assumed_from_the_llm():
    def play(game: str, repeat: int, success: bool = True, steps: int = 5, temperature: float | None = 0.0):
        return EpisodeResult(game, "put", success, "won" if success else "rewrite limit", steps=steps, llm_calls=2,
                             repeat=repeat, temperature=temperature)

    same = [play("put-01", 1), play("put-01", 2), play("clean-01", 1, False), play("clean-01", 2, False)]
    assert identical_plays("demo", same) == "recorded the same; demo: deterministic"
    assert identical_plays("planner=gold,executor=journal:/j", same) == "recorded the same; gold, journal: deterministic"
    assert identical_plays("profile:gpt", same) == "recorded the same; temperature 0"
    warm = [play("put-01", 1, temperature=0.7), play("put-01", 2, temperature=0.7)]
    assert identical_plays("profile:gpt", warm) == "recorded the same"  # they were, whatever the model
    differed = [play("put-01", 1), play("put-01", 2, success=False, steps=2)]
    assert identical_plays("profile:gpt", differed) == ""  # at temperature 0, and still not one result
    assert identical_plays("demo", differed) == ""  # a script's plays can end differently too (a stall)
    assert identical_plays("profile:gpt", [play("put-01", 1)]) == ""  # nothing repeated: cannot say
