"""What a controller asks of a run's panes it posts to the run's screen, which routes it to the pane.

The Pilot tests post the requests the controllers post and read the panes as a person sees them;
the others hold the shape: the controllers' interface to the screen names no pane, and the app
reaches the run only through `debug_screen`.
"""

from __future__ import annotations

import ast
import inspect

import pytest
from textual.widgets import TextArea

from recode_tui.console.app import RecodeApp
from recode_tui.console.run import hosts
from recode_tui.console.run.requests import AddWatch, EditExpansion, ShowPrompt, ShowReview, StopShown
from recode_tui.console.widgets.review_panel import ReviewBar
from recode_tui.console.widgets.watches import WatchList

from .helpers import next_stop, published, queues_drained
from .page import toy_console


@pytest.fixture(autouse=True)
def toy(toy_env):
    return toy_env


async def test_a_posted_request_reaches_its_pane() -> None:
    async with toy_console() as page:
        await page.step("continue")
        screen = page.screen
        screen.post_message(ShowPrompt("Prompt of a request", "the text the controller asked for"))
        await page.press("escape", "r")  # handled in the order posted: the prompt, then the keys (editor, tab)
        assert page.app.query_one("#prompt-text", TextArea).text == "the text the controller asked for"
        assert screen.shown_prompt == ("Prompt of a request", "the text the controller asked for")

        screen.post_message(AddWatch("1 + 1"))
        await queues_drained(page.app)
        assert "1 + 1" in page.app.query_one(WatchList).expressions

        screen.post_message(ShowReview("proposal", "a model", 2))
        await queues_drained(page.app)
        bar = page.app.query_one(ReviewBar)  # made at the first proposal
        assert bar.display
        screen.post_message(ShowReview("hidden"))
        await queues_drained(page.app)
        assert not bar.display


async def test_the_editor_opens_on_request_before_the_stop_is_published_as_shown() -> None:
    async with toy_console() as page:
        await page.step("continue")
        screen = page.screen
        node = screen.agent.tree.root
        stop = next_stop(page.app)
        screen.post_message(EditExpansion(node.id, node.code, frozenset(), 1, "expand", "asked by a test", ""))
        screen.post_message(StopShown())
        assert await published(stop, "the stop shown") is screen.run_state
        assert screen.editor.node_id == node.id  # handled in the order posted: the editor first


def test_the_run_screen_interface_names_no_pane_and_raises_nothing() -> None:
    """Controllers see the run's state; a pane they reach only by a request (run/requests.py)."""
    members = vars(hosts.RunScreen)
    panes = {"tree_view", "editor", "env_log", "observation_view", "variables", "review_bar", "llm_control"}
    assert panes.isdisjoint(members) and panes.isdisjoint(hosts.RunScreen.__annotations__)
    tree = ast.parse(inspect.getsource(hosts))
    raised = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Raise)
              and "NotImplementedError" in ast.unparse(node)]
    assert raised == []


def test_the_app_forwards_nothing_of_its_run() -> None:
    """The run is its screen's: `app.debug_screen.agent`, never `app.agent`."""
    forwarded = {"agent", "debugger", "run_state", "reason", "reason_kind", "drafts", "pending_prompt",
                 "shown_prompt", "driver", "tree_view", "editor", "env_log", "variables", "llm_control", "review_bar",
                 "say", "show_editor", "focus_editor"}
    assert forwarded.isdisjoint(vars(RecodeApp))
