"""ScienceWorld behind the environment seam (see envs.registry).

Episodes are `task/variation` with the simulator's own variation numbers
(`boil/0`; `episodes("test")` lists `boil/21` ...). The splits are the
simulator's train/dev/test lists, fetched from the JVM once and cached per
ScienceWorld version in the user cache folder.

Step limits (see envs/sciworld/limits.py): 1.5x the longest gold path over
every variation of every split under the setting, rounded up to 10 and at
least 50, from the lengths `python -m envs.sciworld.derive_limits` measured
into envs/sciworld/gold_lengths.json. Unknown tasks fall back to 100.
"""

from __future__ import annotations

import hashlib
import threading
from typing import Iterable

from envs.base import Env, EnvError, Episode
from envs.provider import EnvProvider
from envs.sciworld import limits
from envs.sciworld.env import SciWorldEnv, parse_episode
from envs.sciworld.paper import PAPER_TASKS, paper_episodes
from envs.sciworld.simulator import shared_simulator
from envs.sciworld.tasks import all_tasks, find_task, simplifications_for, task_names
from envs.sciworld.variations import scienceworld_version as _version
from envs.sciworld.variations import variation_table

SPLITS = ("train", "dev", "test")
_gold_lock = threading.Lock()
ENV_NAMES = {"easy": "sciworld", "none": "sciworld-full"}  # setting -> registry name (see envs/registry.py)
DEFAULT_MAX_STEPS = limits.DEFAULT_MAX_STEPS


def step_limit(task: str, setting: str = "easy") -> int:
    """A task's step limit under a setting (the rule in envs/sciworld/limits.py)."""
    return limits.step_limit(task, setting)


# Each task's limit under "easy", by name (benchmarks/bench_sciworld_gold.py prints it next to its own rule).
STEP_LIMITS: dict[str, int] = {task: step_limit(task) for task in limits.FALLBACK_LIMITS}


class SciWorldProvider(EnvProvider):
    """The ScienceWorld simulator (a JVM per process) under a setting of simplifications.

    `--env sciworld` is the ReCode reference's "easy" setting (no electrical
    actions, doors open, self-watering pots, teleport); `--env sciworld-full`
    is the simulator without simplifications. The setting is part of the
    environment's name, so journals, eval plans and their worker processes all
    carry it, and of the fingerprint, so a resume under the other one is refused.
    """

    default_max_steps = DEFAULT_MAX_STEPS
    prompt_folder = "sciworld"

    def __init__(self, setting: str = "easy") -> None:
        if setting not in ENV_NAMES:
            raise EnvError(f"unknown ScienceWorld setting {setting!r}; use one of: {', '.join(ENV_NAMES)}")
        self.setting = setting
        self.name = ENV_NAMES[setting]
        # what `--preset paper` plays instead (the reference's benchmark is in the "easy" setting only)
        self.paper_env: str | None = "sciworld-paper" if setting == "easy" else None

    @property
    def task_types(self) -> tuple[str, ...]:
        return task_names()

    def topic_of(self, task_type: str) -> str:
        """The ScienceWorld paper's topic group of a task (for reporting)."""
        return find_task(task_type).group_label

    def episodes(self, split: str | None = None, task_types: Iterable[str] | None = None) -> list[Episode]:
        split = split or "test"
        if split not in SPLITS:
            raise EnvError(f"unknown ScienceWorld split {split!r}; use one of: {', '.join(SPLITS)}")
        wanted = set(task_types) if task_types is not None else None
        for name in wanted or ():
            find_task(name)  # one line naming the task when it is unknown
        table = variation_table()
        return [
            Episode(self.name, f"{task.name}/{variation}", task.name, task.title)
            for task in all_tasks()
            if wanted is None or task.name in wanted
            for variation in table[task.name][split]
        ]

    def episode(self, episode: str) -> Episode:
        """One episode by id (`boil/3`), with its task as type (EnvError naming the task when unknown)."""
        task, variation = parse_episode(episode)
        return Episode(self.name, f"{task.name}/{variation}", task.name, task.title)

    def overview(self, task_types: Iterable[str] | None = None) -> list[str]:
        """`games list --env sciworld`: one line a task with its train/dev/test variation counts."""
        wanted = set(task_types) if task_types is not None else None
        for name in wanted or ():
            find_task(name)
        table = variation_table()
        width = max(len(t.name) for t in all_tasks())
        lines = [f"{'task':<{width}}  {'train':>5} {'dev':>4} {'test':>4}  topic · title   (episodes: TASK/VARIATION, e.g. boil/0)"]
        for task in all_tasks():
            if wanted is None or task.name in wanted:
                counts = table[task.name]
                lines.append(f"{task.name:<{width}}  {len(counts['train']):>5} {len(counts['dev']):>4} "
                             f"{len(counts['test']):>4}  {task.group_label} · {task.title}")
        return lines

    def make_env(self, episode: str, max_steps: int | None = None) -> Env:
        task, _ = parse_episode(episode)
        return SciWorldEnv(episode, max_steps=max_steps or step_limit(task.name, self.setting), setting=self.setting)

    def step_limit(self, episode: str) -> int:
        """The task's own step limit (see envs/sciworld/limits.py): used when the user gives no --max-steps."""
        task, _ = parse_episode(episode)
        return step_limit(task.name, self.setting)

    def warm(self) -> None:
        """Start this process's JVM now (an eval worker does this while the parent sets up)."""
        shared_simulator().env()

    def fingerprint(self, episode: str) -> str:
        task, variation = parse_episode(episode)
        text = f"scienceworld {_version()} {task.name}/{variation} {simplifications_for(task, self.setting)}"
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def label(self, episode: str) -> str:
        task, variation = parse_episode(episode)
        return f"{task.name}/{variation}"

    def gold_actions(self, episode: str) -> list[str]:
        """The simulator's gold action sequence for a variation (a scripted LLM plays it)."""
        task, variation = parse_episode(episode)
        SciWorldEnv(episode, setting=self.setting)._check_variation()  # the valid range, in one line
        simulator = shared_simulator()
        with _gold_lock:  # eval asks from threads: one load-then-read at a time
            simulator.load(task.name, variation, simplifications_for(task, self.setting), gold=True)
            actions = simulator.gold_actions()
            simulator.loaded = None  # the next episode loads again without the gold path
        return actions


class PaperSciWorldProvider(SciWorldProvider):
    """The ReCode reference's ScienceWorld benchmark (`--preset paper --env sciworld` plays this).

    Its 24 tasks and 211 fixed test episodes, each task with the reference's
    step limit, in the "easy" setting, under its success rule: done with a
    score above 0, the reward being the best score seen (envs/sciworld/paper.py).
    Tasks outside the 24 are refused; `gold_cannot_win` names the episodes whose
    gold path is longer than their limit (from gold_lengths.json).
    """

    def __init__(self) -> None:
        super().__init__("easy")
        self.name = "sciworld-paper"

    @property
    def task_types(self) -> tuple[str, ...]:
        return tuple(PAPER_TASKS)

    def _paper_task(self, episode: str) -> tuple[str, int]:
        task, variation = parse_episode(episode)
        if task.name not in PAPER_TASKS:
            raise EnvError(f"{task.name} is not one of the reference's 24 ScienceWorld tasks (--preset paper); "
                           "play it without --preset paper")
        return task.name, variation

    def episodes(self, split: str | None = None, task_types: Iterable[str] | None = None) -> list[Episode]:
        if split not in (None, "test"):
            raise EnvError(f"the reference's ScienceWorld benchmark is 211 test episodes; --split {split} is not "
                           "part of it (use --env sciworld without --preset paper)")
        wanted = set(task_types) if task_types is not None else None
        for name in wanted or ():
            find_task(name)
            if name not in PAPER_TASKS:
                raise EnvError(f"{name} is not one of the reference's 24 ScienceWorld tasks (--preset paper); "
                               "play it without --preset paper")
        return [self.episode(e) for e in paper_episodes() if wanted is None or e.partition("/")[0] in wanted]

    def episode(self, episode: str) -> Episode:
        self._paper_task(episode)
        return super().episode(episode)

    def overview(self, task_types: Iterable[str] | None = None) -> list[str]:
        width = max(len(t) for t in PAPER_TASKS)
        lines = [f"{'task':<{width}}  limit  test variations   (the ReCode reference's 211 episodes, --preset paper)"]
        for task, (limit, first, last) in PAPER_TASKS.items():
            if task_types is None or task in set(task_types):
                lines.append(f"{task:<{width}}  {limit:>5}  {first}-{last}")
        return lines

    def make_env(self, episode: str, max_steps: int | None = None) -> Env:
        name, _ = self._paper_task(episode)
        return SciWorldEnv(episode, max_steps=max_steps or PAPER_TASKS[name][0], setting="easy", rule="paper")

    def step_limit(self, episode: str) -> int:
        """The reference's limit for the episode's task."""
        return PAPER_TASKS[self._paper_task(episode)[0]][0]

    def fingerprint(self, episode: str) -> str:
        return super().fingerprint(episode) + "-paper"

    def gold_cannot_win(self, episodes: Iterable[str] | None = None) -> dict[str, str]:
        """Episode -> why its own gold path cannot win within the reference's limit.

        From the replays in paper_gold_wins.json when the episode is there (the
        step at which the gold path wins under the reference's rule: often a
        few actions before it ends), else from its length in gold_lengths.json
        (the conservative side). One measurement each: a gold path changes
        somewhat with what the JVM loaded before.
        """
        out: dict[str, str] = {}
        replays = limits.paper_gold_wins()
        for episode in paper_episodes() if episodes is None else episodes:
            name, variation = self._paper_task(episode)
            limit = PAPER_TASKS[name][0]
            replay = replays.get(f"{name}/{variation}")
            if replay is not None:
                wins_at = replay.get("wins_at")
                if wins_at is None:
                    out[episode] = f"gold path ({replay.get('gold')} actions) never wins"
                elif wins_at > limit:
                    out[episode] = f"gold path wins at step {wins_at} > limit {limit}"
                continue
            length = limits.gold_length(name, variation, "easy")
            if length is None:
                out[episode] = f"gold path not measured (limit {limit})"
            elif length > limit:
                out[episode] = f"gold path {length} > limit {limit}"
        return out


def paper_provider() -> PaperSciWorldProvider:
    """`--preset paper` on ScienceWorld: the reference's 211 episodes, limits and success rule."""
    return PaperSciWorldProvider()


def full_provider() -> SciWorldProvider:
    """`--env sciworld-full`: ScienceWorld without the "easy" simplifications (closed doors, no teleport, ...)."""
    return SciWorldProvider("none")
