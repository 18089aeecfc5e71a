"""WebShop's search: the original's analysis and BM25 parameters against a hand-checked ranking, the bundled
catalogue's own analysis, and the index cached on disk."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from envs import registry
from envs.webshop.search import SearchIndex, cache_root, lucene_tokens
from tests.envs.webshop_helpers import webshop  # noqa: F401 - the fixture

ROOT = Path(__file__).resolve().parents[2]


def test_results_rank_the_words_of_the_query(webshop):
    env = registry.make_env("webshop:0")
    env.reset()
    env.step("search[noise cancelling headphones]")
    top = [env.catalogue.products[a.upper()] for a in env.available_actions()["clickables"] if a.startswith("b0")]
    assert all("headphones" in p.title.lower() for p in top[:10])
    assert "noise cancelling" in top[0].search_text()
    env.step("click[Back to Search]")
    env.step("search[zzzz qqqq]")
    assert env.observation().endswith("Page 1 (Total results: 0) [SEP] Next >")  # as the original: no message


def test_an_attribute_only_in_the_description_is_found(webshop):
    index = SearchIndex.build(["red chair", "blue lamp. This lamp is dimmable.", "green rug"])
    assert index.search("dimmable")[:1] == [1]
    assert index.search("") == []


def test_the_index_is_built_once_and_loaded_from_the_cache(webshop, tmp_path):
    texts = [f"product number {i} with words {i % 7}" for i in range(300)]
    first = SearchIndex.build(texts, key="abc123")
    assert not first.loaded_from_cache
    assert list((cache_root()).iterdir())[0].name == "abc123-lucene-english-porter-1-300"
    second = SearchIndex.build(texts, key="abc123")
    assert second.loaded_from_cache and second.search("words 3") == first.search("words 3")
    assert not SearchIndex.build(texts[:299], key="abc123").loaded_from_cache  # another catalogue, another index


def test_another_process_loads_the_bundled_index_from_the_cache(webshop, tmp_path):
    registry.make_env("webshop:0").reset()
    code = ("from envs.webshop.provider import search_for; from envs.webshop.catalog import catalogue; "
            "import envs.webshop.provider as p; search_for(catalogue()); "
            "print(list(p._indexes.values())[0][0].loaded_from_cache)")
    env = {"RECODE_TUI_CACHE": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "True", out.stderr
    assert json.loads((next(cache_root().iterdir()) / "params.index.json").read_text())


def test_the_originals_analysis_stems_and_drops_lucenes_stop_words():
    assert lucene_tokens("The boy's L'eau 6.76 fl oz, 1,000 running shoes") == [
        "boi", "l'eau", "6.76", "fl", "oz", "1,000", "run", "shoe"]


def test_equal_scores_come_in_catalogue_order_on_every_machine():
    """Lucene orders equal scores by document number; a top-k left to numpy's sort gives another order on
    another processor, so a recorded search would not replay there."""
    docs = [f"lipstick nude {'beige' if i % 3 else 'coral'} item{i}" for i in range(400)]  # ties in 3 groups
    got = SearchIndex.build(docs, analysis="original").scored("nude beige lipstick")
    beige = [i for i in range(400) if i % 3]
    assert [position for position, _ in got] == beige[:50]


def test_the_originals_ranking_on_a_hand_checked_list():
    """N = 5 documents, average length 3.6 words ("_" stands for a document of stop words only); query
    "running shoes" -> run, shoe; idf = ln(1 + (N - n + 0.5) / (n + 0.5)): run (n = 3) 0.5390, shoe (n = 4)
    0.2877; a word's part is tf / (tf + 0.9 (0.6 + 0.4 dl / 3.6)) x idf. By hand:
    doc 0 (dl 3): 0.5435 x 0.8267 = 0.4493; doc 1 (dl 4): 0.5155 x 0.8267 = 0.4262;
    doc 4 (dl 6, "runs" -> run): 0.4673 x 0.8267 = 0.3863; doc 2 (dl 4, shoe 3 times): 0.7614 x 0.2877 = 0.2191."""
    docs = ["running shoes for men", "men's running shoe, black", "shoes shoes shoes and socks", "the and of with",
            "trail runs shoe with a long lasting sole"]
    got = SearchIndex.build(docs, analysis="original").scored("running shoes")
    assert [position for position, _ in got] == [0, 1, 4, 2]
    assert [round(score, 4) for _, score in got] == pytest.approx([0.4493, 0.4262, 0.3863, 0.2191], abs=2e-4)


def test_the_original_data_is_searched_as_the_original(tmp_path, monkeypatch, webshop):
    from envs.webshop import catalog
    from tests.envs import webshop_original_folder as folder_format

    monkeypatch.setenv("WEBSHOP_DATA", str(folder_format.write_pages_folder(tmp_path / "data")))
    catalog._load.cache_clear()
    assert registry.env_settings("webshop")["webshop_search"] == "original"
    env = registry.make_env("webshop:0")
    env.reset()
    # the options are indexed ("navy blue" is a value of B000000001's colour) and "shampoos" is stemmed
    assert env.step("search[navy shampoos]").split(" [SEP] ")[5] == "B000000001"
    catalog._load.cache_clear()
