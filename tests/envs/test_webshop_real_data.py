"""WEBSHOP_DATA: the original's product and instruction files (a small set in its format, written here)."""

from __future__ import annotations

import json
import re

import pytest

from envs import registry
from envs.base import EnvError
from envs.webshop import catalog
from envs.webshop.provider import paper_goals
from tests.envs.webshop_helpers import webshop  # noqa: F401 - the fixture

PRODUCTS = [
    {"asin": "B078GWRC1J", "name": "Bright Citrus Deodorant by Earth Mama | Natural and Safe for Sensitive Skin, 3-Ounce",
     "pricing": "$10.99", "category": "beauty", "query": "deodorant",
     "product_category": "Beauty & Personal Care › Personal Care › Deodorants & Antiperspirants › Deodorants",
     "full_description": "Calendula is a natural deodorant for sensitive skin.",
     "small_description": ["NATURAL DEODORANT: for sensitive skin", "Aluminum free"],
     "customization_options": {"scent": [{"value": "assorted scents", "image": None},
                                         {"value": "bright citrus", "image": None}],
                               "size": [{"value": "travel set (4-pack)", "image": None},
                                        {"value": "3 ounce (pack of 1)", "image": None}]},
     "average_rating": "4.5 out of 5 stars", "Reviews": [{"score": 5, "title": "Love it", "body": "Works."}]},
    {"asin": "B07KZSXFV5", "name": "Ginger Fresh Deodorant, Aluminum Free, 2.5 oz", "pricing": ["$15.95"],
     "category": "beauty", "query": "deodorant", "product_category": "Beauty & Personal Care › Personal Care › Deodorants",
     "full_description": "A ginger deodorant.", "small_description": "Aluminum free",
     "customization_options": {}, "average_rating": None},
    {"asin": "B09NOPRICE", "name": "No price item", "pricing": None, "category": "beauty", "query": "x",
     "product_category": "", "full_description": "", "small_description": []},
]
ATTRIBUTES = {"B078GWRC1J": {"attributes": ["natural", "sensitive skin", "calendula"]},
              "B07KZSXFV5": {"attributes": ["aluminum free"]}}
HUMAN = {"B078GWRC1J": [{"instruction": "i need a 3 ounce bright citrus deodorant for sensitive skin",
                         "instruction_attributes": ["sensitive skin"],
                         "instruction_options": ["bright citrus", "3 ounce (pack of 1)"]}],
         "B07KZSXFV5": [{"instruction": "aluminum free ginger deodorant, and price lower than 20.00 dollars",
                         "instruction_attributes": ["aluminum free"], "instruction_options": []}]}


@pytest.fixture
def original(webshop, tmp_path, monkeypatch):
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "items_shuffle_1000.json").write_text(json.dumps(PRODUCTS))
    (folder / "items_ins_v2_1000.json").write_text(json.dumps(ATTRIBUTES))
    (folder / "items_human_ins.json").write_text(json.dumps(HUMAN))
    monkeypatch.setenv("WEBSHOP_DATA", str(folder))
    catalog._load.cache_clear()
    yield folder
    catalog._load.cache_clear()


def test_the_originals_files_are_played_instead(original, webshop):
    episodes = webshop.episodes()
    assert len(episodes) == 2 and not webshop.catalogue.bundled
    texts = {e.task for e in episodes}
    # every human instruction gets a price limit: the 2nd to 4th multiple of 10 above the price ($10.99)
    assert any(re.fullmatch(r"i need a 3 ounce bright citrus deodorant for sensitive skin, and price lower than "
                            r"(30|40|50)\.00 dollars", t) for t in texts)
    assert webshop.catalogue.products["B09NOPRICE"].price == 100.0  # no price: kept at $100, as the original
    for episode in episodes:
        env = registry.make_env(episode.ref)
        env.reset()
        for action in registry.gold_actions(episode.ref):
            page = env.step(action)
        assert env.won and env.reward == 1.0, page
    goal = next(i for i, e in enumerate(episodes) if "citrus" in e.task)
    env = registry.make_env(f"webshop:{goal}")
    env.reset()
    env.step("search[bright citrus deodorant]")
    item = env.step("click[b078gwrc1j]")
    assert "scent [SEP] assorted scents [SEP] bright citrus" in item


def test_the_paper_set_needs_the_originals_full_goal_list(original, webshop):
    with pytest.raises(EnvError, match="the paper's test goals go up to 11896"):
        webshop.episodes("paper")


def test_the_paper_preset_plays_the_references_200_goals(original, webshop):
    many = {"B078GWRC1J": [{"instruction": f"deodorant number {i}", "instruction_attributes": ["natural"],
                            "instruction_options": []} for i in range(12000)]}
    (original / "items_human_ins.json").write_text(json.dumps(many))
    catalog._load.cache_clear()
    episodes = webshop.episodes(webshop.preset_split("paper"))
    assert [int(e.id) for e in episodes] == paper_goals() and len(episodes) == 200
    assert registry.step_limit(episodes[0].ref, 50, None) == 30


def test_a_wrong_folder_is_one_line(webshop, tmp_path, monkeypatch):
    monkeypatch.setenv("WEBSHOP_DATA", str(tmp_path))
    catalog._load.cache_clear()
    with pytest.raises(EnvError, match=r"no items_shuffle\*\.json there; point it at the original WebShop data folder"):
        webshop.episodes()
