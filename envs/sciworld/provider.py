"""ScienceWorld behind the environment seam (see envs.registry).

Episodes are `task/variation` with the simulator's own variation numbers
(`boil/0`; `episodes("test")` lists `boil/21` ...). The splits are the
simulator's train/dev/test lists, fetched from the JVM once and cached per
ScienceWorld version in the user cache folder.

Step limits: the ReCode reference's per-task limits are not available offline,
so each task gets 1.5x the length of the gold path of its first test
variation (measured here with scienceworld 1.2.3, under each setting:
`benchmarks/bench_sciworld_gold.py --lengths`), rounded up to 10 and at least
50 (ALFWorld's paper limit): room for the gold path plus half again for
exploring and mistakes. Unknown tasks fall back to 100.
"""

from __future__ import annotations

import hashlib
import threading
from typing import Iterable

from envs.base import Env, EnvError
from envs.registry import Episode
from envs.sciworld.env import SciWorldEnv, parse_episode
from envs.sciworld.simulator import shared_simulator
from envs.sciworld.tasks import all_tasks, find_task, simplifications_for, task_names
from envs.sciworld.variations import scienceworld_version as _version
from envs.sciworld.variations import variation_table

SPLITS = ("train", "dev", "test")
_gold_lock = threading.Lock()
ENV_NAMES = {"easy": "sciworld", "none": "sciworld-full"}  # setting -> registry name (see envs/registry.py)
DEFAULT_MAX_STEPS = 100

STEP_LIMITS: dict[str, int] = {
    "boil": 120,  # gold path 78
    "melt": 90,  # gold path 56
    "freeze": 110,  # gold path 73
    "change-the-state-of-matter-of": 90,  # gold path 56
    "use-thermometer": 50,  # gold path 14
    "measure-melting-point-known-substance": 50,  # gold path 31
    "measure-melting-point-unknown-substance": 150,  # gold path 96
    "power-component": 50,  # gold path 9
    "power-component-renewable-vs-nonrenewable-energy": 50,  # gold path 11
    "test-conductivity": 50,  # gold path 15
    "test-conductivity-of-unknown-substances": 50,  # gold path 19
    "find-living-thing": 50,  # gold path 16
    "find-non-living-thing": 50,  # gold path 7
    "find-plant": 50,  # gold path 12
    "find-animal": 50,  # gold path 16
    "grow-plant": 110,  # gold path 69
    "grow-fruit": 110,  # gold path 69
    "chemistry-mix": 50,  # gold path 19
    "chemistry-mix-paint-secondary-color": 50,  # gold path 7
    "chemistry-mix-paint-tertiary-color": 50,  # gold path 14
    "lifespan-longest-lived": 50,  # gold path 4
    "lifespan-shortest-lived": 50,  # gold path 4
    "lifespan-longest-lived-then-shortest-lived": 50,  # gold path 5
    "identify-life-stages-1": 70,  # gold path 42
    "identify-life-stages-2": 50,  # gold path 12
    "inclined-plane-determine-angle": 120,  # gold path 76
    "inclined-plane-friction-named-surfaces": 170,  # gold path 111
    "inclined-plane-friction-unnamed-surfaces": 290,  # gold path 192
    "mendelian-genetics-known-plant": 200,  # gold path 132
    "mendelian-genetics-unknown-plant": 200,  # gold path 128
}
# Without the simplifications (`sciworld-full`) three gold paths are longer; the others are the same length.
STEP_LIMITS_FULL: dict[str, int] = {
    "grow-fruit": 130,  # gold path 83 (the pots need watering)
    "mendelian-genetics-known-plant": 230,  # gold path 149
    "mendelian-genetics-unknown-plant": 220,  # gold path 146
}


def step_limit(task: str, setting: str = "easy") -> int:
    if setting == "none" and task in STEP_LIMITS_FULL:
        return STEP_LIMITS_FULL[task]
    return STEP_LIMITS.get(task, DEFAULT_MAX_STEPS)


class SciWorldProvider:
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
        """The task's own step limit (see STEP_LIMITS): used when the user gives no --max-steps."""
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


def full_provider() -> SciWorldProvider:
    """`--env sciworld-full`: ScienceWorld without the "easy" simplifications (closed doors, no teleport, ...)."""
    return SciWorldProvider("none")
