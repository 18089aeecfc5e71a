"""The console at its edges: small terminals, zoom, focus, breakpoint list, editor, palette."""

from __future__ import annotations

import asyncio

from textual.widgets import DataTable, Input

from agent.llm import Completion
from agent.runtime.debugger import Breakpoint, BreakpointKind
from mockllm.scripted import ScriptedLLM, ScriptEntry
from recode_tui.console.app import build_app
from recode_tui.console.widgets import answer_editor
from recode_tui.console.widgets.breakpoints import BreakpointsPane

from .helpers import command, next_stop, notifications, started, type_text, wait_for
from tests.settings import console_options

PROPOSAL = (
    "<think>The vase is on the dining table.</think>\n<execute>\n"
    'obj = None\nrun("go to diningtable 1")\nrun("take vase 1 from diningtable 1")\n'
    'run("go to sidetable 1")\nrun("put vase 1 in/on sidetable 1")\n</execute>\n'
)


def status_lines(app) -> list[str]:
    return app.debug_screen.query_one("#status").text.split("\n")


def visible(app, selector: str) -> bool:
    widget = app.debug_screen.query_one(selector)
    return widget.display and widget.region.height > 2 and widget.region.width > 2


# -- item 11: 80x24 and 100x30 ------------------------------------------------------------


async def test_at_80x24_the_tree_the_node_and_the_editor_all_have_rows() -> None:
    app = build_app(console_options())
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")
        tree, detail, editor = (app.debug_screen.query_one(s).region for s in ("#code-tree", "#detail", "#expand-text"))
        assert tree.height >= 8 and detail.height >= 8, (tree, detail)
        assert editor.height >= 5, editor
        assert app.focused is app.debug_screen.editor.editor
        assert all(len(line) <= 80 for line in status_lines(app))
        assert "awaiting expansion" in status_lines(app)[0]
        assert "breakpoint 1: every stub expansion" in status_lines(app)[1]


async def test_v_swaps_in_the_variables_and_the_log_on_a_narrow_terminal() -> None:
    app = build_app(console_options())
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot, app)
        assert visible(app, "#code-tree") and not app.debug_screen.query_one("#vars").display
        await pilot.press("v")
        await pilot.pause()
        assert visible(app, "#vars") and visible(app, "#env-log")
        assert not app.debug_screen.query_one("#left").display
        table = app.debug_screen.query_one("#vars-table")
        await wait_for(pilot, lambda: app.focused is table, what="the variables table focused")
        await pilot.press("v")
        await pilot.pause()
        assert visible(app, "#code-tree") and visible(app, "#detail")
        await wait_for(pilot, lambda: app.focused is app.debug_screen.tree_view, what="the code tree focused")


async def test_at_100x30_the_status_line_keeps_the_stop_reason_and_never_wraps() -> None:
    app = build_app(console_options("put-01", "demo"))
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")
        first, second = status_lines(app)
        assert len(first) <= 100 and "paused" in first and "steps 0/80" in first
        assert "breakpoint 1: every stub expansion" in second
        assert visible(app, "#vars") and visible(app, "#code-tree")


async def test_z_zooms_the_focused_pane_and_z_again_restores_it() -> None:
    app = build_app(console_options("put-01", "demo"))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot, app)
        await pilot.press("z")
        await pilot.pause()
        assert app.screen.maximized is app.debug_screen.tree_view
        assert app.debug_screen.tree_view.region.height >= 18  # all but the status line and the keys
        assert not app.debug_screen.query_one("#bottom").region.height
        assert app.debug_screen.query_one("#status").region.height == 2
        await pilot.press("z")
        await pilot.pause()
        assert app.screen.maximized is None and app.debug_screen.query_one("#bottom").region.height >= 10


async def test_ctrl_t_zooms_the_editor_while_typing_in_it() -> None:
    app = build_app(console_options())
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")
        text = app.debug_screen.editor.editor.text
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert app.screen.maximized is app.debug_screen.query_one("#bottom") and app.focused is app.debug_screen.editor.editor
        assert app.debug_screen.editor.editor.region.height >= 15 and app.debug_screen.editor.editor.text == text
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert app.screen.maximized is None


async def test_zoom_is_listed_in_help() -> None:
    app = build_app(console_options())
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        rows = app.screen.rows
        assert ("z, ^t", "Zoom", "view.zoom") in rows
        assert ("v", "Panes", "view.panes") in rows
        assert ("^a", "Select all", "expansion.select-all") in rows


# -- item 12: the focus never jumps while command keys are typed ---------------------------


class GatedLLM:
    """A model that answers when the test opens the gate: its proposal arrives while the person types."""

    name = "gated"

    def __init__(self, text: str) -> None:
        self.gate = asyncio.Event()
        self.inner = ScriptedLLM([ScriptEntry(text)])

    async def complete(self, prompt, context=None) -> Completion:
        await self.gate.wait()
        return await self.inner.complete(prompt, context)


async def test_a_proposal_arriving_while_keys_are_typed_does_not_take_the_focus() -> None:
    llm = GatedLLM(PROPOSAL)
    app = build_app(console_options(review=True, breakpoints=[]), llm)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        await pilot.press("c")
        await pilot.press("down")  # the person moves in the tree while the model thinks
        llm.gate.set()
        await wait_for(pilot, lambda: app.debug_screen.llm_control.reviewing is not None and app.debug_screen.editor.is_open)
        await pilot.pause()
        assert app.focused is app.debug_screen.tree_view
        await pilot.press("c")  # a command key: it must not land in the code
        await pilot.pause()
        assert app.debug_screen.editor.editor.text == PROPOSAL
        assert any("e edits" in n.message for n in notifications(app))
        await pilot.press("e")  # e moves the focus, and types nothing
        await pilot.pause()
        assert app.focused is app.debug_screen.editor.editor
        assert app.debug_screen.editor.editor.text == PROPOSAL


async def test_when_the_editor_takes_the_focus_the_console_says_so() -> None:
    app = build_app(console_options())
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")
        # the editor opens as the stop is shown and takes the focus a refresh later: wait for that state
        await wait_for(pilot, lambda: app.focused is app.debug_screen.editor.editor
                       and any("Focus → editor" in n.message for n in notifications(app)),
                       what="the editor focused, and said so")


async def test_e_focuses_the_open_editor_without_typing_an_e() -> None:
    app = build_app(console_options())
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")
        before = app.debug_screen.editor.editor.text
        app.debug_screen.tree_view.focus()
        await pilot.press("e")
        await pilot.pause()
        assert app.focused is app.debug_screen.editor.editor and app.debug_screen.editor.editor.text == before


# -- item 14: the breakpoint list --------------------------------------------------------------


async def test_a_hit_does_not_move_the_breakpoint_cursor_and_adding_gives_the_focus_back() -> None:
    app = build_app(console_options("put-01", "demo"))  # breakpoint 1: every stub expansion
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        await pilot.press("B")
        await pilot.pause()
        pane = app.debug_screen.query_one(BreakpointsPane)
        table = pane.query_one(DataTable)
        await pilot.press("a")
        await type_text(pilot, "action ^take")
        await pilot.press("enter")
        await pilot.pause()
        assert app.focused is table  # not the add box
        assert table.row_count == 2 and table.cursor_row == 1
        await pilot.press("a")  # adds again: the box opens empty
        await pilot.pause()
        assert app.focused is pane.query_one(Input) and pane.query_one(Input).value == ""
        await pilot.press("escape")
        await pilot.press("up")  # the person picks breakpoint 1 ...
        await pilot.pause()
        take = app.debug_screen.debugger.find_breakpoint(BreakpointKind.ACTION_REGEX, "^take")
        for _ in range(5):  # breakpoint 1 hits at each stub, then 2 at `take`
            await command(pilot, app, "c")
            if take.hit_count:
                break
        assert take.hit_count == 1 and app.debug_screen.debugger.breakpoints[0].hit_count >= 1
        assert table.cursor_row == 0  # still where the person put it
        await pilot.press("B", "x")
        await pilot.pause()
        assert [bp.number for bp in app.debug_screen.debugger.breakpoints] == [2]  # x removed the one chosen


async def test_a_hit_leaves_the_breakpoint_cursor_on_the_row_the_person_chose() -> None:
    app = build_app(console_options("put-01", "demo",
                                    breakpoints=[Breakpoint(BreakpointKind.EVERY_LLM_CALL), Breakpoint(BreakpointKind.DEPTH_AT_LEAST, "9")]))
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        await pilot.press("B")
        await pilot.pause()
        table = app.debug_screen.query_one(BreakpointsPane).query_one(DataTable)
        await pilot.press("down")  # on breakpoint 2
        await command(pilot, app, "c")  # breakpoint 1 hits
        assert app.debug_screen.reason.startswith("breakpoint 1")
        assert table.cursor_row == 1
        await pilot.press("x")
        await pilot.pause()
        assert [bp.number for bp in app.debug_screen.debugger.breakpoints] == [1]


# -- item 16: the editor -----------------------------------------------------------------------


async def test_the_editor_indents_after_a_colon_and_ctrl_a_selects_all() -> None:
    app = build_app(console_options())
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")
        await pilot.press("ctrl+a")
        await pilot.press(*"for x in [1, 2]:", "enter", *"if x:", "enter", "r", "enter", "backspace", "s")
        await pilot.pause()
        assert app.debug_screen.editor.editor.text == "for x in [1, 2]:\n    if x:\n        r\n    s"


async def test_notes_from_the_parser_show_in_the_check_line(toy_game) -> None:
    from agent.agents.recode.engine import Engine
    from agent.runtime.answer_check import check_answer
    from agent.runtime.thread_runner import ThreadRunner
    from envs import make_env
    from mockllm.human import HumanLLM

    agent = Engine(make_env(toy_game), HumanLLM(), ThreadRunner())
    check = check_answer(agent, '<execute>\nrun("look")\n</execute>\nmore', "expand", known=frozenset({"run"}))
    await agent.close()
    assert check.ok
    assert check.message == "1 child node(s) · the text after </execute> was ignored: 'more'"


# -- item 17: the command palette --------------------------------------------------------------


async def test_the_command_palette_lists_and_runs_the_consoles_actions() -> None:
    app = build_app(console_options())
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        for title in ("Continue", "Step over", "Zoom the focused pane (or restore)", "View: breakpoints",
                      "Toggle a breakpoint on the selected node", "Switch the LLM"):
            assert title in titles
        await pilot.press("ctrl+p")
        await pilot.pause()
        await type_text(pilot, "Continue")
        await pilot.pause(0.3)
        stop = next_stop(app)
        await pilot.press("enter")
        await wait_for(pilot, lambda: stop.done(), what="the palette's continue")
        assert app.debug_screen.run_state == "awaiting expansion"


# -- item 19: long tree lines end in … -----------------------------------------------------------


LONG = 'run("go to diningtable 1")\nrun("take vase 1 from diningtable 1")  # ' + "a long comment " * 6


async def test_a_tree_line_cut_by_the_pane_ends_in_an_ellipsis() -> None:
    script = [ScriptEntry(f"<execute>\nlook_around_the_room_for_the_vase_and_then_take_it_to_the_table(1)\n</execute>",
                          stub="solve(instruction, observation)")]
    app = build_app(console_options(breakpoints=[Breakpoint(BreakpointKind.STUB_NAME, "look_around_the_room_for_the_vase_and_then_take_it_to_the_table")]), ScriptedLLM(script))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")
        tree = app.debug_screen.tree_view
        lines = [tree.render_line(y).text for y in range(2)]
        assert lines[1].rstrip().endswith("…"), lines
        assert len(lines[1]) == tree.size.width


async def test_a_fast_proposal_is_shown_as_under_review_not_as_running() -> None:
    app = build_app(console_options(review=True, breakpoints=[]), ScriptedLLM([ScriptEntry(PROPOSAL)]))
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        await pilot.press("c")
        await wait_for(pilot, lambda: app.debug_screen.llm_control.reviewing is not None and app.debug_screen.editor.is_open)
        await pilot.pause()
        first, second = status_lines(app)
        assert "reviewing a proposal" in first and "review the proposal for n0" in second


# -- item 23: the real-terminal tests skip alike where tmux is missing ------------------------------


def test_every_module_that_drives_tmux_skips_where_it_is_missing() -> None:
    from . import terminal, test_crash_resume, test_tmux

    for module in (test_crash_resume, test_tmux):
        assert terminal.needs_tmux in module.pytestmark, module.__name__


async def test_a_zoomed_pane_is_let_go_when_a_rewind_brings_new_panes(tmp_path) -> None:
    from .test_sessions_console import branch, play_to_n2, select

    app = build_app(console_options(sessions_dir=tmp_path))
    async with app.run_test(size=(100, 30)) as pilot:
        await play_to_n2(pilot, app)
        app.debug_screen.tree_view.focus()
        await pilot.press("z")
        await pilot.pause()
        assert app.screen.maximized is app.debug_screen.tree_view
        await select(pilot, app, "n1")
        await branch(pilot, app, "R")
        assert app.screen.maximized is None  # not the old, detached tree
