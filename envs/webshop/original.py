"""The original WebShop's files as its own loader reads them: products, prices, and human goals in its order.

- Products (`items_shuffle*.json`, a list) in file order; one is dropped only when its asin is
  "nan" or longer than 10 characters, or repeats an earlier one. A product with no price, or one
  that cannot be read, is kept at $100.0 (shown "$100.0"). A price is the text after each "$"
  with everything but digits and dots removed: one price is shown as Python prints the float
  ("$37.4"), a range "$a - $b" as "$a to $b" and scored at a price drawn uniformly inside it.
  Option names are lower-cased; option values stripped, "/" shown as " | ", lower-cased, every
  value kept (repeats too). Attributes come from `items_ins_v2*.json` (["DUMMY_ATTR"] without).
- Goals: the products in file order, each one's human instructions (`items_human_ins*.json`)
  in order, skipping those with no attributes. The price limit of a goal is the larger of two
  of the next four multiples of 10 above the product's price (so the 2nd to 4th); from $980 up
  there is no limit and no price clause. The list is then shuffled with the original's fixed
  seed 233: a goal's place after it is its session index.
- The draws (range prices, product by product, then limits, goal by goal, as the original makes
  them) come from one generator seeded with `seed` ($WEBSHOP_PRICE_SEED, default 0). The
  original and the ReCode reference do not seed them, so their limits change from run to run;
  the seed here is recorded in journals and reports.

The files are read once into a store on disk (`store.py`); a later start opens it instead.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal, overload

from envs.base import EnvError
from envs.webshop.model import DATA_VAR, Catalogue, digest_of
from envs.webshop.search import cache_root
from envs.webshop.store import build_store, building, open_store, store_key

__all__ = ["GOAL_SHUFFLE_SEED", "load_original"]

GOAL_SHUFFLE_SEED = 233  # the original shuffles its human goals with this fixed seed


@overload
def _first(folder: Path, pattern: str, required: Literal[True] = True) -> Path: ...
@overload
def _first(folder: Path, pattern: str, required: bool) -> Path | None: ...
def _first(folder: Path, pattern: str, required: bool = True) -> Path | None:
    found = sorted(folder.glob(pattern), key=lambda p: (len(p.name), p.name))
    if not found and required:
        raise EnvError(f"{DATA_VAR}={folder}: no {pattern} there; point it at the original WebShop data folder")
    return found[0] if found else None


def _read_human(path: Path) -> dict:
    try:
        human = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise EnvError(f"{DATA_VAR}: cannot read {path}: {exc}") from None
    if not isinstance(human, dict):
        raise EnvError(f"{DATA_VAR}: {path.name} must be an object of human instructions by asin")
    return human


def store_folder() -> Path:
    """Where the stores of the original data are kept: beside the search indexes."""
    return cache_root().parent / "webshop-catalogue"


def load_original(folder: Path, seed: int = 0) -> Catalogue:
    """The original's products and human goals from its files (see the module docstring)."""
    if not folder.is_dir():
        raise EnvError(f"{DATA_VAR}={folder} is not a folder; point it at the original WebShop data folder")
    items_file = _first(folder, "items_shuffle*.json")
    attrs_file = _first(folder, "items_ins_v2*.json", required=False)
    human_file = _first(folder, "items_human_ins*.json")
    sources = [items_file, human_file] + ([attrs_file] if attrs_file else [])
    path = store_folder() / f"{store_key(sources)}.sqlite"
    if not path.is_file():
        with building(path):  # processes starting at once (eval's workers): one reads the files, the others wait
            if not path.is_file():
                build_store(path, items_file, attrs_file, _read_human(human_file), lambda count: digest_of(
                    [items_file.name, items_file.stat().st_size, human_file.stat().st_size, count]))
    products, goals, digest = open_store(path, seed, GOAL_SHUFFLE_SEED)
    if not goals:
        raise EnvError(f"{DATA_VAR}={folder}: no human instruction names a product of {items_file.name}")
    return Catalogue(products, goals, str(folder), digest, price_seed=seed)
