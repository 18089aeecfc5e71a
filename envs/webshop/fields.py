"""The original's reading of a product's fields: its price text and its options, and a goal's price limit."""

from __future__ import annotations

import random
import re
from decimal import Decimal, InvalidOperation

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


def text_of(value: object) -> str:
    return "" if value is None else str(value)
