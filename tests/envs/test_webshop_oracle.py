"""WebShop's reward against the original's own: every purchase of reward_oracle.json (2,814 of them, the
rewards, type factors and match counts the original's goal.py gave), reproduced to 1e-6. With spaCy's
tagger `make test` checks every tenth row and `make slow` every row: the tagger takes most of the time."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from envs.webshop import nouns, reward as rw
from envs.webshop.model import Goal, Product
from envs.webshop.options import NOUNS_VAR
from tests.envs.webshop_helpers import shared_webshop

FOLDER = shared_webshop()
pytestmark = pytest.mark.skipif(FOLDER is None, reason="the shared WebShop facts (reward_oracle.json) are not here")


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    assert FOLDER is not None
    return json.loads((FOLDER / "reward_oracle.json").read_text())["cases"]


@pytest.fixture
def fallback(monkeypatch):
    monkeypatch.setenv(NOUNS_VAR, nouns.FALLBACK)
    nouns.reset()
    yield
    nouns.reset()


def purchase(case: dict) -> tuple[Goal, Product]:
    g, p = case["goal"], case["product"]
    goal = Goal("B0TARGET00", g["instruction"], tuple(g["attributes"]), tuple(g["options"]), g["price_upper"], "",
                g["query"], g["name"], g["product_category"])
    product = Product(p["asin"], p["title"], case["price"], "", p["product_category"], p["query"],
                      tuple(p["attributes"]), {}, p["description"], tuple(p["features"]))
    return goal, product


def test_every_purchase_matches_the_original_term_by_term(cases):
    """Attribute and option matches and the price term, for every row; the whole reward to 1e-6 given the
    type factor the original's tagger gave (the tagger is the one part that needs spaCy's model)."""
    wrong = []
    for number, case in enumerate(cases):
        goal, product = purchase(case)
        got = rw.reward(goal, product, case["chosen"])
        want = case["original"]
        whole = (got.attributes_matched + got.options_matched + int(got.price_ok)) / (
            got.attributes + got.options + 1) * want["r_type"]
        if (got.attributes_matched, got.options_matched) != (want["attributes_matched"], want["options_matched"]) \
                or abs(whole - want["reward"]) > 1e-6:
            wrong.append((number, got.line(), want))
    assert not wrong, f"{len(wrong)} of {len(cases)} rows differ, first: {wrong[0]}"
    assert len(cases) == 2814


def test_the_word_list_fallback_agrees_on_the_measured_rows(cases, fallback):
    # the fallback noun finder gives the tagger's type factor on 2,797 of 2,814 rows, the whole reward on 2,798
    types = rewards = 0
    for case in cases:
        goal, product = purchase(case)
        got = rw.reward(goal, product, case["chosen"])
        types += got.type_factor == case["original"]["r_type"]
        rewards += abs(got.total - case["original"]["reward"]) <= 1e-6
    assert nouns.noun_source() == "fallback"
    assert (types, rewards) == (2797, 2798)


def spacy_model_folder() -> Path | None:
    """The shared copy of spaCy's `en_core_web_sm` (tests only: the product never reads it), or None."""
    folder = None if FOLDER is None else FOLDER / "spacy-model"
    return folder if folder is not None and (folder / "en_core_web_sm").is_dir() else None


@pytest.fixture
def spacys_tagger(monkeypatch):
    """spaCy's tagger as the noun finder: the shared model put on sys.path, else an installed one."""
    monkeypatch.delenv(NOUNS_VAR, raising=False)
    if (folder := spacy_model_folder()) is not None:
        monkeypatch.syspath_prepend(str(folder))
    if importlib.util.find_spec("spacy") is None:
        pytest.skip("spaCy is not installed: pip install 'recode-tui[nouns]'")
    if not any(importlib.util.find_spec(m) for m in nouns.MODELS):
        pytest.skip("no spaCy model: ../shared/webshop/spacy-model is not beside the checkout")
    nouns.reset()
    yield
    nouns.reset()


@pytest.mark.heavy  # spaCy's tagger model
@pytest.mark.parametrize("every", [pytest.param(10, id="every-10th-row"),
                                   pytest.param(1, id="every-row", marks=pytest.mark.slow)])
def test_every_reward_with_spacys_tagger(cases, spacys_tagger, every):
    """The whole reward, type factor included, from spaCy's own tagger: every oracle row to 1e-6 (`make slow`;
    `make test` checks every tenth row, the tagger's time being most of this module's)."""
    assert nouns.noun_source() == "spacy:en_core_web_sm"
    rows = list(enumerate(cases))[::every]
    wrong = [n for n, case in rows
             if abs(rw.reward(*purchase(case), case["chosen"]).total - case["original"]["reward"]) > 1e-6]
    assert not wrong, f"{len(wrong)} of {len(rows)} rows differ, first {wrong[0]}"
    assert len(cases) == 2814
