"""WebShop's pages and actions against a page set recorded from the original's own text environment (its
templates and its HTML-to-text step) and the ReCode reference's re-rendering of the same HTML: search,
results (first, middle, last and past the last page), item, its sub-views and done, in both page modes,
with the original's clickables after every action. The search ranking is fixed in the recording (the
original's Lucene index is not here) and the reward shown on the done page is a placeholder."""

from __future__ import annotations

import json

import pytest

from envs.webshop.env import WebShopEnv
from envs.webshop.original import load_original
from tests.envs import webshop_original_folder as folder_format

RECORDED = folder_format.RECORDED.with_name("webshop_original_pages.json")
PLACEHOLDER = "0.987654321"


@pytest.fixture(scope="module")
def recorded() -> dict:
    return json.loads(RECORDED.read_text())


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory, recorded):
    folder = folder_format.write_pages_folder(tmp_path_factory.mktemp("pages") / "data")
    with pytest.MonkeyPatch.context() as patch:  # the store of the files, kept in the test's folder
        patch.setenv("RECODE_TUI_CACHE", str(folder.parent / "cache"))
        return load_original(folder, seed=recorded["seed"])


def search(query: str) -> list[str]:
    return list(folder_format.SEARCHES.get(query, []))


@pytest.mark.parametrize("mode", ["faithful", "recode"])
def test_every_page_is_the_recorded_one(recorded, catalogue, mode):
    for episode in recorded["episodes"]:
        env = WebShopEnv(catalogue, episode["session"], search, mode=mode)
        assert env.goal.instruction == episode["instruction"]
        first, *steps = episode["steps"]
        assert env.reset().observation == first[mode]
        for number, want in enumerate(steps, 1):
            got = env.step(want["action"])
            assert got == want[mode].replace(PLACEHOLDER, str(env.reward)), (episode["session"], number, want["action"])
            assert env.available_actions() == {"has_search_bar": want["has_search_bar"],
                                               "clickables": want["clickables"]}, (episode["session"], number)
            assert env.done == want["done"]


def test_unavailable_actions_do_nothing_and_search_works_from_an_item_page(catalogue):
    env = WebShopEnv(catalogue, 0, search)
    page = env.reset().observation
    for action in ("click[Search]", "click[Buy Now]", "dance", "search[]", "Search[shampoo]"):
        assert env.step(action) == page  # the same page, no message (as the original)
    assert env.steps == 5 and not env.done
    env.step("search[shampoo]")
    env.step("click[Next >]")
    env.step("click[Next >]")
    item = env.step("click[b000000001]")
    assert "Buy Now" in item
    results = env.step("search[lotion]")  # carried out away from the search page
    assert "Page 1 (Total results: 3)" in results and "B000000003" in results
    # the ReCode reference's copy of the site takes a capitalised verb
    recode = WebShopEnv(catalogue, 0, search, mode="recode")
    recode.reset()
    assert "[B0FILL0001]" in recode.step("Search[shampoo]")


def test_chosen_options_are_not_on_the_page_but_scored_and_shown_to_the_console(catalogue):
    env = WebShopEnv(catalogue, 0, search)
    env.reset()
    env.step("search[shampoo]")
    env.step("click[Next >]"), env.step("click[Next >]")
    before = env.step("click[b000000001]")
    assert env.step("click[16 fl oz]") == before and env.selected() == {"size": "16 fl oz"}
    assert "click[16 fl oz]  (selected)" in env.choices() and "click[8 fl oz]" in env.choices()
    env.step("click[< Prev]")  # back to the results: the original forgets the options
    assert env.selected() == {}
