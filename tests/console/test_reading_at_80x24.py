"""What a person must read to act, at 80x24 (Pilot): the observation at hand whole, a `!` value whole,
ReAct's earlier observations on demand, an empty root answer flagged, an invalid action as a breakpoint,
the status line whole, the focused editor marked."""

from __future__ import annotations

from textual.widgets import Input

from agent.runtime import events as ev
from recode_tui.commands.cli import build_parser, console_app
from recode_tui.console.app import build_app
from recode_tui.console.screens.shell_prompt import ShellPrompt
from recode_tui.console.widgets.agent_view import AgentViewPane
from tests.envs.webshop_helpers import webshop  # noqa: F401 - the fixture

from .helpers import checked, command, settled, started, type_text, wait_for
from .test_agent_answers_console import answer, submit_once, until_call
from tests.settings import console_options

SMALL = (80, 24)


def webshop_react(tmp_path):
    args = build_parser().parse_args(["tui", "--env", "webshop", "--game", "0", "--llm", "human", "--agent", "react",
                                      "--sessions", str(tmp_path / "sessions")])
    return console_app(args)


async def test_the_first_screen_shows_the_whole_task_and_no_recode_skeleton(webshop, tmp_path) -> None:
    app = webshop_react(tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await started(pilot, app)
        await settled(pilot)
        view = app.debug_screen.observation_view
        assert view.region.height >= 6  # on the first screen, not behind a key
        assert "price lower than 20.00 dollars" in view.text  # the task's price limit
        assert "<think>" not in app.debug_screen.editor.editor.text  # ReAct's run: no ReCode skeleton before its first call
        status = app.debug_screen.query_one("#status").text.splitlines()
        assert not any(line.rstrip().endswith("…") for line in status), status


async def test_the_observation_tab_holds_the_results_page_whole_and_z_gives_it_the_screen(webshop, tmp_path) -> None:
    app = webshop_react(tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await started(pilot, app)
        await until_call(pilot, app, "act")
        assert (await answer(pilot, app, "Thought: search\nAction: search[color safe paraben free shampoo 16 fl oz]")).ok
        await submit_once(pilot, app)
        await until_call(pilot, app, "act")
        await pilot.press("escape", "O", "z")
        view = app.debug_screen.observation_view
        await wait_for(pilot, lambda: app.focused is view and app.debug_screen.maximized is not None, what="zoomed")
        await settled(pilot)
        page = app.debug_screen.agent.turns[0].observation
        assert page.strip() in view.text and "step 1 > search[" in view.text
        # The whole page fits the zoomed pane at 80x24: wrapped, nothing past the pane's bottom or right edge.
        assert view.virtual_size.width <= view.scrollable_content_region.width
        assert view.max_scroll_y == 0, (view.virtual_size, view.scrollable_content_region)


async def test_a_shell_value_is_shown_whole_in_a_box_that_scrolls() -> None:
    app = build_app(console_options())
    async with app.run_test(size=SMALL) as pilot:
        await started(pilot, app)
        await pilot.press("exclamation_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, ShellPrompt), what="the shell prompt")
        prompt = app.screen
        await type_text(pilot, "'\\n'.join(f'line {i}: ' + 'word ' * 12 for i in range(40))")
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(prompt.result), what="the line's answer")
        await settled(pilot)
        assert "cut" not in prompt.result and "line 39: word" in prompt.result
        box = prompt.query_one("#shell-result-box")
        assert box.region.height >= 8 and box.region.bottom <= SMALL[1]  # most of the screen, within it
        assert box.max_scroll_y > 0  # the rest is a scroll away
        assert box.virtual_size.width <= box.scrollable_content_region.width  # wrapped, never cut at the edge


async def test_enter_in_the_turns_tab_shows_earlier_observations_whole(webshop, tmp_path) -> None:
    app = webshop_react(tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await started(pilot, app)
        await until_call(pilot, app, "act")
        assert (await answer(pilot, app, "Thought: search\nAction: search[color safe paraben free shampoo 16 fl oz]")).ok
        await submit_once(pilot, app)
        await until_call(pilot, app, "act")
        assert (await answer(pilot, app, "Thought: open it\nAction: click[b01dqcju2k]")).ok
        await submit_once(pilot, app)
        await until_call(pilot, app, "act")
        results = app.debug_screen.agent.turns[0].observation
        await pilot.press("escape", "a")
        pane = app.debug_screen.query_one(AgentViewPane)
        await wait_for(pilot, lambda: app.focused is pane, what="the Turns tab")
        last_part = results.split("[SEP]")[-1].strip()
        assert not any(last_part in line for line in pane.lines)  # turn 1's results page: its first line only
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(last_part in line for line in pane.lines), what="the page whole")
        await pilot.press("enter")
        await wait_for(pilot, lambda: not any(last_part in line for line in pane.lines), what="folded again")


async def test_an_empty_root_answer_warns_that_it_skips_the_whole_task() -> None:
    app = build_app(console_options())
    async with app.run_test(size=SMALL) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")
        assert app.debug_screen.editor.node_id == app.debug_screen.agent.tree.root.id
        await checked(pilot, app)
        line = str(app.debug_screen.query_one("#expand-check").render())
        assert app.debug_screen.editor.last_check.empty and not line.startswith("✓"), line
        assert "skips the whole task" in line


async def test_an_invalid_action_breakpoint_stops_the_run_there() -> None:
    app = build_app(console_options())
    async with app.run_test(size=SMALL) as pilot:
        await started(pilot, app)
        await pilot.press("B")
        app.debug_screen.query_one("#bp-input", Input).focus()
        await type_text(pilot, "invalid")
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(app.debug_screen.debugger.breakpoints) == 2, what="the breakpoint added")
        assert app.debug_screen.debugger.breakpoints[1].describe() == "an invalid action"
        app.debug_screen.tree_view.focus()
        await command(pilot, app, "c")
        app.debug_screen.editor.editor.load_text('run("fly to the moon")\nrun("go to diningtable 1")')
        await checked(pilot, app)
        await command(pilot, app, "ctrl+s")
        await command(pilot, app, "c")
        assert isinstance(app.debug_screen.debugger.last_event, ev.ObservationReceived)
        assert app.debug_screen.debugger.last_event.action == "fly to the moon" and app.debug_screen.agent.env.steps == 1
        assert app.debug_screen.reason.startswith("breakpoint 2: an invalid action — fly to the moon → Nothing happens.")


async def test_the_focused_editor_is_marked_at_80x24() -> None:
    app = build_app(console_options())
    async with app.run_test(size=SMALL) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")
        assert app.focused is app.debug_screen.editor.editor
        await settled(pilot)
        area = app.debug_screen.editor.editor
        assert area.styles.border_left[0] == "heavy"  # the short editor's left edge says it has the keys
        await pilot.press("escape")
        await settled(pilot)
        assert area.styles.border_left[0] != "heavy"
        assert app.focused.styles.border_left[0] == "heavy"  # the pane the focus went to is marked instead


def overlaps(a, b) -> bool:
    return a.x < b.right and b.x < a.right and a.y < b.bottom and b.y < a.bottom


async def test_a_notice_never_covers_the_editor_or_its_check_line_zoomed_or_not() -> None:
    app = build_app(console_options())
    async with app.run_test(size=SMALL, notifications=True) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")
        screen = app.debug_screen
        for zoom in (False, True):
            if zoom:
                await pilot.press("ctrl+t")
                await wait_for(pilot, lambda: screen.maximized is not None, what="the editor zoomed")
            app.notify("Session forked: /a/long/path/to/the/sessions/folder/20261128-put-01", timeout=30)
            await wait_for(pilot, lambda: bool(screen.query("Toast")), what="the notice")
            await settled(pilot)
            covered = [screen.query_one("#expand-text").region, screen.query_one("#expand-check").region]
            for toast in screen.query("Toast"):
                assert toast.region.height and not any(overlaps(toast.region, part) for part in covered), (
                    zoom, toast.region, covered)
            app.clear_notifications()
            await wait_for(pilot, lambda: not screen.query("Toast"), what="the notices gone")
