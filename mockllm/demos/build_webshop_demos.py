"""Write the WebShop demos of the baseline agents (`--llm demo --env webshop --agent react|codeact|plan-execute|recap`).

ReCode's WebShop demo (`webshop.yaml`) is generic code; the other agents answer
in text a script cannot compute, so, as for ALFWorld, their demos replay each
bundled instruction's known path (search with its words, page to the product,
open it, pick the asked-for options, buy) in the agent's own answer format.
Every entry is `once` and keyed to its instruction by the prompt's task line
(not the few-shot examples' lines, which are not under "# Your task"/"# The task"):

- react:        one `Thought:/Action:` answer per action;
- codeact:      a cell that searches and opens the product, a cell that picks the options and buys;
- plan-execute: a JSON plan (find, open, pick and buy), the executor's actions and a `Done:` per step;
- recap:        the three parts as subtasks, each decomposed into its actions.

Run it again after the bundled catalogue changes:

    python mockllm/demos/build_webshop_demos.py
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any, Iterator

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))  # run as a script from anywhere in the project

from envs import registry  # noqa: E402

AGENTS = ("react", "codeact", "plan-execute", "recap")
Entry = dict[str, object]


class Goal:
    """One bundled instruction: how its prompts are recognised, and its path in three parts."""

    def __init__(self, goal_id: str, instruction: str, price: float | None, actions: list[str]) -> None:
        self.id, self.instruction, self.price = goal_id, instruction, price
        product = next(a for a in actions if re.fullmatch(r"click\[b0[a-z0-9]{8}\]", a))
        at = actions.index(product)
        self.find, self.open, self.buy = actions[:at], [product], actions[at + 1:]
        self.asin = product[len("click["):-1].upper()
        self.options = [a[len("click["):-1] for a in self.buy[:-1]]
        self.when = r"# (?:Your|The) task\s+Task: " + re.escape(instruction) + r"\n"

    @property
    def actions(self) -> list[str]:
        return self.find + self.open + self.buy

    def descriptions(self) -> list[str]:
        pages = len(self.find) - 1
        chosen = " and ".join(self.options) or "no option"
        return [f"search with the instruction's words{' and page to results page ' + str(pages + 1) if pages else ''}",
                f"open product {self.asin}, which has the attributes under the price limit",
                f"select {chosen} and buy product {self.asin}"]


def bundled_goals() -> list[Goal]:
    # WebShop's own provider: its catalogue and gold plans are not EnvProvider's (and envs.webshop is not imported here)
    provider: Any = registry.provider("webshop")
    out = []
    for episode in provider.episodes():
        goal = provider.catalogue.goal(episode.id)
        out.append(Goal(episode.id, goal.instruction, goal.price_upper, provider.gold_actions(episode.id)))
    return out


def _entry(goal: Goal, purpose: str, answer: str, when: str | None = None) -> Entry:
    return {"game": f"webshop:{goal.id}", "purpose": purpose, "when": when or goal.when, "once": True,
            "answer": answer}


def thought_for(goal: Goal, action: str) -> str:
    if action.startswith("search["):
        return "I search with the product's words from the instruction."
    if action == "click[Next >]":
        return "None of these fits both the attributes and the price limit; the next page."
    if action in goal.open:
        return f"{goal.asin} names the attributes and is under the price limit; I open it to see its options."
    if action == "click[Buy Now]":
        return "The asked-for options are selected and the price is under the limit: buy."
    return f"The instruction asks for {action[len('click['):-1]}, and this page offers it; I select it."


def react(goal: Goal) -> Iterator[Entry]:
    for action in goal.actions:
        yield _entry(goal, "act", f"Thought: {thought_for(goal, action)}\nAction: {action}")


def codeact(goal: Goal) -> Iterator[Entry]:
    first = ("for action in " + json.dumps(goal.find + goal.open) + ":\n    page = run(action)\n"
             "print(\"options offered:\", [o for o in " + json.dumps(goal.options) + " if f\"[SEP] {o} [SEP]\" in page])")
    yield _entry(goal, "act", "<think>I search with the instruction's words and open the product that names its "
                 f"attributes under the price limit ({goal.asin}), checking that it offers the options.</think>\n"
                 f"<execute>\n{first}\n</execute>")
    second = ("for value in " + json.dumps(goal.options) + ":\n    run(f\"click[{value}]\")\nrun(\"click[Buy Now]\")")
    yield _entry(goal, "act", "<think>The options are offered: I select each and buy.</think>\n"
                 f"<execute>\n{second}\n</execute>")


def plan_execute(goal: Goal) -> Iterator[Entry]:
    parts, descriptions = [goal.find, goal.open, goal.buy], goal.descriptions()
    steps = [{"id": f"s{i}", "description": d, "depends_on": [f"s{i - 1}"] if i > 1 else []}
             for i, d in enumerate(descriptions, 1)]
    yield _entry(goal, "plan", json.dumps({"thought": "Find the product, open it, then pick the options and buy.",
                                           "steps": steps}))
    for description, part in zip(descriptions, parts):
        when = ("Task of the whole run: " + re.escape(goal.instruction) + r"\n[\s\S]*Your step: [^\n]*"
                + re.escape(description))
        for action in part:
            yield _entry(goal, "act", f"Thought: {thought_for(goal, action)}\nAction: {action}", when)
        if part is not goal.buy:  # buying ends the episode before the step can say done
            yield _entry(goal, "act", f"Thought: the step is achieved\nDone: {description}", when)


def recap(goal: Goal) -> Iterator[Entry]:
    def listing(items: list[str], kind: str) -> str:
        return "\n".join(f"{i}. {kind}: {item}" for i, item in enumerate(items, 1))

    parts, goals = [goal.find, goal.open, goal.buy], goal.descriptions()
    yield _entry(goal, "decompose", f"Thought: find, open, then pick and buy\nSubtasks:\n{listing(goals, 'subtask')}")
    for index, part in enumerate(parts):
        yield _entry(goal, "decompose", f"Thought: {thought_for(goal, part[0])}\nSubtasks:\n{listing(part, 'action')}")
        for rest in range(1, len(part)):
            yield _entry(goal, "refine", f"Thought: {thought_for(goal, part[rest])}\nSubtasks:\n"
                                         f"{listing(part[rest:], 'action')}")
        if index < len(parts) - 1:  # buying ends the episode before its level can say done
            yield _entry(goal, "refine", f"Thought: this part is done\nDone: {goals[index]}")
            yield _entry(goal, "refine", f"Thought: on to the next part\nSubtasks:\n{listing(goals[index + 1:], 'subtask')}")


WRITERS = {"react": react, "codeact": codeact, "plan-execute": plan_execute, "recap": recap}


def demo_path(agent_name: str) -> Path:
    return HERE / f"{agent_name}-webshop.jsonl"


def main() -> int:
    goals = bundled_goals()
    for agent_name in AGENTS:
        entries = [e for goal in goals for e in WRITERS[agent_name](goal)]
        demo_path(agent_name).write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
        print(f"{demo_path(agent_name).name}: {len(entries)} answers for {len(goals)} instructions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
