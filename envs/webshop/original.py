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
"""

from __future__ import annotations

import json
import random
import re
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Literal, overload

from envs.base import EnvError
from envs.webshop.model import DATA_VAR, Catalogue, Goal, Product, digest_of

GOAL_SHUFFLE_SEED = 233  # the original shuffles its human goals with this fixed seed
UNPRICED = 100.0
LIMIT_STEPS = tuple(10.0 * i for i in range(1, 100))  # $10 .. $990
_NOT_PRICE = re.compile(r"[^\d.]")


def read_pricing(raw: object) -> tuple[tuple[float, ...], str]:
    """The prices of a `pricing` field (one, or a range's two ends) and the text the site shows for them."""
    text = " ".join(str(t) for t in raw) if isinstance(raw, list) else raw
    if not text or not isinstance(text, str):
        return (UNPRICED,), f"${UNPRICED}"
    try:
        prices = tuple(float(Decimal(_NOT_PRICE.sub("", piece))) for piece in text.split("$")[1:])
    except InvalidOperation:
        prices = ()
    if not prices:
        return (UNPRICED,), f"${UNPRICED}"
    if len(prices) == 1:
        return prices, f"${prices[0]}"
    return prices[:2], f"${prices[0]} to ${prices[1]}"


def read_options(raw: object) -> dict[str, tuple[str, ...]]:
    options: dict[str, tuple[str, ...]] = {}
    for name, contents in raw.items() if isinstance(raw, dict) else ():
        if contents is None:
            continue
        values = [c.get("value", "") if isinstance(c, dict) else c for c in contents]
        options[str(name).lower()] = tuple(str(v).strip().replace("/", " | ").lower() for v in values)
    return options


def price_limit(price: float, rng: random.Random) -> float | None:
    """The larger of two of the next four multiples of 10 above `price`; None from $980 up."""
    steps = [step for step in LIMIT_STEPS if step > price][:4]
    if len(steps) < 2:
        return None
    return sorted(rng.sample(steps, 2))[1]


def _text(value: object) -> str:
    return "" if value is None else str(value)


def read_products(items: list, attributes: dict, rng: random.Random) -> dict[str, Product]:
    products: dict[str, Product] = {}
    for row in items:
        asin = _text(row.get("asin"))
        if asin == "nan" or len(asin) > 10 or asin in products:
            continue
        pricing, tag = read_pricing(row.get("pricing"))
        bullets = row.get("small_description")
        bullets = bullets if isinstance(bullets, list) else [bullets]
        known = attributes.get(asin) or {}
        products[asin] = Product(
            asin=asin, title=_text(row.get("name")), price=pricing[0], category=_text(row.get("category")),
            product_category=_text(row.get("product_category")), query=_text(row.get("query")).lower().strip(),
            attributes=tuple(known["attributes"]) if "attributes" in known else ("DUMMY_ATTR",),
            options=read_options(row.get("customization_options")), description=_text(row.get("full_description")),
            features=tuple(_text(b) for b in bullets), price_tag=tag, pricing=pricing,
        )
    for asin, product in products.items():  # a range is scored at a price drawn inside it, product by product
        if len(product.pricing) > 1:
            products[asin] = product.scored_at(rng.uniform(*product.pricing[:2]))
    return products


def read_goals(products: dict[str, Product], human: dict, rng: random.Random) -> list[Goal]:
    goals: list[Goal] = []
    for asin, product in products.items():
        for entry in human.get(asin) or ():
            attributes = tuple(entry.get("instruction_attributes") or ())
            if not attributes:
                continue
            limit = price_limit(product.price, rng)
            clause = f", and price lower than {limit:.2f} dollars" if limit is not None else ""
            goals.append(Goal(asin, _text(entry.get("instruction")).strip(".") + clause, attributes,
                              tuple(_text(v) for v in entry.get("instruction_options") or ()), limit,
                              product.category, product.query, product.title, product.product_category))
    random.Random(GOAL_SHUFFLE_SEED).shuffle(goals)
    return goals


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


def load_original(folder: Path, seed: int = 0) -> Catalogue:
    """The original's products and human goals from its files (see the module docstring)."""
    if not folder.is_dir():
        raise EnvError(f"{DATA_VAR}={folder} is not a folder; point it at the original WebShop data folder")
    items_file = _first(folder, "items_shuffle*.json")
    attrs_file = _first(folder, "items_ins_v2*.json", required=False)
    human_file = _first(folder, "items_human_ins*.json")
    items, human = _read_json(items_file), _read_json(human_file)
    attrs = _read_json(attrs_file) if attrs_file else {}
    if not isinstance(items, list) or not isinstance(human, dict) or not isinstance(attrs, dict):
        raise EnvError(f"{DATA_VAR}: {items_file.name} must be a list of products, {human_file.name} and "
                       "items_ins_v2*.json objects by asin")
    rng = random.Random(seed)
    products = read_products(items, attrs, rng)
    goals = read_goals(products, human, rng)
    if not goals:
        raise EnvError(f"{DATA_VAR}={folder}: no human instruction names a product of {items_file.name}")
    digest = digest_of([items_file.name, items_file.stat().st_size, human_file.stat().st_size, len(products)])
    return Catalogue(products, goals, str(folder), digest, price_seed=seed)
