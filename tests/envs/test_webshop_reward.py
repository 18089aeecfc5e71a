"""WebShop's reward, term by term, against rewards computed by hand (the documented noun fallback)."""

from __future__ import annotations

import pytest

from envs.webshop import nouns, reward as rw
from envs.webshop.model import Goal, Product

PATH = "Beauty & Personal Care › Hair Care › Shampoo"


@pytest.fixture(autouse=True)
def fallback_nouns(monkeypatch):
    monkeypatch.setenv("WEBSHOP_NOUNS", "fallback")
    nouns.reset()
    yield
    nouns.reset()


def goal(**over) -> Goal:
    fields = dict(asin="B0TARGET01", instruction="i need sulfate free and tea tree shampoo, in lavender scent, and "
                  "price lower than 20.00 dollars", attributes=("sulfate free", "tea tree"), options=("lavender",),
                  price_upper=20.0, category="beauty", query="shampoo", name="Lumix Shampoo - Sulfate Free",
                  product_category=PATH)
    fields.update(over)
    return Goal(**fields)


def product(**over) -> Product:
    fields = dict(asin="B0OTHER001", title="Norara Shampoo - Daily Care", price=15.0, category="beauty",
                  product_category=PATH, query="shampoo", attributes=("free of sulfate", "argan oil"),
                  options={"scent": ("lavender", "mint")}, description="This shampoo has tea tree oil.",
                  features=("Argan oil",))
    fields.update(over)
    return Product(**fields)


def test_everything_matched_is_one():
    # "sulfate free" ~ "free of sulfate" (token set ratio 100 > 85); "tea tree" is in the description;
    # lavender chosen; 15 <= 20; the same query: (2 + 1 + 1) / (2 + 1 + 1) x 1.0
    result = rw.reward(goal(), product(), {"scent": "lavender"})
    assert result.total == 1.0 and result.line() == ("reward 1.000 = type 1 x (attributes 2/2 + options 1/1 + "
                                                     "price 1/1) / 4")


def test_an_attribute_neither_fuzzy_nor_in_the_text():
    # "tea tree" nowhere: (1 + 1 + 1) / 4
    result = rw.reward(goal(), product(description="A gentle shampoo."), {"scent": "lavender"})
    assert (result.attributes_matched, result.total) == (1, 0.75)


def test_an_attribute_found_in_title_or_features_only():
    plain = product(attributes=(), description="")
    assert rw.attribute_matches(goal(), plain) == 0
    assert rw.attribute_matches(goal(), product(attributes=(), description="", title="X Shampoo Sulfate Free")) == 1
    assert rw.attribute_matches(goal(), product(attributes=(), description="", features=("Tea tree extract",))) == 1
    # thefuzz's processing makes punctuation a space: "sulfate free" vs "sulfate-free" scores 100; a score at
    # or under 85 is no match ("sulfate free" vs "sulfur free" scores 78)
    assert rw.attribute_matches(goal(attributes=("sulfate free",)), product(attributes=("sulfate-free",),
                                                                           description="")) == 1
    assert rw.attribute_matches(goal(attributes=("sulfate free",)), product(attributes=("sulfur free",),
                                                                           description="")) == 0


def test_the_option_term():
    # no option chosen: (2 + 0 + 1) / 4; another value: the same; a fuzzy match ("16 fl oz" ~ "16 fl. oz", 94): counts
    assert rw.reward(goal(), product(), {}).total == 0.75
    assert rw.reward(goal(), product(), {"scent": "mint"}).total == 0.75
    sized = goal(options=("16 fl oz",))
    assert rw.reward(sized, product(), {"size": "16 fl. oz"}).options_matched == 1


def test_the_price_term():
    # 20.01 over a 20.00 limit: (2 + 1 + 0) / 4; exactly at the limit counts; no limit counts
    assert rw.reward(goal(), product(price=20.01), {"scent": "lavender"}).total == 0.75
    assert rw.reward(goal(), product(price=20.0), {"scent": "lavender"}).price_ok
    assert rw.reward(goal(price_upper=None), product(price=999.0), {"scent": "lavender"}).total == 1.0


def test_the_type_factor_from_query_category_and_title_nouns():
    other_path = "Beauty & Personal Care › Makeup › Lipstick"  # one shared level: no category match
    # fallback nouns of the target's title "Lumix Shampoo - Sulfate Free": lumix, shampoo, sulfate ("free" is
    # in NOT_NOUNS). Same query: 1.0 whatever the title.
    assert nouns.fallback_nouns("Lumix Shampoo - Sulfate Free") == ["lumix", "shampoo", "sulfate"]
    assert rw.type_factor(goal(), product()) == 1.0
    # other query, other path, nouns {norara, shampoo, daily, care} share "shampoo": 1/3 > 0.2 -> 1.0
    assert rw.type_factor(goal(), product(query="lipstick", product_category=other_path)) == 1.0
    # two shared category levels match even with another query: 1.0
    assert rw.type_factor(goal(), product(query="conditioner", product_category=PATH.replace("Shampoo", "Soap"),
                                          title="Norara Shampoo")) == 1.0
    # 1 of 5 nouns (0.2, not above it), no query or category match: 0.5
    five = goal(name="Lumix Shampoo Bottle Pump Refill")
    assert rw.type_factor(five, product(query="x", product_category=other_path, title="Shampoo Thing")) == 0.5
    # the query must be the same exactly, as the original compares it
    assert rw.type_factor(five, product(query="Shampoo", product_category=other_path, title="Shampoo Thing")) == 0.5
    # 1 of 11 nouns (0.09 < 0.1): 0.1, even with the same query
    eleven = goal(name="alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo")
    assert rw.type_factor(eleven, product(title="Kilo Shampoo")) == 0.1
    # no noun shared: 0.0, and so the whole reward
    assert rw.type_factor(goal(), product(title="Norara Lipstick Matte")) == 0.0
    assert rw.reward(goal(), product(title="Norara Lipstick Matte"), {"scent": "lavender"}).total == 0.0
    # a target title without nouns counts as 0.2: with the same query 1.0, without any match 0.5
    bare = goal(name="For the Free")
    assert rw.type_factor(bare, product()) == 1.0
    assert rw.type_factor(bare, product(query="x", product_category=other_path)) == 0.5


def test_repeated_goal_options_each_count_and_colours_are_normalised():
    # the goal's options are a list: "lavender" twice is two of the denominator's 2 + 2 + 1
    twice = goal(options=("lavender", "lavender"))
    assert (rw.reward(twice, product(), {"scent": "lavender"}).total, rw.reward(twice, product(), {}).total) == (1.0, 0.6)
    # colour words: "navy blue" and "blueberry" are both "blue"; "x-large" matches "large"; "8" matches "8.5"
    assert rw.option_matches(("navy blue",), ["blueberry"]) == 1
    assert rw.option_matches(("x-large", "8"), ["large", "8.5"]) == 2
    assert rw.option_matches(("small",), ["x-large"]) == 0


def test_an_attribute_is_looked_for_in_title_bullets_and_description_apart():
    # as the original: the bullets joined with spaces, but not the title with the description
    wanted = goal(attributes=("tea tree",))
    assert rw.attribute_matches(wanted, product(attributes=(), title="X Tea", description="tree oil")) == 0
    assert rw.attribute_matches(wanted, product(attributes=(), description="", features=("Tea", "tree oil"))) == 1


def test_the_whole_formula_with_a_half_type():
    # 0.5 x (attributes 1/2 + options 0/1 + price 1) / 4 = 0.25
    other_path = "Beauty & Personal Care › Makeup › Lipstick"
    five = goal(name="Lumix Shampoo Bottle Pump Refill")
    bought = product(query="x", product_category=other_path, title="Shampoo Thing", description="")
    assert rw.reward(five, bought, {}).total == 0.25


def test_the_noun_source_is_said():
    assert nouns.noun_source() == "fallback"
