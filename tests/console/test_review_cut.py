"""Review mode judges a model's cut answer exactly as `run` and `eval` do, and says it was cut, in the
agent's own words.

Real parts: the real `openai` client against the bundled OpenAI-compatible server on 127.0.0.1,
answering with `finish_reason: length`; ReAct on the toy environment (its actions are free text), its
code run in-process (tests/console/page.py): the judgement is the agent's, not the sandbox's.
"""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from agent.runtime import events as ev
from mockllm.openai_server import OpenAICompatibleServer, Reply, write_profiles
from recode_tui.console.run.run_state import RunState

from .helpers import notifications
from .page import ConsolePage, toy_app

# Three turns in one answer, cut in the fourth line: `run`/`eval` take it through its first whole Action line.
THREE_ACTIONS = ("Thought: the vase may be on the table.\nAction: go to diningtable 1\n"
                 "Action: take vase 1 from diningtable 1\nAction: go to sidetable 1\nObservation: You arr")
# Cut inside its only action: nothing in it is whole, so `run` refuses it and asks again.
CUT_IN_THE_ACTION = "Thought: the vase may be on the table.\nAction: go to dining"


def review_app(tmp_path: Path, server: OpenAICompatibleServer, toy_game: str):
    profiles = write_profiles(tmp_path / "profiles.yaml", server.base_url, max_retries=0, timeout=5)
    return toy_app("profile:local", game=toy_game, profiles=profiles, review=True, breakpoints=[], agent="react")


def check_line(page: ConsolePage) -> str:
    return str(page.screen.editor.query_one("#expand-check", Static).render())


async def proposal_checked(page: ConsolePage) -> None:
    """The model's proposal is in the open editor, and its check is shown."""
    await page.reached(RunState.REVIEWING)
    await page.checked()
    assert page.screen.llm_control.reviewing is not None and page.screen.editor.is_open


async def test_a_cut_proposal_is_judged_as_run_judges_it_and_says_it_was_cut(tmp_path, toy_game) -> None:
    with OpenAICompatibleServer(lambda prompt: Reply(THREE_ACTIONS, "length")) as server:
        async with ConsolePage.open(review_app(tmp_path, server, toy_game)) as page:
            await page.press("c")
            await proposal_checked(page)
            line = check_line(page)
            assert "✓" in line and "cut at max_tokens=" in line and "first whole `Action:` line" in line
            assert "one action: go to diningtable 1" in line
            assert "3 actions" not in line
            await page.press("ctrl+s")
            await page.reached(RunState.REVIEWING)  # the next turn's proposal: the accepted one was taken
            assert page.screen.agent.tree.root.children[0].code == "go to diningtable 1"


async def test_a_cut_proposal_with_nothing_whole_is_refused_in_the_agents_words(tmp_path, toy_game) -> None:
    with OpenAICompatibleServer(lambda prompt: Reply(CUT_IN_THE_ACTION, "length")) as server:
        async with ConsolePage.open(review_app(tmp_path, server, toy_game)) as page:
            await page.press("c")
            await proposal_checked(page)
            assert "cut at max_tokens=" in check_line(page) and "before a whole `Action:` line" in check_line(page)
            await page.press("ctrl+s")
            await page.reached(RunState.REVIEWING)  # refused, the model is asked again
            [refusal] = [n for n in notifications(page.app) if n.title == "Turn refused"]  # ReAct's word, not ReCode's
            assert "before a whole `Action:` line" in refusal.message
            assert not isinstance(page.screen.debugger.last_event, ev.LLMAnswered)
