"""WebShop behind the environment seam (see envs.registry).

Episodes are goal numbers (`webshop:0`, `webshop:17`): indices into the
catalogue's goal list, the bundled one or the original's human goals when
$WEBSHOP_DATA is set (then they are the original's session indices). Task types
are the product categories. The step limit is the ReCode reference's 30.
`episodes("paper")` is the reference's 200 test goals, on the original data only.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Callable, Iterable

from envs.base import Env, EnvError, Episode
from envs.provider import EnvProvider
from envs.webshop.catalog import catalogue
from envs.webshop.model import DATA_VAR, Catalogue
from envs.webshop.env import DEFAULT_MAX_STEPS, WebShopEnv, norm, parse_goal
from envs.webshop.site import PAGE_SIZE
from envs.webshop.options import MODES
from envs.webshop.goal_order import HUMAN_GOALS_FILE, first_mismatch, read_texts
from envs.webshop.options import WebShopOptions, current
from envs.webshop.search import SearchIndex

# The reference's goal list is its data, not ours: it is read where the user keeps it, never bundled.
PAPER_GOALS_FILE = "paper_test_goals.json"
_CHECKOUT = Path(__file__).resolve().parents[2]
# the shared folder beside a source checkout, or beside the folder that holds worktrees of it
_REPO_SHARED = [folder / "shared" / "webshop" / PAPER_GOALS_FILE for folder in (_CHECKOUT.parent, _CHECKOUT.parents[1])]
NO_PAPER_SET = ("the bundled WebShop catalogue has no paper set: the paper's 200 test goals are goals of the "
                "original data; set WEBSHOP_DATA to its folder (items_shuffle*.json, items_human_ins.json), "
                "or drop --preset paper / --split paper")
_lock = threading.Lock()
_indexes: dict[str, tuple[SearchIndex, Callable[[list[int]], list[str]]]] = {}


def search_analysis(cat: Catalogue) -> str:
    """The search's analysis (envs.webshop.search): $WEBSHOP_SEARCH, else the original's."""
    return current().analysis


def search_for(cat: Catalogue):
    """The catalogue's search function (query -> asins, best first); its index built or loaded once a process."""
    analysis = search_analysis(cat)
    key = f"{cat.digest}-{analysis}"
    with _lock:
        if key not in _indexes:  # the products are read only when the index is not on disk yet
            texts = (p.search_text() if analysis == "original" else p.bundled_search_text()
                     for p in cat.products.in_order())
            index = SearchIndex.build(texts, key=cat.digest, analysis=analysis, size=len(cat.products))
            _indexes[key] = (index, cat.products.asins_at)
    index, asins_at = _indexes[key]
    return lambda query: asins_at(index.search(query))


def paper_goals_path() -> Path:
    """Where the reference's goal list is: $WEBSHOP_PAPER_GOALS, else beside $WEBSHOP_DATA, else the
    shared folder beside a source checkout."""
    options = current()
    for candidate in (options.paper_goals, os.path.join(options.data, PAPER_GOALS_FILE) if options.data else None,
                      *map(str, _REPO_SHARED)):
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    raise EnvError(f"the paper's WebShop test goals ({PAPER_GOALS_FILE}, the ReCode reference's list of 200 "
                   "session indices) are not here: set WEBSHOP_PAPER_GOALS to that file or put it in $WEBSHOP_DATA")


def paper_goals() -> list[int]:
    """The ReCode reference's 200 WebShop test goals (session indices of the original's human goals): from
    our file (`{"test_goals": [...]}`) or the reference's own `test_indices.json` (a bare JSON list)."""
    path = paper_goals_path()
    try:
        data = json.loads(path.read_text())
        indices = data["test_goals"] if isinstance(data, dict) else data
        return [int(i) for i in indices]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise EnvError(f"{path}: not a list of session indices nor an object with `test_goals` ({exc})") from None


def human_goals_path() -> Path | None:
    """The original's goal texts in session-index order (human_goals.json): beside $WEBSHOP_DATA, else in
    the shared folder beside a source checkout; None when neither has it."""
    data = current().data
    candidates = [Path(data) / HUMAN_GOALS_FILE] if data else []
    candidates += [path.with_name(HUMAN_GOALS_FILE) for path in _REPO_SHARED]
    return next((path for path in candidates if path.is_file()), None)


def goal_order_problem(cat: Catalogue) -> str | None:
    """One line when the original data's goals are not the original's in its order (None: they are, or
    there is nothing to check against)."""
    path = human_goals_path()
    if cat.bundled or path is None:
        return None
    try:
        return first_mismatch(cat.goals, read_texts(path))
    except (OSError, ValueError) as exc:
        return f"cannot check the goal order: {exc}"


def search_query(instruction: str) -> str:
    """The words of an instruction worth searching with: without its price clause."""
    text = instruction.lower()
    return text.split(", and price lower than")[0].split("price lower than")[0].strip(" ,.")


class WebShopProvider(EnvProvider):
    """`webshop`: the original's pages (`faithful`); `webshop-paper` (what `--preset paper` plays): the pages
    as the ReCode reference showed them (`recode`). $WEBSHOP_PAGES overrides either."""

    default_max_steps = DEFAULT_MAX_STEPS
    prompt_folder = "webshop"
    options_type = WebShopOptions

    def __init__(self, name: str = "webshop", pages: str = "faithful") -> None:
        self.name = name
        self.default_pages = pages
        self.paper_env: str | None = "webshop-paper" if name == "webshop" else None

    @property
    def pages(self) -> str:
        """The page mode: $WEBSHOP_PAGES, else this environment's own."""
        given = current().pages
        return given.lower() if given else self.default_pages

    @property
    def catalogue(self) -> Catalogue:
        return catalogue()

    @property
    def task_types(self) -> tuple[str, ...]:
        return self.catalogue.categories()

    def episodes(self, split: str | None = None, task_types: Iterable[str] | None = None) -> list[Episode]:
        cat = self.catalogue
        wanted = {t.lower() for t in task_types} if task_types is not None else None
        for name in wanted or ():
            if name not in {c.lower() for c in cat.categories()}:
                raise EnvError(f"no WebShop category {name!r}; use one of: {', '.join(cat.categories())}")
        if split in (None, "", "all", "test"):
            indices: list[int] = list(range(len(cat.goals)))
        elif split == "paper":
            if cat.bundled:
                raise EnvError(NO_PAPER_SET)
            indices = [i for i in paper_goals() if i < len(cat.goals)]
            if len(indices) < len(paper_goals()):
                raise EnvError(f"WEBSHOP_DATA has {len(cat.goals)} human goals; the paper's test goals go up to "
                               f"{max(paper_goals())}: give the original's full items_human_ins.json")
        else:
            raise EnvError(f"unknown WebShop split {split!r}; use all or paper")
        return [Episode(self.name, str(i), cat.goals[i].category, cat.goals[i].instruction)
                for i in indices if wanted is None or cat.goals[i].category.lower() in wanted]

    def episode(self, episode: str) -> Episode:
        goal = self.catalogue.goal(episode)
        return Episode(self.name, str(parse_goal(episode)), goal.category, goal.instruction)

    def preset_split(self, preset: str) -> str | None:
        """The split a preset plays when no --split is given: `paper` plays the reference's 200 goals."""
        return "paper" if preset == "paper" else None

    def make_env(self, episode: str, max_steps: int | None = None) -> Env:
        cat = self.catalogue
        index = parse_goal(episode)
        cat.goal(str(index))  # one line when it does not exist
        return WebShopEnv(cat, index, search_for(cat), max_steps or DEFAULT_MAX_STEPS, self.name, self.pages)

    def step_limit(self, episode: str) -> int:
        return DEFAULT_MAX_STEPS

    def env_settings(self) -> dict[str, str]:
        """What journals and reports record: the noun finder that gives the type factor."""
        from envs.webshop.nouns import noun_source

        cat = self.catalogue
        seed = {} if cat.price_seed is None else {"webshop_price_seed": str(cat.price_seed)}
        return {"webshop_pages": self.pages, "webshop_search": search_analysis(cat), "webshop_nouns": noun_source(),
                **seed}

    def preset_warnings(self, preset: str) -> list[str]:
        from envs.webshop.nouns import noun_source
        from envs.webshop.options import FALLBACK

        if preset != "paper" or self.catalogue.bundled:  # the bundled catalogue has no paper set
            return []
        warnings = []
        problem = goal_order_problem(self.catalogue)
        if problem:
            warnings.append(f"{DATA_VAR}: {problem}")
        if noun_source() == FALLBACK:
            warnings.append("WebShop's type factor comes from the word-list noun finder, not spaCy's tagger as in the "
                    "original: some rewards can differ; install `recode-tui[nouns]` and "
                    "`python -m spacy download en_core_web_sm` to score as the paper did")
        return warnings

    def warm(self) -> None:
        """Build or load the search index and load the noun tagger now (an eval worker does this first)."""
        from envs.webshop.nouns import noun_source

        search_for(self.catalogue)
        noun_source()

    def fingerprint(self, episode: str) -> str:
        cat = self.catalogue
        goal = cat.goal(episode)
        text = f"webshop {cat.digest} {parse_goal(episode)} {goal.asin} {goal.instruction} {self.pages}"
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def label(self, episode: str) -> str:
        goal = self.catalogue.goal(episode)
        return f"{parse_goal(episode)} · {goal.category}"

    def gold_actions(self, episode: str) -> list[str]:
        """Search with the instruction's words (the target's title if they do not find it), page to the
        target, click it, pick the goal's options and buy: the known solution a gold LLM plays."""
        cat = self.catalogue
        goal = cat.goal(episode)
        search = search_for(cat)
        product = cat.products[goal.asin]
        for query in (search_query(goal.instruction), product.title):
            results = search(query)[:50]
            if goal.asin in results:
                break
        else:
            raise EnvError(f"WebShop goal {episode}: its product {goal.asin} is not found by searching its words")
        page = results.index(goal.asin) // PAGE_SIZE
        actions = [f"search[{query}]", *["click[Next >]"] * page, f"click[{goal.asin.lower()}]"]
        names = goal.option_names or ("",) * len(goal.options)
        for name, wanted in zip(names, goal.options):
            values = product.options.get(name) or [v for vs in product.options.values() for v in vs]
            match = next((v for v in values if norm(v) == norm(wanted)), None)
            if match is not None:
                actions.append(f"click[{match}]")
        actions.append("click[Buy Now]")
        return actions


def paper_provider() -> WebShopProvider:
    """`--preset paper` on WebShop: the reference's 200 goals, shown as the reference showed them."""
    return WebShopProvider("webshop-paper", "recode")
