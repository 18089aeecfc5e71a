"""The original data read once into a store on disk: a later start opens the store instead of parsing the
files, and sees the same products, goals (order, limits, prices) and search results as the first."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from envs.base import EnvError
from envs.webshop import catalog, provider as ws_provider
from envs.webshop.original import load_original, store_folder
from tests.envs import webshop_original_folder as folder_format
from tests.envs.webshop_helpers import webshop  # noqa: F401 - the fixture

ROOT = Path(__file__).resolve().parents[2]
# a later start in a fresh process, with the JSON parser made unimportable: it must not need it
LATER_START = r'''
import json, sys
sys.modules["ijson"] = None
from pathlib import Path
from envs.webshop.original import load_original
cat = load_original(Path(sys.argv[1]), seed=int(sys.argv[2]))
print(json.dumps({"goals": [[g.asin, g.instruction, g.price_upper] for g in cat.goals],
                  "prices": {a: [p.price, p.shown_price, list(p.attributes)] for a, p in cat.products.items()}}))
'''


def _summary(cat) -> dict:
    return {"goals": [[g.asin, g.instruction, g.price_upper] for g in cat.goals],
            "prices": {a: [p.price, p.shown_price, list(p.attributes)] for a, p in cat.products.items()}}


def test_a_later_start_opens_the_store_without_parsing_the_files(webshop, tmp_path):
    folder = folder_format.write(tmp_path / "data")
    first = load_original(folder, seed=folder_format.SEED)
    assert len(list(store_folder().glob("*.sqlite"))) == 1
    out = subprocess.run([sys.executable, "-c", LATER_START, str(folder), str(folder_format.SEED)], cwd=ROOT,
                         env={"RECODE_TUI_CACHE": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"},
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == json.loads(json.dumps(_summary(first)))


def test_the_store_gives_what_the_files_give(webshop, tmp_path):
    recorded = json.loads(folder_format.RECORDED.read_text())
    folder = folder_format.write(tmp_path / "data")
    load_original(folder, seed=recorded["seed"])
    again = load_original(folder, seed=recorded["seed"])  # opened from the store
    assert [(g.asin, g.instruction, g.price_upper) for g in again.goals] == [
        (g["asin"], g["instruction_text"], None if g["price_upper"] == 1000000 else g["price_upper"])
        for g in recorded["goals"]]
    assert [(a, p.price) for a, p in again.products.items()] == [(p["asin"], p["scored"]) for p in recorded["products"]]
    assert "B000000006" not in again.products and "B000000001" in again.products
    with pytest.raises(KeyError):
        again.products["B0NOTTHERE"]


def test_another_seed_reuses_the_store_with_its_own_draws(webshop, tmp_path):
    recorded = json.loads(folder_format.RECORDED.read_text())
    folder = folder_format.write(tmp_path / "data")
    load_original(folder, seed=recorded["seed"] + 1)
    cat = load_original(folder, seed=recorded["seed"])
    assert len(list(store_folder().glob("*.sqlite"))) == 1
    assert [g.price_upper for g in cat.goals] == [
        None if g["price_upper"] == 1000000 else g["price_upper"] for g in recorded["goals"]]


def test_a_changed_file_is_read_again(webshop, tmp_path):
    folder = folder_format.write(tmp_path / "data")
    before = load_original(folder, seed=0)
    human = json.loads((folder / "items_human_ins.json").read_text())
    human["B000000010"].append({"instruction": "one more goal", "instruction_attributes": ["new"],
                                "instruction_options": []})
    (folder / "items_human_ins.json").write_text(json.dumps(human))
    after = load_original(folder, seed=0)
    assert len(after.goals) == len(before.goals) + 1
    assert any(g.instruction.startswith("one more goal") for g in after.goals)


def test_search_results_name_the_stored_products(webshop, tmp_path, monkeypatch):
    folder = folder_format.write(tmp_path / "data")
    monkeypatch.setenv("WEBSHOP_DATA", str(folder))
    catalog._load.cache_clear()
    cat = catalog.catalogue()
    assert ws_provider.search_for(cat)("alpix body lotion")[0] == "B000000003"
    ws_provider._indexes.clear()  # a later start: the index from disk, the asins from the store
    catalog._load.cache_clear()
    assert ws_provider.search_for(catalog.catalogue())("paxtek soap")[0] == "B000000008"


def test_a_products_file_that_is_not_a_list_is_one_line(webshop, tmp_path):
    folder = folder_format.write(tmp_path / "data")
    (folder / "items_shuffle.json").write_text(json.dumps({"B000000001": {}}))
    with pytest.raises(EnvError, match="items_shuffle.json must be a list of products"):
        load_original(folder)
