"""The prompt's pane of a run a person answers is made at the first show of its tab, and is brought up to
the prompt whenever its tab shows (hidden, it is not kept up to date): it always shows what it would have
shown had it been there all along.

A prompt arriving before the pane is made: test_pane_requests (the pane shows it). A model's run starts
on the prompt's tab and has the pane from the start: test_pilot reads it.
"""

from __future__ import annotations

import pytest
from textual.widgets import TextArea

from recode_tui.console.run.requests import ShowPrompt
from recode_tui.console.widgets.prompt_view import PromptView

from .helpers import drawn
from .page import toy_console


@pytest.fixture(autouse=True)
def toy(toy_env):
    return toy_env


async def test_the_prompt_pane_opened_by_a_click_before_any_prompt_says_none_yet_then_shows_the_first() -> None:
    async with toy_console() as page:
        assert page.screen.shown_prompt is None and not page.screen.query(PromptView)  # no prompt, never shown
        await page.pilot.click("#--content-tab-tab-prompt")
        await drawn(page.app)  # the pane made, the frame it asks for drawn
        assert page.screen.query_one("#bottom").active == "tab-prompt"
        assert str(page.screen.query_one("#prompt-title").render()).startswith("No prompt yet")
        await page.step("continue")  # the root's expansion asks for its answer: its prompt is on show
        title, prompt = page.screen.pending_prompt
        assert page.screen.query_one("#prompt-text", TextArea).text == prompt
        assert str(page.screen.query_one("#prompt-title").render()) == title


async def test_a_prompt_that_arrives_while_its_tab_is_hidden_is_shown_when_the_tab_shows_again() -> None:
    async with toy_console() as page:
        await page.step("continue")  # the root's expansion asks: its prompt, the pane not made yet
        await page.press("escape", "r")  # out of the editor, which has the keys
        title, prompt = page.screen.pending_prompt
        area = page.screen.query_one("#prompt-text", TextArea)
        assert area.text == prompt
        await page.press("O")  # the observation's tab: the prompt's is hidden
        assert page.screen.query_one("#bottom").active != "tab-prompt"
        page.screen.post_message(ShowPrompt("Prompt of a later request", "a later prompt"))
        await page.press("r")  # handled in the order posted: the prompt, then the key
        assert area.text == "a later prompt"
        assert str(page.screen.query_one("#prompt-title").render()) == "Prompt of a later request"
