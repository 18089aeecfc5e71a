"""The reward of a purchase, from the WebShop paper's definition.

    reward = type_factor * (matched attributes + matched options + price ok) / (attributes + options + 1)

- An attribute of the goal matches when a product attribute is a fuzzy match
  (rapidfuzz `token_set_ratio` above 85, the original's matcher and threshold),
  or when it appears as text in the product's title, features (bullets) or
  description.
- An option of the goal matches when a chosen option value is a fuzzy match
  (the same test).
- The price term is 1 when the product's price is within the goal's upper
  bound (or the goal has none).
- The type factor compares the purchase with the target: the same search
  query, or at least two shared levels of the category path, or more than 0.2
  of the target title's nouns in the purchased title give 1.0; none of them
  0.5; a noun overlap under 0.1 gives 0.1, and none at all 0.0. A target title
  without nouns counts as an overlap of 0.2.

Nouns: from spaCy's part-of-speech tags (NOUN, PROPN) when spaCy and its
`en_core_web_sm` model are installed; otherwise the fallback `fallback_nouns`:
every lower-cased alphabetic word of three or more letters that is not in
`NOT_NOUNS` (function words, common adjectives, colours and materials,
measure words). `WEBSHOP_NOUNS=fallback` forces the fallback (tests, and
rewards that must not depend on a model version).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

from rapidfuzz import fuzz

from envs.webshop.catalog import Goal, Product

FUZZY_THRESHOLD = 85

NOT_NOUNS = frozenset("""
a an the and or of for with without in on at to by from as is are be it its this that these those your you our
my me we they he she his her their them not no nor but so than too very can will just all any each per into
up out over under off new best great good high low long short small large big extra super ultra mini plus
free natural organic soft hard light dark heavy easy fast quick slow hot cold warm cool fresh pure premium
classic modern simple comfortable durable portable adjustable waterproof wireless compatible professional
non anti multi pro max men women mens womens kids unisex black white red blue green yellow pink purple orange
brown grey gray beige navy gold silver clear wood wooden metal plastic leather cotton steel glass ceramic
pack set pcs piece pieces count inch inches ounce ounces fl oz lb lbs pound pounds size sizes color colors
""".split())

_WORD = re.compile(r"[a-z][a-z'-]*")


def fallback_nouns(text: str) -> list[str]:
    """The nouns of a title without a tagger: see the module docstring."""
    return [w for w in _WORD.findall(text.lower()) if len(w) >= 3 and w not in NOT_NOUNS]


@lru_cache(maxsize=1)
def _spacy_nouns() -> Callable[[str], list[str]] | None:
    if os.environ.get("WEBSHOP_NOUNS", "").strip().lower() == "fallback":
        return None
    import importlib.util

    if importlib.util.find_spec("en_core_web_sm") is None:  # no model: skip spaCy's import (~2 s)
        return None
    try:
        import spacy

        model = spacy.load("en_core_web_sm", disable=["parser", "ner", "lemmatizer"])
    except Exception:  # noqa: BLE001 - no spaCy, or no model: the documented fallback
        return None
    return lambda text: [t.text.lower() for t in model(text) if t.pos_ in ("NOUN", "PROPN")]


def noun_source() -> str:
    """Which noun finder the reward uses: "spacy" or "fallback"."""
    return "fallback" if _spacy_nouns() is None else "spacy"


def nouns(text: str) -> list[str]:
    tagger = _spacy_nouns()
    return fallback_nouns(text) if tagger is None else tagger(text)


def fuzzy_match(a: str, b: str) -> bool:
    return fuzz.token_set_ratio(a.lower(), b.lower()) > FUZZY_THRESHOLD


@dataclass(frozen=True)
class Reward:
    """A purchase's reward with its terms (what the log and the tests show)."""

    total: float
    type_factor: float
    attributes_matched: int
    attributes: int
    options_matched: int
    options: int
    price_ok: bool

    def line(self) -> str:
        return (f"reward {self.total:.3f} = type {self.type_factor:g} x (attributes {self.attributes_matched}/"
                f"{self.attributes} + options {self.options_matched}/{self.options} + price "
                f"{int(self.price_ok)}/1) / {self.attributes + self.options + 1}")


def attribute_matches(goal: Goal, product: Product) -> int:
    text = " ".join([product.title, " ".join(product.features), product.description]).lower()
    matched = 0
    for wanted in goal.attributes:
        if any(fuzzy_match(wanted, have) for have in product.attributes) or wanted.lower() in text:
            matched += 1
    return matched


def option_matches(goal: Goal, chosen: dict[str, str]) -> int:
    values = [v for v in chosen.values() if v]
    return sum(1 for wanted in goal.options.values() if any(fuzzy_match(wanted, v) for v in values))


def type_factor(goal: Goal, product: Product) -> float:
    query_match = bool(goal.query) and product.query.strip().lower() == goal.query.strip().lower()
    levels = lambda path: {x.strip().lower() for x in path.split("›") if x.strip()}  # noqa: E731
    category_match = len(levels(product.product_category) & levels(goal.product_category)) >= 2
    wanted = set(nouns(goal.name))
    overlap = 0.2 if not wanted else len(set(nouns(product.title)) & wanted) / len(wanted)
    factor = 1.0 if (query_match or category_match or overlap > 0.2) else 0.5
    if overlap < 0.1:
        factor = 0.1
    if overlap == 0.0:
        factor = 0.0
    return factor


def reward(goal: Goal, product: Product, chosen: dict[str, str]) -> Reward:
    """The reward of buying `product` with the option values `chosen` (name -> value) for `goal`."""
    attributes = attribute_matches(goal, product)
    options = option_matches(goal, chosen)
    price_ok = goal.price_upper is None or product.price <= goal.price_upper + 1e-9
    factor = type_factor(goal, product)
    total = factor * (attributes + options + int(price_ok)) / (len(goal.attributes) + len(goal.options) + 1)
    return Reward(round(total, 6), factor, attributes, len(goal.attributes), options, len(goal.options), price_ok)
