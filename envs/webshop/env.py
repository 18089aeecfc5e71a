"""One WebShop episode: the text-mode site (`site.Site`) and an instruction, as an Env an agent drives.

The page the agent sees is rendered by `pages.render` in the episode's mode: `faithful` (the
original's `[SEP]` text observation, byte for byte) or `recode` (the page as the ReCode reference
showed it to its agents; `--preset paper`). Actions are the original's (see `site`): an action the
page does not take does nothing and the same page comes back; it still counts as a step. The
episode ends at the purchase or at the step limit; it is won at reward 1.0 (the ReCode
reference's rule). `reward` (0-1) is kept always; `score` is it times 100 (the scale the console
and eval show). What the console shows beside the page (the options chosen, the page's actions)
comes from `selected()` and `choices()`, never from the observation.
"""

from __future__ import annotations

from envs.base import Env, EnvError, Reset
from envs.webshop.model import Catalogue, Goal, Product
from envs.webshop.options import MODES
from envs.webshop.pages import render
from envs.webshop.reward import Reward, reward
from envs.webshop.site import Site

DEFAULT_MAX_STEPS = 30  # the ReCode reference's WebShop limit
__all__ = ["DEFAULT_MAX_STEPS", "WebShopEnv", "norm", "parse_goal"]


def norm(text: str) -> str:
    return " ".join(text.lower().split())


class WebShopEnv(Env):
    """A WebShop goal on a catalogue (see the module docstring)."""

    name = "webshop"
    reward: float = 0.0
    score: float = 0.0
    score_log: list[tuple[int, float, float]] = []  # each episode's own list, made in __init__

    def __init__(self, catalogue: Catalogue, goal_index: int, search, max_steps: int = DEFAULT_MAX_STEPS,
                 env_name: str = "webshop", mode: str = "faithful") -> None:
        if mode not in MODES:
            raise EnvError(f"unknown WebShop page mode {mode!r}; use one of: {', '.join(MODES)}")
        self.catalogue = catalogue
        self.goal_index = int(goal_index)
        self.goal: Goal = catalogue.goal(str(goal_index))
        self.task_type: str | None = self.goal.category
        self.max_steps = int(max_steps)
        self.name = env_name
        self.mode = mode
        self._search = search  # query -> list of asins, best first
        self.site = Site(catalogue, search, lower_verbs=mode == "recode")
        self._steps = 0
        self._started = False
        self.purchased: Product | None = None
        self.result: Reward | None = None
        self.reward = 0.0
        self.score = 0.0
        self.score_log = []
        self._not_taken: str | None = None  # the page shown again after an action it did not take

    # ---------------------------------------------------------------- protocol
    def reset(self) -> Reset:
        self.site = Site(self.catalogue, self._search, lower_verbs=self.mode == "recode")
        self._steps, self._started = 0, True
        self.purchased, self.result, self.reward, self.score, self.score_log = None, None, 0.0, 0.0, []
        self._not_taken = None
        observation = self.observation()
        return Reset(instruction=self.goal.instruction, observation=observation, raw=observation)

    def step(self, action: str) -> str:
        if not self._started:
            raise RuntimeError("call reset() before step()")
        if self.done:
            return f"The episode is over ({self.end_reason}); no more actions are accepted."
        self._steps += 1
        taken = self.site.act(action)
        if taken == "buy":
            self._buy(self.site.product)
        observation = self.observation()
        self._not_taken = observation if not taken else None
        return observation

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

    def is_invalid(self, observation: str) -> bool:
        """The page did not take the last action (no such search box or clickable): it shows the same page
        again, and the step is spent."""
        return self._not_taken is not None and observation == self._not_taken

    def close(self) -> None:
        self._started = False

    # ---------------------------------------------------------------- pages
    def available_actions(self) -> dict:
        """The page's search bar and clickables (the original's `get_available_actions`)."""
        return {"has_search_bar": self.site.state.page == "search", "clickables": self.clickables()}

    def clickables(self) -> list[str]:
        return list(self.site.clickables())

    def choices(self) -> list[str]:
        """The actions the page takes now, as typed: what a person answering as the LLM can send (the
        console lists them beside the variables)."""
        if not self._started or self.done:
            return []
        chosen = set(self.site.state.options.items()) if self.site.state.page == "item" else set()
        labels = self.site.clickables().items()
        return ["search[<your query>]", *(f"click[{label}]" + ("  (selected)" if (kind, label) in chosen else "")
                                          for label, kind in labels if label != "search")]

    def selected(self) -> dict[str, str]:
        """The options chosen on the item page (the console shows them; the page does not)."""
        return dict(self.site.state.options)

    def observation(self) -> str:
        return render(self.mode, self.site, self.goal.instruction, self.reward if self.purchased else None)

    def _buy(self, product: Product) -> None:
        self.result = reward(self.goal, product, self.site.state.options)
        self.purchased = product
        old = self.score
        self.reward = self.result.total
        self.score = round(self.reward * 100, 1)
        self.score_log.append((self._steps, old, self.score))

    def __repr__(self) -> str:
        return (f"WebShopEnv(goal {self.goal_index}, max_steps={self.max_steps}, mode={self.mode!r}, "
                f"source={self.catalogue.source!r})")


def parse_goal(episode: str) -> int:
    text = str(episode).strip()
    if not text.isdigit():
        raise EnvError(f"WebShop episodes are goal numbers, e.g. webshop:0; got {episode!r}")
    return int(text)
