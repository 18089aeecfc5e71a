"""What a person must read to act, at 80x24 (Pilot): the observation at hand whole, a `!` value whole,
ReAct's earlier observations on demand, an empty root answer flagged, an invalid action as a breakpoint,
the status line whole, the focused editor marked.

WebShop's pages are real (marked heavy; the search index is built once for the module); the rest is
the console's, tested on the toy world with node code in-process (tests/console/page.py).
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import AsyncIterator

import pytest
from textual.widgets import Input

from agent.runtime import events as ev
from recode_tui.commands.cli import console_app
from recode_tui.commands.parser import build_parser
from recode_tui.console.app import build_app
from recode_tui.console.screens.shell_prompt import ShellPrompt
from recode_tui.console.widgets.agent_view import AgentViewPane
from tests.envs.webshop_helpers import webshop_module  # noqa: F401 - the fixture

from .helpers import drawn
from .page import ConsolePage, at, shared_consoles, toy_app
from .test_agent_answers_console import submit_once, until_call

SMALL = (80, 24)


def small_toy(**options) -> ConsolePage:
    """The console on toy:vase-1 at 80x24, as a person answers it (a context manager)."""
    return ConsolePage.open(toy_app(**options), size=SMALL)


@pytest.fixture(scope="module", autouse=True)
def toy(toy_module):
    return toy_module


@asynccontextmanager
async def awaiting_the_root() -> AsyncIterator[ConsolePage]:
    """A person's run at 80x24 continued to the root's expansion: the editor open (empty), with the focus;
    notices shown as on a terminal (`run_test` hides them unless asked), for the test of where they go."""
    app = toy_app()
    async with app.run_test(size=SMALL, notifications=True) as pilot:
        page = ConsolePage(pilot)
        await page.started()
        await page.step("continue")
        yield page


page = shared_consoles({"awaiting the root": awaiting_the_root})  # for the tests marked at(), which put back what they change


def webshop_react(tmp_path):
    args = build_parser().parse_args(["tui", "--env", "webshop", "--game", "0", "--llm", "human", "--agent", "react",
                                      "--sessions", str(tmp_path / "sessions")])
    return console_app(args)


@pytest.mark.heavy
async def test_the_first_screen_shows_the_whole_task_and_no_recode_skeleton(webshop_module, tmp_path) -> None:
    async with ConsolePage.open(webshop_react(tmp_path), size=SMALL) as page:
        app = page.app
        view = page.screen.observation_view
        assert view.region.height >= 6  # on the first screen, not behind a key
        assert "price lower than 20.00 dollars" in view.text  # the task's price limit
        assert "<think>" not in page.screen.editor.editor.text  # ReAct's run: no ReCode skeleton before its first call
        status = page.screen.query_one("#status").text.splitlines()
        assert not any(line.rstrip().endswith("…") for line in status), status


async def searched(page: ConsolePage) -> None:
    """ReAct's first turn answered with the shop's search, and its next call awaited (the results page shown)."""
    await until_call(page, "act")
    assert (await page.put_answer("Thought: search\nAction: search[color safe paraben free shampoo 16 fl oz]")).ok
    await submit_once(page)
    await until_call(page, "act")


@pytest.mark.heavy
async def test_the_observation_tab_holds_the_results_page_whole_and_z_gives_it_the_screen(webshop_module, tmp_path) -> None:
    async with ConsolePage.open(webshop_react(tmp_path), size=SMALL) as shown:
        app = shown.app
        await searched(shown)
        await shown.press("escape", "O", "z")
        view = shown.screen.observation_view
        assert app.focused is view and shown.screen.maximized is not None  # zoomed
        page = shown.screen.agent.turns[0].observation
        assert page.strip() in view.text and "step 1 > search[" in view.text
        # The whole page fits the zoomed pane at 80x24: wrapped, nothing past the pane's bottom or right edge.
        assert view.virtual_size.width <= view.scrollable_content_region.width
        assert view.max_scroll_y == 0, (view.virtual_size, view.scrollable_content_region)


@pytest.mark.heavy
async def test_enter_in_the_turns_tab_shows_earlier_observations_whole(webshop_module, tmp_path) -> None:
    async with ConsolePage.open(webshop_react(tmp_path), size=SMALL) as page:
        app = page.app
        await searched(page)
        assert (await page.put_answer("Thought: open it\nAction: click[b01dqcju2k]")).ok
        await submit_once(page)
        await until_call(page, "act")
        results = page.screen.agent.turns[0].observation
        await page.press("escape", "a")
        pane = page.screen.query_one(AgentViewPane)
        assert app.focused is pane  # the Turns tab
        last_part = results.split("[SEP]")[-1].strip()
        assert not any(last_part in line for line in pane.lines)  # turn 1's results page: its first line only
        await page.press("enter")
        assert any(last_part in line for line in pane.lines)  # the page whole
        await page.press("enter")
        assert not any(last_part in line for line in pane.lines)  # folded again


async def test_an_invalid_action_breakpoint_stops_the_run_there() -> None:
    async with small_toy() as page:
        await page.press("B")
        page.screen.query_one("#bp-input", Input).focus()
        await page.type("invalid")
        await page.press("enter")
        assert len(page.screen.debugger.breakpoints) == 2
        assert page.screen.debugger.breakpoints[1].describe() == "an invalid action"
        page.screen.tree_view.focus()
        await page.step("continue")
        page.screen.editor.editor.load_text('run("fly to the moon")\nrun("go to diningtable 1")')
        await page.checked()
        await page.command("ctrl+s")
        await page.step("continue")
        last = page.screen.debugger.last_event
        assert isinstance(last, ev.ObservationReceived)
        assert last.action == "fly to the moon" and page.screen.agent.env.steps == 1
        assert page.reason.startswith("breakpoint 2: an invalid action — fly to the moon → Nothing happens.")


def overlaps(a, b) -> bool:
    return a.x < b.right and b.x < a.right and a.y < b.bottom and b.y < a.bottom


# -- tests that read the shared console (the `page` fixture); last, so it closes as they end


@at("awaiting the root")
async def test_a_shell_value_is_shown_whole_in_a_box_that_scrolls(page: ConsolePage) -> None:
    page.screen.tree_view.focus()  # the keys the console's, not the open editor's
    prompt = await page.opened("exclamation_mark")
    assert isinstance(prompt, ShellPrompt)
    await page.type("'\\n'.join(f'line {i}: ' + 'word ' * 12 for i in range(40))")
    await page.press("enter")  # the line runs in the run's namespace while the key is handled
    assert "cut" not in prompt.result and "line 39: word" in prompt.result
    box = prompt.query_one("#shell-result-box")
    assert box.region.height >= 8 and box.region.bottom <= SMALL[1]  # most of the screen, within it
    assert box.max_scroll_y > 0  # the rest is a scroll away
    assert box.virtual_size.width <= box.scrollable_content_region.width  # wrapped, never cut at the edge
    await page.press("escape")  # put back: the prompt closed, the keys the editor's
    assert not isinstance(page.app.screen, ShellPrompt)
    page.screen.editor.editor.focus()


@at("awaiting the root")
async def test_an_empty_root_answer_warns_that_it_skips_the_whole_task(page: ConsolePage) -> None:
    assert page.screen.editor.node_id == page.screen.agent.tree.root.id
    await page.checked()
    line = str(page.screen.query_one("#expand-check").render())
    assert page.screen.editor.last_check.empty and not line.startswith("✓"), line
    assert "skips the whole task" in line


@at("awaiting the root")
async def test_the_focused_editor_is_marked_at_80x24(page: ConsolePage) -> None:
    area = page.screen.editor.editor
    assert page.app.focused is area
    assert area.styles.border_left[0] == "heavy"  # the short editor's left edge says it has the keys
    await page.press("escape")
    assert area.styles.border_left[0] != "heavy"
    assert page.app.focused.styles.border_left[0] == "heavy"  # the pane the focus went to is marked instead
    area.focus()  # put back: the keys the editor's, as the stop had them


@at("awaiting the root")
async def test_a_notice_never_covers_the_editor_or_its_check_line_zoomed_or_not(page: ConsolePage) -> None:
    app, screen = page.app, page.screen
    page.screen.editor.editor.focus()  # where the stop puts it (a test before may have moved it)
    for zoom in (False, True):
        if zoom:
            await page.press("ctrl+t")
            assert screen.maximized is not None  # the editor zoomed
        app.notify("Session forked: /a/long/path/to/the/sessions/folder/20261128-put-01", timeout=30)
        await drawn(app)  # the toast is mounted and laid out
        assert screen.query("Toast")  # the notice
        covered = [screen.query_one("#expand-text").region, screen.query_one("#expand-check").region]
        for toast in screen.query("Toast"):
            assert toast.region.height and not any(overlaps(toast.region, part) for part in covered), (
                zoom, toast.region, covered)
        app.clear_notifications()
        await drawn(app)
        assert not screen.query("Toast")  # the notices gone
    await page.press("ctrl+t")  # put back: the editor not zoomed, with the keys
    assert screen.maximized is None and app.focused is page.screen.editor.editor
