"""Examples are chosen per task type, so a prompt carries one task's example, not all of them: on
ScienceWorld a task with no example of its own gets the example of a task of the same topic
(boil gets melt's: both are changes of state), for every agent's way of keeping examples."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.runtime.prompts import PromptSet, kindred_task_types

AGENTS_DIR = Path(__file__).resolve().parents[2] / "agent" / "agents"
SETS = {  # agent -> (prompt set, how its examples are read)
    "recode": (PromptSet(), lambda p, t: p.examples("sciworld", t)),
    "react": (PromptSet(AGENTS_DIR / "react" / "prompts"), lambda p, t: p.examples("sciworld", t)),
    "codeact": (PromptSet(AGENTS_DIR / "codeact" / "prompts"), lambda p, t: p.examples("sciworld", t)),
    "plan-execute": (PromptSet(AGENTS_DIR / "plan_execute" / "prompts"),
                     lambda p, t: p.example_file("sciworld", "planner_examples", t)),
    "recap": (PromptSet(AGENTS_DIR / "recap" / "prompts"), lambda p, t: p.example_file("sciworld", "examples", t)),
}


def test_the_kin_of_a_task_are_the_tasks_of_its_topic() -> None:
    assert set(kindred_task_types("sciworld", "boil")) == {"melt", "freeze", "change-the-state-of-matter-of"}
    assert kindred_task_types("alfworld", "put") == () and kindred_task_types("nowhere", "x") == ()


@pytest.mark.parametrize("agent", SETS)
def test_a_task_without_its_own_example_gets_one_of_its_topic_and_no_other(agent: str) -> None:
    prompts, read = SETS[agent]
    boil = read(prompts, "boil")
    assert "Your task is to melt ice" in boil, f"{agent}: boil should get melt's example"
    assert "find a(n) animal" not in boil and "light bulb" not in boil
    animal = read(prompts, "find-living-thing")  # classification: find-animal's
    assert "find a(n) animal" in animal and "melt ice" not in animal
    assert read(prompts, "find-animal") == animal


@pytest.mark.parametrize("agent", SETS)
def test_every_sciworld_task_gets_exactly_one_example(agent: str) -> None:
    from envs.sciworld.tasks import task_names

    prompts, read = SETS[agent]
    for task in task_names():
        text = read(prompts, task)
        assert text and len({line for line in text.splitlines() if line.startswith(("Task: ", "- instruction"))}) == 1, (
            agent, task)
