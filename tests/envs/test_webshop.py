"""WebShop's text-mode site, played through the registry as the agents play it."""

from __future__ import annotations

import json

import pytest

from envs import registry
from envs.base import EnvError
from tests.envs.webshop_helpers import clickables, webshop  # noqa: F401 - the fixture




def _bundled():
    from envs.webshop.catalog import BUNDLED

    return json.loads(BUNDLED.read_text())


def test_the_bundled_catalogue_has_what_the_issue_asks(webshop):
    data = _bundled()
    categories = {p["category"] for p in data["products"]}
    assert len(data["products"]) >= 500 and len(categories) >= 5
    assert len(webshop.episodes()) >= 150
    assert set(webshop.task_types) == categories
    asins = {p["asin"] for p in data["products"]}
    assert all(g["asin"] in asins for g in data["goals"])  # every target exists
    for product in data["products"][:50]:
        assert product["title"] and product["price"] > 0 and product["description"] and product["reviews"]
        assert product["attributes"] and product["options"] and product["features"] is not None
    assert "not comparable" in data["about"]


def test_a_purchase_from_search_to_buy_now(webshop):
    env = registry.make_env("webshop:0")
    start = env.reset()
    assert start.observation.startswith("WebShop [SEP] Instruction: [SEP] ")
    assert start.instruction in start.observation and "price lower than" in start.instruction
    assert env.available_actions() == {"has_search_bar": True, "clickables": ["search"]}

    results = env.step("search[color safe paraben free shampoo]")
    parts = clickables(results)
    assert "Back to Search" in parts and "Next >" in parts and "< Prev" not in parts
    assert "Page 1 (Total results: 50)" in parts
    page_one = [c for c in env.available_actions()["clickables"] if c.startswith("b0")]
    assert len(page_one) == 10  # 10 a page
    assert "< Prev" in clickables(env.step("click[Next >]"))
    assert "Page 2 (Total results: 50)" in env.observation()
    env.step("click[< Prev]")
    assert [c for c in env.available_actions()["clickables"] if c.startswith("b0")] == page_one

    goal = env.goal
    if goal.asin.lower() not in page_one:
        pytest.skip("the target is not on page 1 of this query")
    item = env.step(f"click[{goal.asin}]")
    product = env.catalogue.products[goal.asin]
    for name, values in product.options.items():
        assert name in clickables(item) and all(v in clickables(item) for v in values)
    for view in ("Description", "Features", "Reviews", "Buy Now"):
        assert view in clickables(item)
    assert f"Price: {product.shown_price}" in item and "Rating: N.A." in item  # the original loads no ratings
    assert product.description in env.step("click[Description]")
    assert env.available_actions()["clickables"] == ["back to search", "< prev"]
    assert "Buy Now" in env.step("click[< Prev]")  # back on the item page
    for value in goal.options:
        assert env.step(f"click[{value}]") == item  # chosen, not shown (the console shows it)
    bought = env.step("click[Buy Now]")
    assert bought.startswith("Thank you for shopping with us!") and "Your score (min 0.0, max 1.0) [SEP] 1.0 [SEP]" in bought
    assert env.done and env.won and env.reward == 1.0 and env.score == 100.0
    assert "no more actions" in env.step("click[Back to Search]")


def test_an_action_not_on_the_page_does_nothing_and_costs_a_step(webshop):
    env = registry.make_env("webshop:3")
    page = env.reset().observation
    assert env.step("click[Buy Now]") == page and env.step("dance") == page  # as the original: no message
    assert env.steps == 2 and not env.done
    env.step("search[chair]")
    assert "Page 1 (Total results:" in env.step("search[lamp]")  # a search from any page is carried out


def test_the_step_limit_ends_without_a_purchase(webshop):
    env = registry.make_env("webshop:1")
    assert env.max_steps == 30 == registry.step_limit("webshop:1", 80, None)
    env.reset()
    env.step("search[anything at all]")
    for _ in range(29):
        env.step("click[Back to Search]") if env.available_actions()["clickables"] != ["search"] else env.step("search[x]")
    assert env.done and not env.won and env.reward == 0.0 and "step limit (30)" in env.end_reason


def test_a_careless_purchase_loses_reward(webshop):
    """Each goal's distractors (an attribute short, over the price, the option missing) earn less than 1."""
    data = _bundled()
    row = data["goals"][5]
    env = registry.make_env("webshop:5")
    env.reset()
    rewards = []
    for asin in row["distractors"]:
        env.reset()
        env.step(f"search[{env.catalogue.products[asin].title}]")
        while asin.lower() not in env.available_actions()["clickables"]:
            env.step("click[Next >]")
        env.step(f"click[{asin}]")
        offered = {v for vs in env.catalogue.products[asin].options.values() for v in vs}
        for value in row["options"].values():
            if value in offered:
                env.step(f"click[{value}]")
        env.step("click[Buy Now]")
        assert env.done and not env.won
        rewards.append(env.reward)
    assert all(0 < r < 1 for r in rewards)


def test_episodes_labels_and_errors(webshop):
    episode = registry.episode("webshop:7")
    assert episode.task_type in webshop.task_types and "price lower than" in episode.task
    assert registry.label("webshop:7") == f"webshop 7 · {episode.task_type}"
    assert registry.fingerprint("webshop:7") == registry.fingerprint("webshop:7") != registry.fingerprint("webshop:8")
    assert {e.task_type for e in webshop.episodes(task_types=["food"])} == {"food"}
    with pytest.raises(EnvError, match="no WebShop goal 9999: this catalogue has goals 0 .. 159"):
        registry.make_env("webshop:9999")
    with pytest.raises(EnvError, match="goal numbers"):
        registry.make_env("webshop:shampoo")
    with pytest.raises(EnvError, match="no WebShop category 'toys'"):
        webshop.episodes(task_types=["toys"])


def test_the_paper_split_on_the_bundled_catalogue_says_there_is_none(webshop):
    with pytest.raises(EnvError, match="bundled WebShop catalogue has no paper set"):
        webshop.episodes("paper")
