"""The WebShop site as the original's text environment runs it: pages, clickables and what an action does.

- `search[words]` is carried out from any page (the original does not check for a search bar):
  results page 1 of the words, with no product or option chosen.
- `click[label]` is carried out when the label, lower-cased, is one of the page's clickables
  (`clickables()`, in the original's order: the page's buttons and product links as they
  appear, then the option values) and is not "search"; `click[Search]` on the search page is
  ignored, as the original ignores it.
- Anything else (an unavailable label, an unknown verb, `search[]`) does nothing: the same page.
- `< Prev` from an item page goes back to its results page and forgets the chosen options (the
  original runs the search again); from a description, features or reviews view it goes back to
  the item with its options. `Next >` is on every results page, the last one too (past it: an
  empty page). An option value clicked is chosen for its option (a value two options share: the
  later option's). `Buy Now` ends the episode.

The action's verb is matched as written ("search", "click"); `lower_verbs` (the ReCode reference's
copy of the site) accepts "Search[...]" and "Click[...]" too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from envs.webshop.model import Catalogue, Product

PAGE_SIZE = 10
RESULTS_LIMIT = 50  # the original's SEARCH_RETURN_N
SUB_VIEWS = ("description", "features", "reviews")
_ACTION = re.compile(r"(.+)\[(.+)\]")  # the original's parse: greedy, anchored at the start only


@dataclass
class SiteState:
    page: str = "search"  # search | results | item | description | features | reviews | done
    keywords: str | None = None
    results: list[str] = field(default_factory=list)  # asins, best first
    number: int = 1  # the results page
    asin: str | None = None
    options: dict[str, str] = field(default_factory=dict)  # option name -> value chosen


def parse_action(action: str, lower_verbs: bool = False) -> tuple[str, str | None]:
    """(verb, argument lower-cased) as the original splits an action; argument None when it has none."""
    m = _ACTION.match(action.strip())
    if m is None:
        return action, None
    verb, arg = m.groups()
    return (verb.lower() if lower_verbs else verb), arg.lower()


class Site:
    """One shopper's session on a catalogue (see the module docstring)."""

    def __init__(self, catalogue: Catalogue, search: Callable[[str], list[str]], lower_verbs: bool = False) -> None:
        self.catalogue = catalogue
        self._search = search
        self.lower_verbs = lower_verbs
        self.state = SiteState()

    @property
    def product(self) -> Product:
        assert self.state.asin is not None
        return self.catalogue.products[self.state.asin]

    def page_products(self) -> list[Product]:
        start = (self.state.number - 1) * PAGE_SIZE
        return [self.catalogue.products[a] for a in self.state.results[start:start + PAGE_SIZE]]

    def clickables(self) -> dict[str, str]:
        """label -> what it is ("button", "link", or the option name of a value), in the original's order."""
        page = self.state.page
        if page == "search":
            return {"search": "button"}
        if page == "done":
            return {}
        out = {"back to search": "button"}
        if page == "results":
            if self.state.number > 1:
                out["< prev"] = "button"
            out["next >"] = "button"
            out.update({p.asin.lower(): "link" for p in self.page_products()})
        elif page == "item":
            out.update({label: "button" for label in ("< prev", "description", "features", "reviews", "buy now")})
            for name, values in self.product.options.items():
                out.update({value: name for value in values})
        else:
            out["< prev"] = "button"
        return out

    def act(self, action: str) -> str:
        """Carry out an action: "search", "click", "buy" (the episode ends) or "" (nothing happened)."""
        verb, arg = parse_action(action, self.lower_verbs)
        if verb == "search" and arg:
            self._results(arg, 1)
            return "search"
        labels = self.clickables()
        if verb != "click" or arg is None or arg not in labels or arg == "search":
            return ""
        return self._click(arg, labels[arg])

    def _results(self, keywords: str, number: int) -> None:
        if keywords != self.state.keywords or not self.state.results:
            self.state.results = list(self._search(keywords))[:RESULTS_LIMIT]
        self.state.keywords, self.state.number = keywords, number
        self.state.page, self.state.asin, self.state.options = "results", None, {}

    def _click(self, label: str, kind: str) -> str:
        state = self.state
        if label == "buy now":
            state.page = "done"
            return "buy"
        if label == "back to search":
            self.state = SiteState()
        elif label in ("next >", "< prev") and state.page == "results":
            state.number += 1 if label == "next >" else -1
        elif label == "< prev" and state.page in SUB_VIEWS:
            state.page = "item"
        elif label == "< prev" and state.page == "item":
            self._results(state.keywords or "", state.number)
        elif label in SUB_VIEWS:
            state.page = label
        elif kind == "link":
            state.page, state.asin = "item", label.upper()
        else:
            state.page = "item"
            state.options[kind] = label
        return "click"
