"""The reward of a purchase, as the original WebShop computes it.

    reward = type_factor * (matched attributes + matched options + price ok) / (attributes + options + 1)

- An attribute of the goal matches when one of the product's attributes is a fuzzy
  match (`matching.fuzzy_match`: thefuzz's token-set score above 85), or else when
  the goal's attribute, as written, is a substring of the lower-cased title, of the
  lower-cased bullets joined by spaces, or of the lower-cased description (each
  looked at on its own).
- The goal's options are a list (a repeated value counts twice in the denominator).
  Each matches when one of the chosen option values is a fuzzy match of it, both
  after `matching.normalize_colour`.
- The price term is 1 when the price the reward scores (for a range, the price the
  catalogue drew inside it) is at most the goal's limit, or the goal has none.
- The type factor: the same search query (exactly), or two shared levels of the
  category path (split at "›", stripped), or more than 0.2 of the target title's
  nouns (`nouns.nouns`) in the purchased title give 1.0; none of them 0.5; a noun
  overlap under 0.1 gives 0.1, none at all 0.0. A target title without nouns counts
  as an overlap of 0.2.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from envs.webshop.model import Goal, Product
from envs.webshop.matching import fuzzy_match, normalize_colour
from envs.webshop.nouns import nouns

__all__ = ["Reward", "reward", "type_factor", "attribute_matches", "option_matches"]


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
    title, bullets = product.title.lower(), " ".join(product.features).lower()
    description = product.description.lower()
    matched = 0
    for wanted in goal.attributes:
        if any(fuzzy_match(have, wanted) for have in product.attributes):
            matched += 1
        elif wanted in title or wanted in bullets or wanted in description:
            matched += 1
    return matched


def option_matches(wanted: Iterable[str], chosen: Iterable[str]) -> int:
    have = [normalize_colour(v) for v in chosen]
    return sum(1 for w in (normalize_colour(v) for v in wanted) if any(fuzzy_match(h, w) for h in have))


def _levels(path: str) -> set[str]:
    return {level.strip() for level in path.split("›")}


def type_factor(goal: Goal, product: Product) -> float:
    query_match = product.query == goal.query
    category_match = len(_levels(product.product_category) & _levels(goal.product_category)) >= 2
    wanted = nouns(goal.name)
    bought = nouns(product.title)
    overlap = 0.2 if not wanted else len(set(bought) & set(wanted)) / len(wanted)
    factor = 1.0 if (query_match or category_match or overlap > 0.2) else 0.5
    if overlap < 0.1:
        factor = 0.1
    if overlap == 0.0:
        factor = 0.0
    return factor


def reward(goal: Goal, product: Product, chosen: dict[str, str], price: float | None = None) -> Reward:
    """The reward of buying `product` with the option values `chosen` (name -> value) for `goal`,
    at `price` (default: the product's scored price)."""
    paid = product.price if price is None else price
    attributes = attribute_matches(goal, product)
    options = option_matches(goal.options, chosen.values())
    price_ok = goal.price_upper is None or paid <= goal.price_upper
    factor = type_factor(goal, product)
    total = (attributes + options + int(price_ok)) / (len(goal.attributes) + len(goal.options) + 1) * factor
    return Reward(total, factor, attributes, len(goal.attributes), options, len(goal.options), price_ok)
