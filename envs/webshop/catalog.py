"""WebShop's products and goals: the bundled catalogue, or the original's files under $WEBSHOP_DATA.

A `Product` is what the site shows (title, price, options, description,
features, reviews) plus what the reward reads (attributes, category path, the
query it was listed under). A `Goal` is one instruction: its text, the target
product's asin, attributes, options and a price upper bound.

The bundled catalogue (`data/catalog.json`) is written by `generate.py`
(seeded). With `WEBSHOP_DATA=FOLDER` the original's files are read instead:
`items_shuffle*.json` (products), `items_ins_v2*.json` (attributes by asin,
optional) and `items_human_ins.json` (human instructions by asin); the goals
are the human instructions in the original's order, shuffled with its fixed
seed, so session indices name the same goals when the same files are given.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Literal, overload

from envs.base import EnvError

DATA_VAR = "WEBSHOP_DATA"
BUNDLED = Path(__file__).resolve().parent / "data" / "catalog.json"
GOAL_SHUFFLE_SEED = 233  # the original shuffles its human goals with a fixed seed


@dataclass(frozen=True)
class Product:
    asin: str
    title: str
    price: float
    category: str  # the top-level category (a task type)
    product_category: str  # the path, levels joined by " › "
    query: str  # the search query the product was listed under
    attributes: tuple[str, ...] = ()
    options: dict[str, tuple[str, ...]] = field(default_factory=dict)
    description: str = ""
    features: tuple[str, ...] = ()
    reviews: tuple[tuple[float, str], ...] = ()  # (stars, text)
    rating: float | None = None

    def search_text(self) -> str:
        """What the search engine indexes: title, attributes and description."""
        return " ".join([self.title, " ".join(self.attributes), self.description])


@dataclass(frozen=True)
class Goal:
    asin: str
    instruction: str
    attributes: tuple[str, ...]
    options: tuple[str, ...]  # the values wanted (the original's `goal_options` list: a repeat counts twice)
    price_upper: float | None
    category: str
    query: str
    name: str  # the target's title (the type reward compares nouns against it)
    product_category: str
    option_names: tuple[str, ...] = ()  # the option each wanted value belongs to, when known (the bundled goals)


@dataclass
class Catalogue:
    products: dict[str, Product]
    goals: list[Goal]
    source: str  # "bundled" or the folder of the original's files
    digest: str  # a hash of the products: the search index and fingerprints key on it

    @property
    def bundled(self) -> bool:
        return self.source == "bundled"

    def goal(self, episode: str) -> Goal:
        text = str(episode).strip()
        if not text.isdigit():
            raise EnvError(f"WebShop episodes are goal numbers, e.g. webshop:0; got {episode!r}")
        index = int(text)
        if not 0 <= index < len(self.goals):
            raise EnvError(f"no WebShop goal {index}: this catalogue has goals 0 .. {len(self.goals) - 1}")
        return self.goals[index]

    def categories(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(g.category for g in self.goals))


def _digest(payload: object) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=list).encode()).hexdigest()[:16]


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
    return Catalogue(products, goals, "bundled", _digest(data["products"]))


# ------------------------------------------------------------ the original's files
_PRICE = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")


def _price_of(pricing: object) -> float | None:
    """The original's `pricing` (a string like "$10.99" or "$5.00 - $9.00", or a list): its lowest price."""
    texts = pricing if isinstance(pricing, list) else [pricing]
    prices = [float(m.replace(",", "")) for t in texts if t is not None for m in _PRICE.findall(str(t))]
    return min(prices) if prices else None


def _options_of(raw: object) -> dict[str, tuple[str, ...]]:
    options: dict[str, tuple[str, ...]] = {}
    for name, values in (raw or {}).items() if isinstance(raw, dict) else ():
        names = [v.get("value") if isinstance(v, dict) else v for v in values or ()]
        options[str(name).lower()] = tuple(str(v).strip().lower() for v in names if v)
    return options


def _reviews_of(raw: object) -> tuple[tuple[float, str], ...]:
    out = []
    for review in raw if isinstance(raw, (list, tuple)) else ():
        if isinstance(review, dict):
            stars = review.get("score", review.get("rating", 0)) or 0
            body = " ".join(str(review.get(k, "")) for k in ("title", "body") if review.get(k))
            try:
                out.append((float(stars), body))
            except (TypeError, ValueError):
                out.append((0.0, body))
    return tuple(out)


@overload
def _first(folder: Path, pattern: str, required: Literal[True] = True) -> Path: ...
@overload
def _first(folder: Path, pattern: str, required: bool) -> Path | None: ...
def _first(folder: Path, pattern: str, required: bool = True) -> Path | None:
    found = sorted(folder.glob(pattern), key=lambda p: (len(p.name), p.name))
    if not found and required:
        raise EnvError(f"{DATA_VAR}={folder}: no {pattern} there; point it at the original WebShop data folder")
    return found[0] if found else None


def _read_json(path: Path) -> object:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise EnvError(f"{DATA_VAR}: cannot read {path}: {exc}") from None


def load_original(folder: Path) -> Catalogue:
    """The original's products and human goals from its files (see the module docstring)."""
    if not folder.is_dir():
        raise EnvError(f"{DATA_VAR}={folder} is not a folder; point it at the original WebShop data folder")
    items_file = _first(folder, "items_shuffle*.json")
    attrs_file = _first(folder, "items_ins_v2*.json", required=False)
    human_file = _first(folder, "items_human_ins*.json")
    items = _read_json(items_file)
    attrs = _read_json(attrs_file) if attrs_file else {}
    attrs = attrs if isinstance(attrs, dict) else {}
    human = _read_json(human_file)
    if not isinstance(items, list) or not isinstance(human, dict):
        raise EnvError(f"{DATA_VAR}: {items_file.name} must be a list of products and "
                       f"{human_file.name} an object by asin")
    products: dict[str, Product] = {}
    for row in items:
        asin = str(row.get("asin", "")).strip()
        price = _price_of(row.get("pricing"))
        if not asin or asin in products or price is None or not row.get("name"):
            continue  # the original drops products without a price or a name too
        bullets = row.get("small_description") or []
        bullets = [bullets] if isinstance(bullets, str) else bullets
        description = row.get("full_description") or ""
        products[asin] = Product(
            asin=asin, title=str(row["name"]).strip(), price=price, category=str(row.get("category", "")),
            product_category=str(row.get("product_category", "")), query=str(row.get("query", "")).lower().strip(),
            attributes=tuple(str(a) for a in ((attrs.get(asin) or {}).get("attributes") or ())),
            options=_options_of(row.get("customization_options")), description=str(description).strip(),
            features=tuple(str(b).strip() for b in bullets if str(b).strip()),
            reviews=_reviews_of(row.get("Reviews") or row.get("reviews")),
            rating=_price_of(row.get("average_rating")),
        )
    goals: list[Goal] = []
    for asin, product in products.items():  # the original walks its products in file order
        for entry in human.get(asin) or ():
            attributes = tuple(entry.get("instruction_attributes") or ())
            text = str(entry.get("instruction", "")).strip()
            if not attributes or not text:
                continue
            wanted = tuple(str(value) for value in entry.get("instruction_options") or ())
            bound = _price_bound(text)
            if bound is None:  # as the original does for human goals: a price limit added to the text
                bound = price_limit_above(product.price)
                text = f"{text.rstrip('. ')}, and price lower than {bound:.2f} dollars"
            goals.append(Goal(asin, text, attributes, wanted, bound, product.category, product.query,
                              product.title, product.product_category))
    random.Random(GOAL_SHUFFLE_SEED).shuffle(goals)
    if not goals:
        raise EnvError(f"{DATA_VAR}={folder}: no human instruction names a product of {items_file.name}")
    digest = _digest([items_file.name, items_file.stat().st_size, human_file.stat().st_size, len(products)])
    return Catalogue(products, goals, str(folder), digest)


_BOUND = re.compile(r"price lower than (\d+(?:\.\d+)?) dollars")


PRICE_STEPS = (10, 20, 30, 40, 50, 60, 80, 100, 150, 200, 300, 500, 1000, 2000, 5000)


def price_limit_above(price: float) -> float:
    """A round price limit above a price: the first of PRICE_STEPS greater than it (or 1.5x past them)."""
    return float(next((s for s in PRICE_STEPS if s > price), round(price * 1.5)))


def _price_bound(text: str) -> float | None:
    m = _BOUND.search(text.lower())
    return float(m.group(1)) if m else None


@lru_cache(maxsize=4)
def _load(source: str) -> Catalogue:
    return load_bundled() if source == "bundled" else load_original(Path(source).expanduser())


def catalogue() -> Catalogue:
    """The catalogue in use: the original's files when $WEBSHOP_DATA is set, else the bundled one."""
    folder = os.environ.get(DATA_VAR, "").strip()
    return _load(folder or "bundled")
