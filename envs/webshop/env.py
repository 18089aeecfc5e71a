"""One WebShop episode: the text-mode site and an instruction, as an Env the engine drives.

Pages, as the original's text mode shows them (clickables and text joined by
` [SEP] `, the instruction on every page):

- search: `WebShop [SEP] Instruction: [SEP] ... [SEP] Search`; action `search[query]`.
- results: `Back to Search`, `< Prev` / `Next >` as they apply, `Page N (Total results: M)`,
  then per product its asin (clickable, `click[b0...]`), title and price; 10 a page.
- item: `Back to Search`, `< Prev` (to the results), each option name followed by its
  values (clickable; a click selects that value), the title, price and rating,
  `Description`, `Features`, `Reviews` (sub-views, each with `< Prev` back to the
  item) and `Buy Now`.
- done: after `Buy Now`, the purchase and its reward.

`available_actions()` gives the page's search bar and clickables (what the
original's `get_available_actions` gives). An action that is not available is
answered with one line saying so, then the page again; it counts as a step.
The episode ends at the purchase or at the step limit; it is won at reward 1.0
(the ReCode reference's rule). `reward` (0-1) is kept always; `score` is it
times 100 (the scale the console and eval show, and the paper's WebShop score).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from envs.base import EnvError, Reset
from envs.webshop.catalog import Catalogue, Goal, Product
from envs.webshop.reward import Reward, reward

SEP = " [SEP] "
PAGE_SIZE = 10
DEFAULT_MAX_STEPS = 30  # the ReCode reference's WebShop limit
_ACTION = re.compile(r"^\s*(search|click)\s*\[(.*)\]\s*$", re.IGNORECASE | re.DOTALL)
SUB_VIEWS = ("description", "features", "reviews")


def norm(text: str) -> str:
    return " ".join(text.lower().split())


@dataclass
class _Page:
    kind: str = "search"  # search | results | item | description | features | reviews | done
    query: str = ""
    results: list[str] = field(default_factory=list)  # asins, best first
    number: int = 1
    asin: str = ""
    chosen: dict[str, str] = field(default_factory=dict)


class WebShopEnv:
    """A WebShop goal on a catalogue (see the module docstring)."""

    name = "webshop"

    def __init__(self, catalogue: Catalogue, goal_index: int, search, max_steps: int = DEFAULT_MAX_STEPS,
                 env_name: str = "webshop") -> None:
        self.catalogue = catalogue
        self.goal_index = int(goal_index)
        self.goal: Goal = catalogue.goal(str(goal_index))
        self.task_type: str | None = self.goal.category
        self.max_steps = int(max_steps)
        self.name = env_name
        self._search = search  # query -> list of asins, best first
        self._page = _Page()
        self._steps = 0
        self._started = False
        self.purchased: Product | None = None
        self.result: Reward | None = None
        self.reward = 0.0
        self.score = 0.0
        self.score_log: list[tuple[int, float, float]] = []

    # ---------------------------------------------------------------- protocol
    def reset(self) -> Reset:
        self._page, self._steps, self._started = _Page(), 0, True
        self.purchased, self.result, self.reward, self.score, self.score_log = None, None, 0.0, 0.0, []
        observation = self.observation()
        return Reset(instruction=self.goal.instruction, observation=observation, raw=observation)

    def step(self, action: str) -> str:
        if not self._started:
            raise RuntimeError("call reset() before step()")
        if self.done:
            return f"The episode is over ({self.end_reason}); no more actions are accepted."
        self._steps += 1
        refused = self._apply(action)
        page = self.observation()
        return f"{refused}\n{page}" if refused else page

    @property
    def done(self) -> bool:
        return self.purchased is not None or self._steps >= self.max_steps

    @property
    def won(self) -> bool:
        return self.purchased is not None and self.reward >= 1.0 - 1e-9

    @property
    def steps(self) -> int:
        return self._steps

    @property
    def end_reason(self) -> str:
        if self.purchased is not None:
            return f"bought {self.purchased.asin} with reward {self.reward:.2f}"
        return f"the step limit ({self.max_steps}) was reached without a purchase (reward 0)"

    def close(self) -> None:
        self._started = False

    # ---------------------------------------------------------------- pages
    def available_actions(self) -> dict:
        """The page's search bar and clickables (the original's `get_available_actions`)."""
        return {"has_search_bar": self._page.kind == "search", "clickables": self.clickables()}

    def choices(self) -> list[str]:
        """The actions the page accepts now, as typed (`search[...]`, `click[...]`): what a person
        answering as the LLM can send; the console lists them beside the variables."""
        if not self._started:
            return []
        if self._page.kind == "search":
            return ["search[<your query>]"]
        return [f"click[{label}]" for label in self.clickables()]

    def clickables(self) -> list[str]:
        page = self._page
        if page.kind == "search":
            return ["search"]
        if page.kind == "done":
            return []
        out = ["back to search"]
        if page.kind == "results":
            if page.number > 1:
                out.append("< prev")
            if page.number * PAGE_SIZE < len(page.results):
                out.append("next >")
            out += [a.lower() for a in self._page_asins()]
        elif page.kind == "item":
            out.append("< prev")
            product = self.catalogue.products[page.asin]
            for values in product.options.values():
                out += [v.lower() for v in values]
            out += ["description", "features", "reviews", "buy now"]
        else:
            out.append("< prev")
        return out

    def _page_asins(self) -> list[str]:
        start = (self._page.number - 1) * PAGE_SIZE
        return self._page.results[start:start + PAGE_SIZE]

    def observation(self) -> str:
        page = self._page
        head = ["Instruction:", self.goal.instruction]
        if page.kind == "search":
            return SEP.join(["WebShop", *head, "Search"])
        if page.kind == "done":
            product = self.purchased
            assert product is not None and self.result is not None
            chosen = ", ".join(f"{k}: {v}" for k, v in page.chosen.items()) or "none"
            return SEP.join(["Thank you for shopping with us!", "Purchased", product.asin, product.title,
                             f"Options: {chosen}", "Your score (min 0.0, max 1.0)", f"{self.reward:.2f}"])
        parts = [*head, "Back to Search"]
        if page.kind == "results":
            if page.number > 1:
                parts.append("< Prev")
            parts.append(f"Page {page.number} (Total results: {len(page.results)})")
            if page.number * PAGE_SIZE < len(page.results):
                parts.append("Next >")
            for asin in self._page_asins():
                product = self.catalogue.products[asin]
                parts += [asin, product.title, f"${product.price:.2f}"]
            if not page.results:
                parts.append("No products match the query.")
            return SEP.join(parts)
        product = self.catalogue.products[page.asin]
        parts.append("< Prev")
        if page.kind == "item":
            for name, values in product.options.items():
                parts += [name, *values]
            if page.chosen:
                parts.append("Selected: " + ", ".join(f"{k}: {v}" for k, v in page.chosen.items()))
            rating = "N.A." if product.rating is None else f"{product.rating:g}"
            parts += [product.title, f"Price: ${product.price:.2f}", f"Rating: {rating}", "Description", "Features",
                      "Reviews", "Buy Now"]
        elif page.kind == "description":
            parts.append(product.description or "(no description)")
        elif page.kind == "features":
            parts += list(product.features) or ["(no features)"]
        else:
            reviews = [f"{stars:g} stars: {text}" for stars, text in product.reviews]
            parts += reviews or ["(no reviews)"]
        return SEP.join(parts)

    # ---------------------------------------------------------------- actions
    def _apply(self, action: str) -> str:
        """Carry out one action; '' when done, else the one line saying why nothing happened."""
        m = _ACTION.match(action or "")
        if not m:
            return f"Invalid action {action!r}: write search[query] or click[label]."
        verb, arg = m.group(1).lower(), m.group(2).strip()
        page = self._page
        if verb == "search":
            if page.kind != "search":
                return "Invalid action: there is no search bar on this page; click[Back to Search] first."
            if not arg:
                return "Invalid action: search[] needs words, e.g. search[red running shoes]."
            self._page = _Page("results", query=arg, results=list(self._search(arg)))
            return ""
        label = norm(arg)
        if label not in self.clickables():
            shown = ", ".join(self.clickables()[:12])
            return f"Invalid action: {arg!r} is not clickable on this page (clickables: {shown})."
        if label == "back to search":
            self._page = _Page()
        elif page.kind == "results":
            if label == "next >":
                page.number += 1
            elif label == "< prev":
                page.number -= 1
            else:
                asin = next(a for a in self._page_asins() if a.lower() == label)
                self._page = _Page("item", page.query, page.results, page.number, asin)
        elif page.kind == "item":
            product = self.catalogue.products[page.asin]
            if label == "< prev":
                self._page = _Page("results", page.query, page.results, page.number)
            elif label in SUB_VIEWS:
                page.kind = label
            elif label == "buy now":
                self._buy(product)
            else:
                name = next(n for n, vs in product.options.items() if label in (v.lower() for v in vs))
                page.chosen[name] = next(v for v in product.options[name] if v.lower() == label)
        else:  # a sub-view: its only other clickable is < prev
            page.kind = "item"
        return ""

    def _buy(self, product: Product) -> None:
        self.result = reward(self.goal, product, self._page.chosen)
        self.purchased = product
        old = self.score
        self.reward = self.result.total
        self.score = round(self.reward * 100, 1)
        self.score_log.append((self._steps, old, self.score))
        self._page.kind = "done"

    def __repr__(self) -> str:
        return f"WebShopEnv(goal {self.goal_index}, max_steps={self.max_steps}, source={self.catalogue.source!r})"


def parse_goal(episode: str) -> int:
    text = str(episode).strip()
    if not text.isdigit():
        raise EnvError(f"WebShop episodes are goal numbers, e.g. webshop:0; got {episode!r}")
    return int(text)
