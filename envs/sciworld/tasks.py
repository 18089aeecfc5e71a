"""The 30 ScienceWorld tasks by name, read from the wheel's own task table (no JVM).

Tasks are referred to by name, never by number: numbering differs between the
simulator, the ScienceWorld paper and training sets. The paper's 10 topic
groups come from the first part of each task's id (`1-1` is group 1, Matter).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from envs.base import EnvError

# The ReCode reference's "easy" setting; electrical tasks keep their electrical actions.
EASY = "noElectricalAction,openDoors,selfWateringFlowerPots,teleportAction"
EASY_ELECTRICAL = "openDoors,selfWateringFlowerPots,teleportAction"
SIMPLIFICATION_CHOICES = ("easy", "none")
# The wheel's table names four of the paper's 10 topic groups just "Biology"; what each is about:
BIOLOGY_PARTS = {5: "growing plants", 7: "lifespans", 8: "life stages", 10: "genetics"}


@dataclass(frozen=True)
class SciTask:
    name: str  # e.g. "boil"
    title: str  # e.g. "Changes of State (Boiling)"
    topic: str  # e.g. "Matter"
    group: int  # 1..10, the ScienceWorld paper's topic numbering

    @property
    def electrical(self) -> bool:
        return "power-component" in self.name or "conductivity" in self.name

    @property
    def group_label(self) -> str:
        """`1 Matter`, ... `10 Biology (genetics)`: four groups share the topic Biology, so they say which part."""
        part = BIOLOGY_PARTS.get(self.group) if self.topic == "Biology" else None
        return f"{self.group} {self.topic}" + (f" ({part})" if part else "")


def _tasks_file() -> Path:
    try:
        import scienceworld
    except ImportError as exc:  # pragma: no cover - a dependency of the project
        raise EnvError("ScienceWorld is not installed: pip install scienceworld") from exc
    return Path(scienceworld.__file__).resolve().parent / "tasks.json"


@lru_cache(maxsize=1)
def all_tasks() -> tuple[SciTask, ...]:
    rows = json.loads(_tasks_file().read_text(encoding="utf-8"))
    return tuple(
        SciTask(r["task_name"], r.get("task", ""), r.get("topic", ""), int(str(r["task_id"]).split("-")[0]))
        for r in rows
    )


def task_names() -> tuple[str, ...]:
    return tuple(t.name for t in all_tasks())


def find_task(name: str) -> SciTask:
    for task in all_tasks():
        if task.name == name:
            return task
    close = [t for t in task_names() if name and (name in t or t in name)]
    hint = f"did you mean {', '.join(close[:3])}? " if close else ""
    raise EnvError(f"unknown ScienceWorld task {name!r}; {hint}see `recode-tui games list --env sciworld`")


def simplifications_for(task: SciTask, setting: str) -> str:
    """The simulator's simplification string for a task under `easy` (the default) or `none`."""
    if setting == "none":
        return ""
    if setting != "easy":
        raise EnvError(f"unknown ScienceWorld setting {setting!r}; use one of: {', '.join(SIMPLIFICATION_CHOICES)}")
    return EASY_ELECTRICAL if task.electrical else EASY
