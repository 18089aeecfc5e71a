"""Review mode judges a model's cut answer exactly as `run` and `eval` do, and says it was cut, in the
agent's own words.

Real parts: the real `openai` client against the bundled OpenAI-compatible server on 127.0.0.1,
answering with `finish_reason: length`; ReAct on the toy environment (its actions are free text).
"""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from agent.runtime import events as ev
from mockllm.openai_server import OpenAICompatibleServer, Reply, write_profiles
from recode_tui.console.app import build_app
from tests.settings import console_options

from .helpers import SIZE, notifications, started, wait_for

# Three turns in one answer, cut in the fourth line: `run`/`eval` take it through its first whole Action line.
THREE_ACTIONS = ("Thought: the vase may be on the table.\nAction: go to diningtable 1\n"
                 "Action: take vase 1 from diningtable 1\nAction: go to sidetable 1\nObservation: You arr")
# Cut inside its only action: nothing in it is whole, so `run` refuses it and asks again.
CUT_IN_THE_ACTION = "Thought: the vase may be on the table.\nAction: go to dining"


def review_app(tmp_path: Path, server: OpenAICompatibleServer, toy_game: str):
    profiles = write_profiles(tmp_path / "profiles.yaml", server.base_url, max_retries=0, timeout=5)
    return build_app(console_options(toy_game, "profile:local", profiles=profiles, review=True, breakpoints=[],
                                     agent="react"))


def check_line(app) -> str:
    return str(app.debug_screen.editor.query_one("#expand-check", Static).render())


async def proposal_checked(pilot, app) -> None:
    control, editor = app.debug_screen.llm_control, app.debug_screen.editor
    await wait_for(pilot, lambda: control.reviewing is not None and editor.is_open and editor.last_check is not None,
                   what="the proposal and its check")


async def test_a_cut_proposal_is_judged_as_run_judges_it_and_says_it_was_cut(tmp_path, toy_game) -> None:
    with OpenAICompatibleServer(lambda prompt: Reply(THREE_ACTIONS, "length")) as server:
        app = review_app(tmp_path, server, toy_game)
        async with app.run_test(size=SIZE) as pilot:
            await started(pilot, app)
            await pilot.press("c")
            await proposal_checked(pilot, app)
            line = check_line(app)
            assert "✓" in line and "cut at max_tokens=" in line and "first whole `Action:` line" in line
            assert "one action: go to diningtable 1" in line
            assert "3 actions" not in line
            await pilot.press("ctrl+s")
            agent = app.debug_screen.agent
            await wait_for(pilot, lambda: any(n.code == "go to diningtable 1" for n in agent.tree.root.children),
                           what="the first action taken")
            assert agent.tree.root.children[0].code == "go to diningtable 1"


async def test_a_cut_proposal_with_nothing_whole_is_refused_in_the_agents_words(tmp_path, toy_game) -> None:
    with OpenAICompatibleServer(lambda prompt: Reply(CUT_IN_THE_ACTION, "length")) as server:
        app = review_app(tmp_path, server, toy_game)
        async with app.run_test(size=SIZE) as pilot:
            await started(pilot, app)
            await pilot.press("c")
            await proposal_checked(pilot, app)
            assert "cut at max_tokens=" in check_line(app) and "before a whole `Action:` line" in check_line(app)
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: any(n.title == "Turn refused" for n in notifications(app)), what="the refusal")
            [refusal] = [n for n in notifications(app) if n.title == "Turn refused"]  # ReAct's word, not ReCode's
            assert "before a whole `Action:` line" in refusal.message
            assert not isinstance(app.debug_screen.debugger.last_event, ev.LLMAnswered)
