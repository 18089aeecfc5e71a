"""The console driven like a person: keys, the editor, breakpoints (App.run_test + Pilot).

On the toy world (tests/toyenv) with node code run in-process (tests/console/page.py): what these
tests check is the console's, not ALFWorld's or the sandbox's. Tests that only read one stop share its
console (the `page` fixture: one boot per named stop); a test that changes the run boots its own.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import AsyncIterator

import pytest
from textual.widgets import DataTable, Input

from agent.runtime import events as ev
from agent.runtime.breakpoints import parse_breakpoint
from agent.runtime.tree import NodeStatus
from mockllm.scripted import ScriptedLLM, ScriptEntry
from recode_tui.console.screens.debug_screen import DebugScreen
from recode_tui.console.widgets.answer_editor import AnswerEditor
from recode_tui.console.widgets.breakpoints import BreakpointsPane

from .helpers import SIZE
from .page import ConsolePage, Stops, at, filled, shared_consoles, toy_console

# toy:vase-1: "put a vase in sidetable."; the vase is on diningtable 1.
PUT_PLAN = (
    'run("go to diningtable 1")\n'
    'run("take vase 1 from diningtable 1")\n'
    'run("go to sidetable 1")\n'
    'run("put vase 1 in/on sidetable 1")'
)
# The vase fetched by the plan itself, then put away by a placeholder the person expands next.
FETCH_PLAN = 'run("go to diningtable 1")\nrun("take vase 1 from diningtable 1")\nobj = "vase 1"\nput_away(obj)'
PUT_AWAY = 'run("go to sidetable 1")\nrun(f"put {obj} in/on sidetable 1")'

# A model that looks at two places, then expands two placeholders one level down.
SOLVE = """<think>look, then fetch</think>
<execute>
seen = []
for place in ["coffeetable 1", "diningtable 1"]:
    seen.append(run("go to " + place))
fetch_vase(seen)
place_vase(obj)
</execute>"""
FETCH = """<think>it is here</think>
<execute>
obj = "vase 1"
run("take vase 1 from diningtable 1")
</execute>"""
PLACE = """<execute>
run("go to sidetable 1")
run(f"put {obj} in/on sidetable 1")
</execute>"""


def nested_model() -> ScriptedLLM:
    return ScriptedLLM([ScriptEntry(SOLVE, stub="solve(instruction, observation)"),
                        ScriptEntry(FETCH, stub="fetch_vase(seen)"), ScriptEntry(PLACE, stub="place_vase(obj)")])


@pytest.fixture(scope="module", autouse=True)
def toy(toy_module):
    return toy_module


def model_console(*breakpoints: str, **options):
    """The console on the nested model with `breakpoints` (specs, as typed in the box) set from the start,
    none by default: for tests where typing them in the box is not what is checked (`add_breakpoint` is)."""
    return toy_console(nested_model(), breakpoints=[parse_breakpoint(spec) for spec in breakpoints], **options)


@asynccontextmanager
async def model_stopped_by(breakpoint: str) -> AsyncIterator[ConsolePage]:
    """The nested model's console with `breakpoint` typed in the box, continued to its first hit."""
    async with model_console() as page:
        await page.add_breakpoint(breakpoint)
        await page.step("continue")
        yield page


TYPED: dict[str, str] = {}  # the editor's text as typed, by the stop that typed it


@asynccontextmanager
async def refused() -> AsyncIterator[ConsolePage]:
    """A person's run at the root's editor, an invalid plan typed and submitted once (and refused)."""
    async with toy_console() as page:
        TYPED["refused"] = await invalid_typed(page)
        yield page


STOPS: Stops = {
    "first stop": toy_console,  # a person's run at its first stop: the task shown
    "stub place_vase": lambda: model_stopped_by("stub place_vase"),
    "depth 2": lambda: model_stopped_by("depth 2"),
    "refused": refused,
}


page = shared_consoles(STOPS)  # the console at each of STOPS, for the tests at the end of this file


async def test_continue_opens_the_editor_on_the_root_prompt() -> None:
    async with toy_console() as page:
        await page.step("continue")
        assert page.state == "awaiting expansion"
        assert page.app.focused is page.screen.editor.editor
        assert "Prompt for n0 `solve(instruction, observation)`" in str(page.screen.pending_prompt[0])


async def test_solve_a_put_game_by_typing_a_thought_then_the_expansion() -> None:
    async with toy_console() as page:
        await page.step("continue")
        # The thought first, then the code inside <execute>.
        await page.press("up", "up", "up")
        await page.type("the vase is on the dining table")
        await page.press("down", "down", "down")
        await page.answer(PUT_PLAN)
        assert page.screen.agent.tree.root.thought == "the vase is on the dining table"
        assert page.tree()[1:] == [f" · {line}" for line in PUT_PLAN.splitlines()]
        await page.step("continue")
        assert page.state == "done"
        assert "══ WON (4 steps) ══" in page.log()
        assert page.tree()[1:] == [f" ✓ {line}" for line in PUT_PLAN.splitlines()[:-1]] + [f"▸✓ {PUT_PLAN.splitlines()[-1]}"]


async def pasted(page: ConsolePage, text: str) -> None:
    """`text` put in the open editor at once (a paste) and submitted: where typing is not what is checked."""
    await page.put_answer(text)
    await page.command("ctrl+s")


async def test_continue_after_a_plan_stops_at_its_nested_placeholder_with_its_variables() -> None:
    async with toy_console() as page:
        await page.step("continue")
        await pasted(page, FETCH_PLAN)
        # continue runs the two actions and stops at the next expansion the human must write
        await page.step("continue")
        assert page.state == "awaiting expansion"
        assert page.screen.debugger.last_event.node_id == "n4"
        assert "put_away(obj)" in page.screen.editor.query_one("#expand-header").render().plain
        assert "- obj (str): vase 1" in page.screen.pending_prompt[1]
        assert "2 > take vase 1 from diningtable 1" in " ".join(page.log().split())  # the log wraps it at 100x30


async def test_a_nested_placeholder_expanded_by_hand_wins_the_game() -> None:
    async with toy_console() as page:
        await page.step("continue")
        await pasted(page, FETCH_PLAN)
        await page.step("continue")
        await pasted(page, PUT_AWAY)
        await page.step("continue")
        assert page.state == "done"
        assert "episode won" in page.reason


INVALID = 'run("look")\nfor x in [1, 2]:\n    find_vase(x)'


async def invalid_typed(page: ConsolePage) -> str:
    """The root's editor holding a plan with a placeholder inside a loop, submitted once; the text typed."""
    await page.step("continue")
    await page.type(INVALID)
    typed = page.screen.editor.editor.text
    await page.press("ctrl+s")
    return typed


async def test_a_refused_expansion_once_fixed_is_accepted() -> None:
    async with toy_console() as page:
        await page.step("continue")
        assert not (await page.put_answer(filled(page.editor_text, INVALID))).ok
        await page.press("ctrl+s")  # refused: no stop
        assert page.awaiting_answer and page.check.message.startswith("line 7: placeholder")
        page.screen.editor.editor.load_text('run("look")\nfind_vase()')
        await page.command("ctrl+s")
        assert isinstance(page.screen.debugger.last_event, ev.LLMAnswered)
        assert page.tree()[1:] == [' · run("look")', ' · find_vase()']


async def test_b_sets_a_breakpoint_on_the_selected_stub() -> None:
    async with model_console() as page:
        await page.press("b")
        bp = page.screen.debugger.breakpoints[-1]
        assert (bp.kind.value, bp.value) == ("stub_name", "solve")
        await page.step("continue")
        assert page.reason.startswith(f"breakpoint {bp.number}: stub `solve`")


async def test_b_again_takes_the_breakpoint_away() -> None:
    async with model_console() as page:
        await page.press("b", "b")
        assert page.screen.debugger.breakpoints == []
        await page.step("continue")
        assert page.state == "done"


async def test_stop_at_an_action_regex_breakpoint_before_its_observation() -> None:
    async with model_console(r"action ^take\b") as page:
        await page.step("continue")
        event = page.screen.debugger.last_event
        assert isinstance(event, ev.ActionSent) and event.action == "take vase 1 from diningtable 1"
        assert page.reason == "breakpoint 1: action matches '^take\\b' — take vase 1 from diningtable 1"
        assert "> take vase 1" in page.log()  # the action is shown, its observation not yet
        assert "You pick up" not in page.log()
        await page.step("next")
        assert "You pick up the vase 1" in page.log()


async def test_continue_runs_to_the_next_expansion() -> None:
    async with toy_console(nested_model()) as page:  # every-stub breakpoint on
        seen = []
        for _ in range(3):
            await page.step("continue")
            assert isinstance(page.screen.debugger.last_event, ev.LLMRequested)
            seen.append(page.screen.debugger.last_event.node_id)
            assert page.reason.startswith("breakpoint 1: every stub expansion")
        assert len(set(seen)) == 3
        assert page.screen.query_one("#prompt-text").text.startswith(page.screen.pending_prompt[1][:200])


LOOP_SCRIPT = (
    "<think>look at three places</think><execute>\n"
    'for place in ["coffeetable 1", "diningtable 1", "sidetable 1"]:\n'
    '    obs = run("go to " + place)\n'
    "</execute>"
)


async def test_step_into_stops_between_the_actions_of_a_loop() -> None:
    model = ScriptedLLM([ScriptEntry(LOOP_SCRIPT, stub="solve(instruction, observation)")])
    async with toy_console(model, breakpoints=[]) as page:
        while not (isinstance(page.screen.debugger.last_event, ev.NodeStarted)
                   and page.screen.debugger.last_event.node_id == "n1"):
            await page.step("step")
        actions = []
        for _ in range(3):
            await page.step("step")
            event = page.screen.debugger.last_event
            assert isinstance(event, ev.ActionSent) and event.node_id == "n1"
            actions.append(event.action)
            assert page.log().count(" > ") == len(actions)  # one more action each time
        assert actions == ["go to coffeetable 1", "go to diningtable 1", "go to sidetable 1"]
        assert page.screen.agent.tree.nodes["n1"].status is NodeStatus.RUNNING


async def test_stepping_over_a_node_marks_only_what_its_subtree_bound() -> None:
    async with model_console("depth 2") as page:
        await page.step("continue")
        page.screen.debugger.toggle_breakpoint(1)
        await page.step("over")
        assert "obj" in page.screen.variables.marks
        assert "seen" not in page.screen.variables.marks and "place" not in page.screen.variables.marks


async def test_a_changes_breakpoint_stops_when_the_value_moves_and_says_from_what_to_what() -> None:
    async with model_console("changes len(seen)") as page:
        assert page.screen.debugger.breakpoints[0].describe() == "`len(seen)` changes"
        await page.step("continue")
        assert page.reason.startswith("breakpoint 1: `len(seen)` changes — <NameError: name 'seen' is not defined> → 0"), page.reason
        await page.step("continue")
        assert page.reason.startswith("breakpoint 1: `len(seen)` changes — 0 → 1"), page.reason
        assert page.screen.debugger.breakpoints[0].hit_count == 2


async def test_esc_in_the_breakpoint_add_box_goes_back_to_the_list_so_keys_step_again() -> None:
    async with model_console("depth 2") as page:
        await page.press("B")  # the breakpoint list, as a person opens it
        page.screen.query_one("#bp-table", DataTable).focus()
        await page.press("a")
        await page.type("dep")
        assert isinstance(page.app.focused, Input)
        await page.press("escape")
        assert page.app.focused is page.screen.query_one("#bp-table", DataTable)
        await page.step("continue")  # a step key again, not a letter typed into the box
        assert page.reason.startswith("breakpoint 1: depth >= 2")


# -- tests that read a shared console (the `page` fixture); last, so each console closes as its tests end


@at("first stop")
async def test_the_first_stop_shows_the_task(page: ConsolePage) -> None:
    assert "TASK put a vase in sidetable." in page.log()


@at("first stop")
async def test_the_variables_pane_marks_the_task_s_variables_new_at_the_first_stop(page: ConsolePage) -> None:
    assert page.screen.variables.marks == {"instruction": "new", "observation": "new"}


@at("first stop")
async def test_help_lists_every_binding_with_its_id(page: ConsolePage) -> None:
    await page.press("question_mark")
    from recode_tui.console.screens.help_screen import HelpScreen

    assert isinstance(page.app.screen, HelpScreen)
    ids = {row[2] for row in page.app.screen.rows}
    for binding in DebugScreen.BINDINGS + BreakpointsPane.BINDINGS + AnswerEditor.BINDINGS:
        assert binding.id in ids
    assert ("n", "Next", "step.next") in page.app.screen.rows
    await page.press("escape")
    assert not isinstance(page.app.screen, HelpScreen)


@at("stub place_vase")
async def test_stop_at_a_stub_name_breakpoint(page: ConsolePage) -> None:
    assert page.screen.debugger.breakpoints[0].value == "place_vase"
    event = page.screen.debugger.last_event
    assert isinstance(event, ev.LLMRequested)
    assert page.screen.agent.tree.nodes[event.node_id].code == "place_vase(obj)"
    assert page.reason == "breakpoint 1: stub `place_vase` — place_vase"
    assert page.state == "paused"
    await page.press("B")
    table = page.screen.query_one("#bp-table", DataTable)
    assert table.get_row_at(0)[-1] == "1"  # hit count
    page.screen.tree_view.focus()


@at("stub place_vase")
async def test_a_stub_stopped_at_is_the_tree_s_current_node_its_path_open(page: ConsolePage) -> None:
    event = page.screen.debugger.last_event
    item = page.screen.tree_view.item(event.node_id)
    assert page.screen.tree_view.cursor_node is item
    assert "▸◆ place_vase(obj)" in page.tree()  # the current node, a stub


@at("depth 2")
async def test_variables_pane_marks_what_the_run_bound_since_the_last_stop(page: ConsolePage) -> None:
    pane = page.screen.variables
    marked = set(pane.marks)
    assert {"seen", "place"} <= marked
    assert "instruction" not in marked
    table = page.screen.query_one("#vars-table", DataTable)
    assert table.get_cell("seen", "mark").plain in {"+", "●"}
    assert table.get_cell("instruction", "mark").plain == " "
    shown = table.get_cell("seen", "type").plain  # its type as written, cut to the column (`lis…` at 100x30)
    assert shown.startswith("lis") and "list[str]".startswith(shown.removesuffix("…"))


@at("depth 2")
async def test_selecting_a_variable_shows_its_full_value(page: ConsolePage) -> None:
    table = page.screen.query_one("#vars-table", DataTable)
    table.focus()
    table.move_cursor(row=table.get_row_index("seen"))
    await page.worked("full-value")  # the pane reads the value from the runner in a worker
    assert page.screen.variables.full_text.startswith("['You arrive at coffeetable 1")


@at("depth 2")
async def test_a_breakpoint_added_in_the_box_goes_back_to_the_list(page: ConsolePage) -> None:
    await page.press("B")
    page.screen.query_one("#bp-input", Input).focus()
    await page.type("depth 3")
    await page.press("enter")
    assert page.app.focused is page.screen.query_one("#bp-table", DataTable)
    await page.press("x")  # put back: the new breakpoint (under the list's cursor) taken away, the keys the tree's
    assert [bp.spec() for bp in page.breakpoints] == ["depth 2"]
    page.screen.tree_view.focus()


@at("refused")
async def test_an_invalid_expansion_is_refused_on_its_line_with_nothing_sent(page: ConsolePage) -> None:
    assert page.screen.debugger.awaiting_human and not page.screen.driver.busy  # nothing was sent
    check = page.screen.editor.last_check
    assert not check.ok and check.message.startswith("line 7: placeholder `find_vase(...)` is inside a loop")
    assert "line 7" in page.screen.editor.query_one("#expand-check").render().plain
    assert page.screen.editor.editor.text == TYPED["refused"]


@at("refused")
async def test_a_refused_expansion_survives_leaving_the_editor_switching_tabs_or_resizing(page: ConsolePage) -> None:
    await page.press("escape", "r")
    assert page.screen.query_one("#bottom").active == "tab-prompt"
    await page.pilot.resize_terminal(120, 40)
    await page.press("e")
    assert page.screen.editor.editor.text == TYPED["refused"]
    assert page.screen.drafts["n0"] == TYPED["refused"]
    await page.pilot.resize_terminal(*SIZE)  # put back: the size the other tests of this stop read at
