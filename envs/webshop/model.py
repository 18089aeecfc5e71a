"""WebShop's data model: a `Product` (what the site shows and what the reward reads), a `Goal` (one
instruction: its text, the target's asin, attributes, options and price limit) and a `Catalogue`."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace

from envs.base import EnvError

DATA_VAR = "WEBSHOP_DATA"


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
    price_tag: str = ""  # the price as the site shows it ("$37.4", "$5.0 to $9.0"); "" : f"${price}"
    pricing: tuple[float, ...] = ()  # the prices read (a range's two ends); the reward scores `price`

    @property
    def shown_price(self) -> str:
        return self.price_tag or f"${self.price}"

    def scored_at(self, price: float) -> "Product":
        """This product scored at `price` (a range's drawn price), its shown price tag kept."""
        return replace(self, price=price, price_tag=self.shown_price)

    def search_text(self) -> str:
        """What the original's search index holds: title, description, first bullet and options, lower-cased."""
        options = ", and ".join(f"{name}: {', '.join(values)}" for name, values in self.options.items())
        return " ".join([self.title, self.description, self.features[0] if self.features else "", options]).lower()

    def bundled_search_text(self) -> str:
        """What the bundled catalogue's search indexes: title, attributes and description."""
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


class ProductTable(Mapping[str, Product]):
    """A catalogue's products by asin, in the catalogue's order (the search index's positions)."""

    def asins_at(self, positions: list[int]) -> list[str]:
        """The asins at these places of the catalogue's order, in the order given."""
        raise NotImplementedError

    def in_order(self) -> Iterator[Product]:
        """Every product, in the catalogue's order."""
        return (self[asin] for asin in self)


class ProductsInMemory(ProductTable):
    """Products held in memory (the bundled catalogue, a few thousand)."""

    def __init__(self, products: dict[str, Product]) -> None:
        self._by_asin = products
        self._asins = list(products)

    def __getitem__(self, asin: str) -> Product:
        return self._by_asin[asin]

    def __iter__(self) -> Iterator[str]:
        return iter(self._asins)

    def __len__(self) -> int:
        return len(self._asins)

    def asins_at(self, positions: list[int]) -> list[str]:
        return [self._asins[p] for p in positions]


@dataclass
class Catalogue:
    products: ProductTable  # in memory (bundled) or read from disk when asked for (the original data's store)
    goals: list[Goal]
    source: str  # "bundled" or the folder of the original's files
    digest: str  # a hash of the products: the search index and fingerprints key on it
    price_seed: int | None = None  # the seed of the original data's price draws (None: the bundled prices)

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


def digest_of(payload: object) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=list).encode()).hexdigest()[:16]
