"""The original data's goals and prices as the original's loader makes them: a small folder in its format
(unpriced products, ranges, a price over $980, repeated and invalid asins, repeated option values, a product
without instructions) gives the goals, limits and prices the original's own code gave (recorded, with the
same seed for its price draws), in the same session-index order."""

from __future__ import annotations

import json

import pytest

from envs.base import EnvError
from envs.webshop import catalog, provider as ws_provider
from envs.webshop.goal_order import first_mismatch
from envs.webshop.fields import price_limit, read_pricing
from envs.webshop.original import load_original
from tests.envs import webshop_original_folder as folder_format
from tests.envs.webshop_helpers import webshop  # noqa: F401 - the fixture


@pytest.fixture(autouse=True)
def private_cache(monkeypatch, tmp_path):
    """The store of each test's files, kept in the test's folder."""
    monkeypatch.setenv("RECODE_TUI_CACHE", str(tmp_path / "cache"))


@pytest.fixture(scope="module")
def recorded() -> dict:
    return json.loads(folder_format.RECORDED.read_text())


def test_the_products_and_prices_are_the_originals(tmp_path, recorded):
    cat = load_original(folder_format.write(tmp_path / "data"), seed=recorded["seed"])
    assert list(cat.products) == [p["asin"] for p in recorded["products"]]  # nan, too long, repeated: dropped
    for want in recorded["products"]:
        got = cat.products[want["asin"]]
        assert (got.shown_price, list(got.pricing), got.price) == (want["Price"], want["pricing"], want["scored"])
        assert {k: list(v) for k, v in got.options.items()} == want["options"]
        assert (list(got.attributes), got.query) == (want["Attributes"], want["query"])
    # unpriced products are kept at $100, shown as Python prints it; a range is shown as a range
    assert cat.products["B000000002"].shown_price == "$100.0" and cat.products["B000000003"].shown_price == "$5.0 to $9.0"


def test_the_goals_are_the_originals_in_its_order(tmp_path, recorded):
    cat = load_original(folder_format.write(tmp_path / "data"), seed=recorded["seed"])
    got = [(g.asin, g.instruction, g.price_upper, list(g.options), list(g.attributes)) for g in cat.goals]
    want = [(g["asin"], g["instruction_text"], None if g["price_upper"] == 1000000 else g["price_upper"],
             g["goal_options"], g["attributes"]) for g in recorded["goals"]]
    assert got == want
    assert cat.price_seed == recorded["seed"]
    # a price of $980 or more gets no clause and no limit; a range's limit follows its drawn price
    assert all(g.price_upper is None and "price lower than" not in g.instruction
               for g in cat.goals if g.asin == "B000000004")


def test_another_seed_draws_other_limits_but_the_same_order(tmp_path, recorded):
    cat = load_original(folder_format.write(tmp_path / "data"), seed=recorded["seed"] + 1)
    assert [g.asin for g in cat.goals] == [g["asin"] for g in recorded["goals"]]
    assert [g.price_upper for g in cat.goals] != [g["price_upper"] for g in recorded["goals"]]


def test_price_rules():
    # the 2nd to 4th multiple of 10 above the price; none at $980 or more
    import random

    limits = {price_limit(19.88, random.Random(seed)) for seed in range(200)}
    assert limits == {30.0, 40.0, 50.0}
    assert price_limit(979.99, random.Random(0)) == 990.0 and price_limit(980.0, random.Random(0)) is None
    assert read_pricing("$1,299.00") == ((1299.0,), "$1299.0")
    assert read_pricing("$37.40") == ((37.4,), "$37.4") and read_pricing(None) == ((100.0,), "$100.0")


def test_the_goal_order_check_names_the_first_mismatch(tmp_path, recorded):
    cat = load_original(folder_format.write(tmp_path / "data"), seed=0)
    texts = [g["instruction_text"].split(", and price lower than")[0] for g in recorded["goals"]]
    assert first_mismatch(cat.goals, texts) is None
    texts[3] = "another goal"
    assert first_mismatch(cat.goals, texts) == (
        f"session index 3 is {texts and cat.goals[3].instruction.split(', and price')[0]!r} here but 'another goal' "
        "in the original's order (human_goals.json): goal numbers name other goals than the original's")
    assert "there are 19 goals here and 20" in first_mismatch(cat.goals, texts[:3] + [
        t for t in (g.instruction.split(", and price")[0] for g in cat.goals[3:])] + ["one more"])


def test_the_paper_preset_warns_when_the_goals_are_not_the_originals(webshop, tmp_path, monkeypatch, capsys):
    data = folder_format.write(tmp_path / "data")
    (data / "human_goals.json").write_text(json.dumps(["not this one"]))
    monkeypatch.setenv("WEBSHOP_DATA", str(data))
    catalog._load.cache_clear()
    warnings = webshop.preset_warnings("paper")
    assert any("session index 0 is" in w and "'not this one' in the original's order" in w for w in warnings)
    catalog._load.cache_clear()


def test_both_shapes_of_the_paper_goal_file(tmp_path, monkeypatch):
    bare = tmp_path / "test_indices.json"
    bare.write_text("[2853, 5934, 1642]")
    monkeypatch.setenv("WEBSHOP_PAPER_GOALS", str(bare))
    assert ws_provider.paper_goals() == [2853, 5934, 1642]
    bare.write_text(json.dumps({"test_goals": [1, 2]}))
    assert ws_provider.paper_goals() == [1, 2]
    bare.write_text(json.dumps({"other": 1}))
    with pytest.raises(EnvError, match="not a list of session indices"):
        ws_provider.paper_goals()
