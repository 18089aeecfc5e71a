"""WebShop's products and goals: the bundled catalogue, or the original's files under $WEBSHOP_DATA.

The data model (`Product`, `Goal`, `Catalogue`) is in `model.py`.
The bundled catalogue (`data/catalog.json`) is written by `generate.py`
(seeded). With `WEBSHOP_DATA=FOLDER` the original's files are read instead:
`items_shuffle*.json` (products), `items_ins_v2*.json` (attributes by asin,
optional) and `items_human_ins.json` (human instructions by asin), as `original.py` reads
them: session indices name the same goals as the original's when the same
files are given; its price draws are seeded ($WEBSHOP_PRICE_SEED). They are
read once into a store on disk (`store.py`); a later start opens it and reads a
product only when a page or the reward needs it.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from envs.base import EnvError
from envs.webshop.model import DATA_VAR, Catalogue, Goal, Product, ProductsInMemory, digest_of
from envs.webshop.options import current
from envs.webshop.original import load_original

__all__ = ["catalogue", "load_bundled", "price_seed"]

BUNDLED = Path(__file__).resolve().parent / "data" / "catalog.json"


def _product_from_bundled(row: dict) -> Product:
    return Product(
        asin=row["asin"], title=row["title"], price=float(row["price"]), category=row["category"],
        product_category=row["product_category"], query=row["query"], attributes=tuple(row.get("attributes", ())),
        options={k: tuple(v) for k, v in row.get("options", {}).items()}, description=row.get("description", ""),
        features=tuple(row.get("features", ())), reviews=tuple((float(s), t) for s, t in row.get("reviews", ())),
        rating=row.get("rating"),
    )


def _goal_from_bundled(row: dict, products: dict[str, Product]) -> Goal:
    target = products[row["asin"]]
    wanted = dict(row["options"])
    return Goal(row["asin"], row["instruction"], tuple(row["attributes"]), tuple(wanted.values()),
                row.get("price_upper"), target.category, target.query, target.title, target.product_category,
                tuple(wanted))


def load_bundled(path: Path = BUNDLED) -> Catalogue:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise EnvError(f"cannot read the bundled WebShop catalogue {path}: {exc}; run envs/webshop/generate.py") from None
    products = {row["asin"]: _product_from_bundled(row) for row in data["products"]}
    goals = [_goal_from_bundled(row, products) for row in data["goals"]]
    return Catalogue(ProductsInMemory(products), goals, "bundled", digest_of(data["products"]))


@lru_cache(maxsize=4)
def _load(source: str, seed: int) -> Catalogue:
    if source == "bundled":
        return load_bundled()
    return load_original(Path(source).expanduser(), seed)


def price_seed() -> int:
    """The seed of the original data's price draws: $WEBSHOP_PRICE_SEED, else 0."""
    return current().seed


def catalogue() -> Catalogue:
    """The catalogue in use: the original's files when $WEBSHOP_DATA is set, else the bundled one."""
    options = current()
    return _load(options.data or "bundled", options.seed if options.data else 0)
