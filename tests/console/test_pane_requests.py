"""What a controller asks of a run's panes it posts to the run's screen, which routes it to the pane.

The Pilot tests post the requests the controllers post and read the panes as a person sees them;
the others hold the shape: the controllers' interface to the screen names no pane, and the app
reaches the run only through `debug_screen`.
"""

from __future__ import annotations

import ast
import inspect

from textual.widgets import TextArea

from recode_tui.console.app import RecodeApp, build_app
from recode_tui.console.run import hosts
from recode_tui.console.run.requests import AddWatch, EditExpansion, ShowPrompt, ShowReview, StopShown
from recode_tui.console.widgets.review_panel import ReviewBar
from recode_tui.console.widgets.watches import WatchList

from .helpers import SIZE, command, started, wait_for
from tests.settings import console_options


async def test_a_posted_request_reaches_its_pane() -> None:
    app = build_app(console_options())
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")
        screen = app.debug_screen
        screen.post_message(ShowPrompt("Prompt of a request", "the text the controller asked for"))
        await pilot.press("r")
        area = app.query_one("#prompt-text", TextArea)
        await wait_for(pilot, lambda: area.text == "the text the controller asked for", what="the prompt shown")
        assert screen.shown_prompt == ("Prompt of a request", "the text the controller asked for")

        screen.post_message(AddWatch("1 + 1"))
        watches = app.query_one(WatchList)
        await wait_for(pilot, lambda: "1 + 1" in watches.expressions, what="the watch added")

        screen.post_message(ShowReview("proposal", "a model", 2))
        bar = app.query_one(ReviewBar)
        await wait_for(pilot, lambda: bar.display, what="the review bar shown")
        screen.post_message(ShowReview("hidden"))
        await wait_for(pilot, lambda: not bar.display, what="the review bar hidden")


async def test_the_editor_opens_on_request_and_a_stop_counts_once_shown() -> None:
    app = build_app(console_options())
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")
        screen = app.debug_screen
        node = screen.agent.tree.nodes["n1"] if "n1" in screen.agent.tree.nodes else screen.agent.tree.root
        stops = screen.stops
        screen.post_message(EditExpansion(node.id, node.code, frozenset(), 1, "expand", "asked by a test", ""))
        screen.post_message(StopShown())
        await wait_for(pilot, lambda: screen.stops == stops + 1, what="the stop counted")
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
    forwarded = {"agent", "debugger", "run_state", "reason", "reason_kind", "stops", "drafts", "pending_prompt",
                 "shown_prompt", "driver", "tree_view", "editor", "env_log", "variables", "llm_control", "review_bar",
                 "say", "show_editor", "focus_editor"}
    assert forwarded.isdisjoint(vars(RecodeApp))
