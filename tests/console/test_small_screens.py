"""The console at its edges: small terminals, zoom, focus, breakpoint list, editor, palette.

On the toy world (tests/toyenv: "put a vase in sidetable.", the vase on diningtable 1) with node code
in-process (tests/console/page.py): the layout, the keys and the editor are the console's.
"""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from typing import AsyncIterator

import pytest
from textual.widgets import DataTable, Input

from agent.llm import Completion
from agent.runtime.breakpoints import Breakpoint, BreakpointKind
from mockllm.scripted import ScriptedLLM, ScriptEntry
from recode_tui.console.run.run_state import RunState
from recode_tui.console.support.textual_compat import screen_cells
from recode_tui.console.widgets.breakpoints import BreakpointsPane

from .helpers import HANG, drawn, notifications, queues_drained
from .page import TOY_GAME, ConsolePage, Stops, at, shared_consoles, toy_app
from .test_pilot import nested_model

PROPOSAL = (
    "<think>The vase is on the dining table.</think>\n<execute>\n"
    'obj = None\nrun("go to diningtable 1")\nrun("take vase 1 from diningtable 1")\n'
    'run("go to sidetable 1")\nrun("put vase 1 in/on sidetable 1")\n</execute>\n'
)


@pytest.fixture(scope="module", autouse=True)
def toy(toy_module):
    return toy_module


@asynccontextmanager
async def awaiting_the_root(size: tuple[int, int]) -> AsyncIterator[ConsolePage]:
    """A person's run at `size` continued to the root's expansion: the editor open, with the focus."""
    async with ConsolePage.open(toy_app(), size=size) as page:
        await page.step("continue")
        yield page


STOPS: Stops = {
    "first stop at 100x30": lambda: ConsolePage.open(toy_app(), size=(100, 30)),
    "awaiting the root at 100x30": lambda: awaiting_the_root((100, 30)),
    "first stop at 80x24": lambda: ConsolePage.open(toy_app(), size=(80, 24)),
    "awaiting the root at 80x24": lambda: awaiting_the_root((80, 24)),
}

page = shared_consoles(STOPS)  # the console at each of STOPS, for the tests at the end of this file


def status_lines(page: ConsolePage) -> list[str]:
    return page.screen.query_one("#status").text.split("\n")


def visible(page: ConsolePage, selector: str) -> bool:
    widget = page.screen.query_one(selector)
    return widget.display and widget.region.height > 2 and widget.region.width > 2


# -- item 11: 80x24 and 100x30 ------------------------------------------------------------


async def test_at_100x30_the_status_line_keeps_the_stop_reason_and_never_wraps() -> None:
    async with ConsolePage.open(toy_app("gold"), size=(100, 30)) as page:
        await page.step("continue")
        first, second = status_lines(page)
        assert len(first) <= 100 and "paused" in first and "steps 0/" in first
        assert "breakpoint 1: every stub expansion" in second
        assert visible(page, "#vars") and visible(page, "#code-tree")


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


class AskedGatedLLM(GatedLLM):
    """A gated model that says when it has been asked (`asked`): the run is then inside its call."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.asked = asyncio.Event()

    async def complete(self, prompt, context=None) -> Completion:
        self.asked.set()
        return await super().complete(prompt, context)


async def test_a_proposal_arriving_while_keys_are_typed_does_not_take_the_focus() -> None:
    llm = GatedLLM(PROPOSAL)
    async with ConsolePage.open(toy_app(llm, review=True, breakpoints=[]), size=(100, 30)) as page:
        await page.press("c")
        await page.press("down")  # the person moves in the tree while the model thinks
        llm.gate.set()
        await page.reached(RunState.REVIEWING)
        assert page.screen.llm_control.reviewing is not None and page.screen.editor.is_open
        assert page.app.focused is page.screen.tree_view
        await page.press("c")  # a command key: it must not land in the code
        assert page.screen.editor.editor.text == PROPOSAL
        assert any("e edits" in n.message for n in notifications(page.app))
        await page.press("e")  # e moves the focus, and types nothing
        assert page.app.focused is page.screen.editor.editor
        assert page.screen.editor.editor.text == PROPOSAL


async def test_when_the_editor_takes_the_focus_the_console_says_so() -> None:
    async with ConsolePage.open(toy_app(), size=(100, 30)) as page:
        await page.step("continue")
        assert page.app.focused is page.screen.editor.editor
        assert any("Focus → editor" in n.message for n in notifications(page.app))


# -- item 14: the breakpoint list --------------------------------------------------------------


async def test_a_hit_does_not_move_the_breakpoint_cursor_and_x_removes_the_chosen_one() -> None:
    async with ConsolePage.open(toy_app(nested_model()), size=(100, 30)) as page:  # breakpoint 1: every stub
        await page.press("B", "a")
        await page.type("action ^take")
        await page.press("enter")
        table = page.screen.query_one(BreakpointsPane).query_one(DataTable)
        await page.press("up")  # the person picks breakpoint 1 ...
        take = page.screen.debugger.find_breakpoint(BreakpointKind.ACTION_REGEX, "^take")
        for _ in range(5):  # breakpoint 1 hits at each stub, then 2 at `take`
            await page.step("continue")
            if take.hit_count:
                break
        assert take.hit_count == 1 and page.screen.debugger.breakpoints[0].hit_count >= 1
        assert table.cursor_row == 0  # still where the person put it
        await page.press("B", "x")
        assert [bp.number for bp in page.screen.debugger.breakpoints] == [2]  # x removed the one chosen


async def test_a_hit_leaves_the_breakpoint_cursor_on_the_row_the_person_chose() -> None:
    app = toy_app("gold", breakpoints=[Breakpoint(BreakpointKind.EVERY_LLM_CALL), Breakpoint(BreakpointKind.DEPTH_AT_LEAST, "9")])
    async with ConsolePage.open(app, size=(100, 30)) as page:
        await page.press("B")
        table = page.screen.query_one(BreakpointsPane).query_one(DataTable)
        await page.press("down")  # on breakpoint 2
        await page.step("continue")  # breakpoint 1 hits
        assert page.reason.startswith("breakpoint 1")
        assert table.cursor_row == 1
        await page.press("x")
        assert [bp.number for bp in page.screen.debugger.breakpoints] == [1]


# -- item 16: the editor -----------------------------------------------------------------------


async def test_notes_from_the_parser_show_in_the_check_line() -> None:
    from agent.agents.recode.engine import Engine
    from agent.runtime.answer_check import check_answer
    from agent.runtime.thread_runner import ThreadRunner
    from envs.registry import make_env
    from mockllm.human import HumanLLM

    agent = Engine(make_env(TOY_GAME), HumanLLM(), ThreadRunner())
    check = check_answer(agent, '<execute>\nrun("look")\n</execute>\nmore', "expand", known=frozenset({"run"}))
    await agent.close()
    assert check.ok
    assert check.message == "1 child node(s) · the text after </execute> was ignored: 'more'"


# -- item 17: the command palette --------------------------------------------------------------


async def test_the_command_palette_runs_the_action_chosen() -> None:
    async with ConsolePage.open(toy_app(), size=(100, 30)) as page:
        await page.press("ctrl+p")
        await page.type("Continue")
        await queues_drained(page.app)  # the typed text is handled: the palette's search is under way
        await page.app.workers.wait_for_complete()  # the palette searches in a worker, then lists the hits
        await page.command("enter")
        assert page.state == "awaiting expansion"


# -- item 19: long tree lines end in … -----------------------------------------------------------


async def test_a_tree_line_cut_by_the_pane_ends_in_an_ellipsis() -> None:
    stub = "look_around_the_room_for_the_vase_and_then_take_it_to_the_table"
    script = [ScriptEntry(f"<execute>\n{stub}(1)\n</execute>", stub="solve(instruction, observation)")]
    app = toy_app(ScriptedLLM(script), breakpoints=[Breakpoint(BreakpointKind.STUB_NAME, stub)])
    async with ConsolePage.open(app, size=(80, 24)) as page:
        await page.step("continue")
        tree = page.screen.tree_view
        lines = [tree.render_line(y).text for y in range(2)]
        assert lines[1].rstrip().endswith("…"), lines
        assert len(lines[1]) == tree.size.width


async def test_a_fast_proposal_is_shown_as_under_review_not_as_running() -> None:
    app = toy_app(ScriptedLLM([ScriptEntry(PROPOSAL)]), review=True, breakpoints=[])
    async with ConsolePage.open(app, size=(100, 30)) as page:
        await page.press("c")
        await page.reached(RunState.REVIEWING)
        assert page.screen.llm_control.reviewing is not None and page.screen.editor.is_open
        first, second = status_lines(page)
        assert "reviewing a proposal" in first and "review the proposal for n0" in second


async def test_a_proposal_put_under_review_takes_the_model_clocks_place_at_once(monkeypatch) -> None:
    """The status line said the model was answering; its proposal goes under review: the line says so in
    the same frame, not at the clock's next tick (until then it went on saying the model was answering)."""
    from recode_tui.console.screens import debug_screen

    monkeypatch.setattr(debug_screen, "MODEL_CLOCK_SECONDS", 3600.0)  # no tick comes: the clock is drawn by hand below
    llm = AskedGatedLLM(PROPOSAL)
    async with ConsolePage.open(toy_app(llm, review=True, breakpoints=[]), size=(100, 30)) as page:
        await page.press("c")
        await asyncio.wait_for(llm.asked.wait(), HANG)
        page.screen.show_model_clock()  # the clock's tick, while the model answers
        assert "is answering n0" in status_lines(page)[1]
        llm.gate.set()
        await page.reached(RunState.REVIEWING)
        first, second = status_lines(page)
        assert "reviewing a proposal" in first and "review the proposal for n0" in second, second
        assert "is answering" not in second


# -- item 23: the real-terminal tests skip alike where tmux is missing ------------------------------


def test_every_module_that_drives_tmux_skips_where_it_is_missing() -> None:
    from . import terminal, test_crash_resume, test_tmux

    for module in (test_crash_resume, test_tmux):
        assert terminal.needs_tmux in module.pytestmark, module.__name__


async def test_a_zoomed_pane_is_let_go_when_a_rewind_brings_new_panes(tmp_path) -> None:
    async with ConsolePage.open(toy_app(sessions_dir=tmp_path), size=(100, 30)) as page:
        await page.step("continue")
        await page.answer("take_vase()\nplace_vase()")  # n1 and n2: a node to rewind to
        page.screen.tree_view.focus()
        await page.press("z")
        assert page.app.screen.maximized is page.screen.tree_view
        await page.select("n1")
        await page.replaced("R")
        assert page.app.screen.maximized is None  # not the old, detached tree


# -- tests that read a shared console (the `page` fixture); last, so each console closes as its tests end


@at("first stop at 100x30")
async def test_zoom_is_listed_in_help(page: ConsolePage) -> None:
    await page.press("question_mark")
    rows = page.app.screen.rows
    await page.press("escape")  # the help closed: the console as the next test expects it
    assert ("z, ^t", "Zoom", "view.zoom") in rows
    assert ("v", "Panes", "view.panes") in rows
    assert ("^a", "Select all", "expansion.select-all") in rows


@at("first stop at 100x30")
async def test_the_command_palette_lists_the_consoles_actions(page: ConsolePage) -> None:
    titles = [c.title for c in page.app.get_system_commands(page.app.screen)]
    for title in ("Continue", "Step over", "Zoom the focused pane (or restore)", "View: breakpoints",
                  "Toggle a breakpoint on the selected node", "Switch the LLM"):
        assert title in titles


@at("awaiting the root at 100x30")
async def test_e_focuses_the_open_editor_without_typing_an_e(page: ConsolePage) -> None:
    before = page.screen.editor.editor.text
    page.screen.tree_view.focus()
    await page.press("e")
    assert page.app.focused is page.screen.editor.editor and page.screen.editor.editor.text == before


@at("awaiting the root at 100x30")
async def test_the_editor_indents_after_a_colon_and_ctrl_a_selects_all(page: ConsolePage) -> None:
    page.screen.editor.editor.focus()  # where the open editor puts it (a test before may have moved it)
    await page.press("ctrl+a")
    await page.press(*"for x in [1, 2]:", "enter", *"if x:", "enter", "r", "enter", "backspace", "s")
    assert page.screen.editor.editor.text == "for x in [1, 2]:\n    if x:\n        r\n    s"


@at("first stop at 100x30")
async def test_adding_a_breakpoint_gives_the_focus_back_to_the_list(page: ConsolePage) -> None:
    await page.press("B")  # breakpoint 1: every stub
    pane = page.screen.query_one(BreakpointsPane)
    table = pane.query_one(DataTable)
    await page.press("a")
    await page.type("action ^take")
    await page.press("enter")
    assert page.app.focused is table  # not the add box
    assert table.row_count == 2 and table.cursor_row == 1
    await page.press("a")  # adds again: the box opens empty
    assert page.app.focused is pane.query_one(Input) and pane.query_one(Input).value == ""
    await page.press("escape", "x")  # put back: the list again, the new breakpoint (under its cursor) removed
    assert [bp.number for bp in page.breakpoints] == [1]
    page.screen.tree_view.focus()


@at("first stop at 100x30")
async def test_the_focus_moving_between_the_tree_and_the_log_restyles_each_once_and_moves_the_heavy_border(
        page: ConsolePage) -> None:
    """The pane the focus leaves and the one it enters are restyled once each (the tree's restyle draws
    every line of it again); a `:focus-within` selector in the rule of their `:focus` border (recode.tcss)
    made Textual restyle each of them twice per move."""
    tree, log = page.screen.tree_view, page.screen.env_log
    tree.focus()  # where the first stop puts it (a test before may have moved it)
    await drawn(page.app)
    restyled: list[str] = []
    for pane in (tree, log):
        notify = pane.notify_style_update
        pane.notify_style_update = (lambda _pane=pane, _notify=notify:  # type: ignore[method-assign]
                                    (restyled.append(str(_pane.id)), _notify())[1])
    try:
        log.focus()
        await drawn(page.app)
        rows = ["".join(segment.text for segment in line) for line in screen_cells(page.app)]
        corners = [rows[pane.region.y][pane.region.x] for pane in (tree, log)]
        tree.focus()
        await drawn(page.app)
    finally:
        del tree.notify_style_update, log.notify_style_update
    assert sorted(restyled) == ["code-tree", "code-tree", "env-log", "env-log"]
    assert corners == ["╭", "┏"]  # the focused log has the heavy border, the tree the round one


@at("first stop at 80x24")
async def test_v_swaps_in_the_variables_and_the_log_on_a_narrow_terminal(page: ConsolePage) -> None:
    assert visible(page, "#code-tree") and not page.screen.query_one("#vars").display
    await page.press("v")
    assert visible(page, "#vars") and visible(page, "#env-log")
    assert not page.screen.query_one("#left").display
    assert page.app.focused is page.screen.query_one("#vars-table")
    await page.press("v")
    assert visible(page, "#code-tree") and visible(page, "#detail")
    assert page.app.focused is page.screen.tree_view


@at("first stop at 80x24")
async def test_z_zooms_the_focused_pane_and_z_again_restores_it(page: ConsolePage) -> None:
    page.screen.tree_view.focus()  # where the first stop puts it (a test before may have moved it)
    await page.press("z")
    assert page.app.screen.maximized is page.screen.tree_view
    assert page.screen.tree_view.region.height >= 18  # all but the status line and the keys
    assert not page.screen.query_one("#bottom").region.height
    assert page.screen.query_one("#status").region.height == 2
    await page.press("z")
    assert page.app.screen.maximized is None and page.screen.query_one("#bottom").region.height >= 10


@at("awaiting the root at 80x24")
async def test_at_80x24_the_tree_the_node_and_the_editor_all_have_rows(page: ConsolePage) -> None:
    tree, detail, editor = (page.screen.query_one(s).region for s in ("#code-tree", "#detail", "#expand-text"))
    assert tree.height >= 8 and detail.height >= 8, (tree, detail)
    assert editor.height >= 5, editor
    assert page.app.focused is page.screen.editor.editor
    assert all(len(line) <= 80 for line in status_lines(page))
    assert "awaiting expansion" in status_lines(page)[0]
    assert "breakpoint 1: every stub expansion" in status_lines(page)[1]


@at("awaiting the root at 80x24")
async def test_ctrl_t_zooms_the_editor_while_typing_in_it(page: ConsolePage) -> None:
    editor = page.screen.editor.editor
    text = editor.text
    await page.press("ctrl+t")
    assert page.app.screen.maximized is page.screen.query_one("#bottom") and page.app.focused is editor
    assert editor.region.height >= 15 and editor.text == text
    await page.press("ctrl+t")
    assert page.app.screen.maximized is None and page.app.focused is editor  # as the stop had it
