"""A plug-in agent written only with the Stepper's public API: the console draws its turns, and its
end says why it ended (the agent's own stop is not reported as the environment's step limit)."""

from __future__ import annotations

import re
from typing import AsyncIterator

import pytest

from agent.runtime.verdict import Verdict
from agent.runtime.events import Event, RunFinished
from agent.runtime.asking import Answer
from agent.runtime.costs import MAIN_ROLE
from agent.runtime.stepper import Stepper
from mockllm.scripted import ScriptEntry, ScriptedLLM
from recode_tui.setup.build import make_agent
from tests import toyenv
from tests.settings import console_options, episode_named, run_settings

COIN = toyenv.SCRIPTS / "coin.yaml"


@pytest.fixture(autouse=True)
def toy(toy_env):
    return toy_env


class OneShotPlanner(Stepper):
    """Asks once for a plan (`Plan: a; b; c`), plays it, and stops: the smallest planner."""

    name = "one-shot"

    def judge(self, text: str, purpose: str, role: str = MAIN_ROLE, *, typed: bool = True,
              known: frozenset[str] = frozenset()) -> Verdict:
        found = re.search(r"^Plan:\s*(.+)$", text, re.MULTILINE)
        if found is None:
            return Verdict(False, message="answer with one line `Plan: action; action; ...`")
        return Verdict(True, blocks=tuple(a.strip() for a in found.group(1).split(";") if a.strip()))

    async def episode(self) -> AsyncIterator[Event]:
        async for event in self.open_episode():
            yield event
        root = self.tree.root
        [plan] = self.tree.add_children(root, ["plan"])
        yield self.started(plan)
        answer = None
        async for item in self.ask(plan, f"Task: {self.task}\n", "plan"):
            if isinstance(item, Answer):
                answer = item
            else:
                yield item
        if answer is None:
            yield self.finish(False, self.finished_reason)
            return
        steps = self.tree.add_children(plan, list(answer.verdict.blocks))
        yield self.accepted(plan, answer, purpose="plan", child_ids=tuple(s.id for s in steps))
        for step in steps:
            yield self.started(step)
            async for event in self.act(step, step.code):
                yield event
            yield self.completed(step, step.observations[-1])
            if self.env.done:
                break
        yield self.completed(plan)
        async for event in self.close_root(root):
            yield event


def planner(answer: str, episode_ref: str = "toy:vase-1") -> OneShotPlanner:
    from agent.sandbox.settings import RunnerSettings
    from envs.registry import make_env

    llm = ScriptedLLM([ScriptEntry(answer, purpose="plan")])
    return OneShotPlanner(make_env(episode_ref), llm, RunnerSettings().make_runner())


async def test_a_plan_that_runs_out_says_the_agent_stopped_not_that_the_step_limit_was_reached():
    agent = planner("Plan: go to diningtable 1; take vase 1 from diningtable 1")
    finished = await agent.run()
    await agent.close()
    assert not finished.success and finished.steps == 2
    assert finished.reason == "the agent stopped after 2 of 30 steps without finishing the task"
    assert agent.tree.root.error == finished.reason


async def test_a_plan_that_wins_completes_the_root():
    agent = planner("Plan: go to diningtable 1; take vase 1 from diningtable 1; go to sidetable 1; "
                     "put vase 1 in/on sidetable 1")
    finished = await agent.run()
    await agent.close()
    assert finished.success and finished.reason == "won" and finished.steps == 4


async def test_the_test_agents_own_limit_is_its_end_reason():
    agent = make_agent(run_settings(agent="one-action", agent_options={"max_turns": 2}), episode_named("toy:vase-1"),
                         ScriptedLLM([ScriptEntry("Action: look", purpose="act")]))
    finished = await agent.run()
    await agent.close()
    assert isinstance(finished, RunFinished) and finished.reason == "turn limit reached (2 turns)"


async def test_the_tree_pane_draws_each_turn_of_an_agent_that_adds_its_own_nodes(tmp_path):
    """The README's example agent adds its turns itself (no answer announces them as children)."""
    from recode_tui.console.app import build_app
    from recode_tui.console.widgets.code_tree import CodeTreeView

    from tests.console.page import ConsolePage

    app = build_app(console_options("toy:coin-1", f"scripted:{COIN}", agent="one-action",
                                    sessions_dir=tmp_path / "sessions"))
    async with ConsolePage.open(app) as page:
        pane = page.screen.query_one(CodeTreeView)
        await page.command("c")  # the first LLM call of turn 1: the turn is drawn already
        assert [item.label.plain.strip() for item in pane.root.children] == ["▸● turn 1"]
        for _ in range(6):
            if page.finished is not None:
                break
            await page.command("c")  # the next call's stop, or the run's end: each shown in every pane
        assert page.finished is not None
        assert [item.label.plain.strip() for item in pane.root.children] == ["✓ turn 1", "▸✓ turn 2"]


async def test_the_prompt_workspace_is_offered_only_to_an_agent_that_declares_one(tmp_path):
    from recode_tui.console.app import build_app
    from recode_tui.console.workspace.screen import PromptWorkspace

    from tests.console.helpers import notifications
    from tests.console.page import ConsolePage

    app = build_app(console_options("toy:coin-1", f"scripted:{COIN}", agent="one-action",
                                    sessions_dir=tmp_path / "sessions"))
    async with ConsolePage.open(app) as page:
        await page.press("W")  # handled by every part that may act on it, and what it posted
        assert not isinstance(app.screen, PromptWorkspace)
        [note] = notifications(app)
        assert note.message.startswith("The one-action agent has no prompt workspace")
        assert str(toyenv.HERE / "prompts") in note.message


class PickyPlanner(OneShotPlanner):
    """The one-shot planner with an option it checks: a wrong value must end the run before the reset."""

    name = "picky"
    option_defaults = {"mood": "calm"}

    def option_problem(self) -> str:
        mood = self.options["mood"]
        return "" if mood in ("calm", "brisk") else f"--agent-option mood={mood}: use calm or brisk"


async def test_options_the_agent_refuses_end_the_run_with_its_reason_before_the_environment_resets():
    from agent.sandbox.settings import RunnerSettings
    from envs.registry import make_env

    env = make_env("toy:vase-1")
    agent = PickyPlanner(env, ScriptedLLM([ScriptEntry("Plan: look", purpose="plan")]),
                          RunnerSettings().make_runner(), options={"mood": "grumpy"})
    events = []
    finished = await agent.run(on_event=events.append)
    await agent.close()
    assert events == [finished]  # nothing started: no RunStarted, no node
    assert not finished.success and finished.reason == "--agent-option mood=grumpy: use calm or brisk"
    assert agent.task == "" and agent.stats.llm_calls == 0


async def test_the_runs_counts_are_one_object_refused_actions_included():
    """An action longer than the cap is refused without a step, and counted with the run's other counts."""
    from agent.runtime.actions import MAX_ACTION_CHARS

    agent = planner(f"Plan: go to diningtable 1; {'x' * (MAX_ACTION_CHARS + 1)}")
    finished = await agent.run()
    await agent.close()
    assert finished.steps == 1 and finished.llm_calls == 1
    stats = agent.stats
    assert (stats.llm_calls, stats.refused_actions, stats.llm_failures) == (1, 1, 0)
    assert stats.role_dicts()["main"]["calls"] == 1
