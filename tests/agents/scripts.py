"""Scripted answer lists for the baseline agents, written from the bundled games' walkthroughs."""

from __future__ import annotations

import json
import re
from pathlib import Path

from envs.alfworld.catalog import list_games
from envs.alfworld.env import AlfworldEnv
from mockllm.scripted import ScriptEntry, ScriptedLLM

TASK_TYPES = ["put", "clean", "heat", "cool", "examine", "puttwo"]


def walkthrough(episode_ref: str) -> list[str]:
    return list(AlfworldEnv(episode_ref).walkthrough or [])


def react_answer(action: str, thought: str = "the next step of my plan") -> str:
    return f"Thought: {thought}\nAction: {action}"


def react_llm(actions: list[str]) -> ScriptedLLM:
    """One answer per turn, in order (`once`), for the `act` calls."""
    return ScriptedLLM([ScriptEntry(react_answer(a), purpose="act", once=True) for a in actions])


def cell_answer(code: str, thought: str = "the next cell") -> str:
    return f"<think>{thought}</think>\n<execute>\n{code}\n</execute>"


def loop_cell(actions: list[str]) -> str:
    return f"for action in {json.dumps(actions)}:\n    run(action)"


def task_when(task: str) -> str:
    """A `when` pattern for the prompt of the episode whose task is `task` (not a few-shot example's)."""
    return r"# Your task\nTask: " + re.escape(task) + r"\n"


def react_script_file(path: Path, games: list[str]) -> Path:
    """A JSON Lines script that wins each of `games` with ReAct: turn N of a game answers its N-th step."""
    entries = []
    for game in games:
        env = AlfworldEnv(game)
        for number, action in enumerate(env.walkthrough or [], start=1):
            entries.append({"stub": f"turn {number}", "purpose": "act", "when": task_when(env.task),
                            "answer": react_answer(action)})
    path.write_text("\n".join(json.dumps(e) for e in entries) + "\n")
    return path


def first_game(task_type: str) -> str:
    return list_games([task_type])[0].id
