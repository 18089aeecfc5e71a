"""The ReCode reference's ScienceWorld benchmark: 24 tasks, 211 fixed test episodes, a step limit per task.

Facts from /work/shared/docs/sciworld-offline.md (the reference's own data files
are not available offline); variation numbers are the simulator's. The
reference leaves out the inclined-plane, Mendelian-genetics and
unknown-substance melting-point tasks, plays the "easy" simplifications, ends
an episode at its task's step limit, counts it a success when the simulator
says it is done with a score above 0, and reports the best score seen.
"""

from __future__ import annotations

# task -> (step limit, first test variation, last test variation), in the doc's order
PAPER_TASKS: dict[str, tuple[int, int, int]] = {
    "boil": (100, 21, 29),
    "change-the-state-of-matter-of": (80, 21, 29),
    "freeze": (80, 21, 29),
    "melt": (80, 21, 29),
    "measure-melting-point-known-substance": (120, 327, 336),
    "use-thermometer": (30, 405, 414),
    "power-component": (20, 15, 19),
    "power-component-renewable-vs-nonrenewable-energy": (30, 15, 19),
    "test-conductivity": (30, 675, 684),
    "test-conductivity-of-unknown-substances": (30, 450, 459),
    "find-animal": (15, 225, 234),
    "find-living-thing": (15, 225, 234),
    "find-non-living-thing": (15, 225, 234),
    "find-plant": (15, 225, 234),
    "grow-fruit": (60, 93, 102),
    "grow-plant": (30, 93, 102),
    "chemistry-mix": (60, 24, 31),
    "chemistry-mix-paint-secondary-color": (15, 27, 35),
    "chemistry-mix-paint-tertiary-color": (30, 27, 35),
    "lifespan-longest-lived": (10, 93, 102),
    "lifespan-shortest-lived": (10, 93, 102),
    "lifespan-longest-lived-then-shortest-lived": (12, 93, 102),
    "identify-life-stages-1": (30, 9, 13),
    "identify-life-stages-2": (30, 6, 9),
}
PAPER_SETTING = "easy"


def paper_episodes() -> list[str]:
    """The 211 episodes, `task/variation`, task by task in the table's order."""
    return [f"{task}/{v}" for task, (_, first, last) in PAPER_TASKS.items() for v in range(first, last + 1)]
