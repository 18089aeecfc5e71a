"""WebShop's search: BM25 (bm25s) over title, attributes and description; the index cached on disk."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from envs import registry
from envs.webshop.search import SearchIndex, cache_root
from tests.envs.webshop_helpers import webshop  # noqa: F401 - the fixture

ROOT = Path(__file__).resolve().parents[2]


def test_results_rank_the_words_of_the_query(webshop):
    env = registry.make_env("webshop:0")
    env.reset()
    env.step("search[noise cancelling headphones]")
    top = [env.catalogue.products[a.upper()] for a in env.available_actions()["clickables"] if a.startswith("b0")]
    assert all("headphones" in p.title.lower() for p in top[:10])
    assert "noise cancelling" in top[0].search_text().lower()
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
    assert list((cache_root()).iterdir())[0].name == "abc123-300"
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
