"""The console driven like a person: keys, the editor, breakpoints (App.run_test + Pilot)."""

from __future__ import annotations

from agent.runtime import events as ev
from agent.runtime.tree import NodeStatus
from mockllm.scripted import ScriptedLLM, ScriptEntry
from recode_tui.console.app import build_app
from recode_tui.console.screens.debug_screen import DebugScreen
from recode_tui.console.widgets.breakpoints import BreakpointsPane
from recode_tui.console.widgets.answer_editor import AnswerEditor
from textual.widgets import DataTable, Input

from .helpers import SIZE, command, started, type_text, wait_for
from tests.settings import console_options

# put-01: "put a vase in sidetable."; the vase is on diningtable 1.
PUT_PLAN = (
    'run("go to diningtable 1")\n'
    'run("take vase 1 from diningtable 1")\n'
    'run("go to sidetable 1")\n'
    'run("put vase 1 in/on sidetable 1")'
)
# clean-01: "put a clean plate in fridge."; plate 3 is on countertop 1.
CLEAN_PLAN = 'run("go to countertop 1")\nrun("take plate 3 from countertop 1")\nobj = "plate 3"\nclean_and_store(obj)'
CLEAN_STORE = (
    'run("go to sinkbasin 1")\nrun(f"clean {obj} with sinkbasin 1")\n'
    'run("go to fridge 1")\nrun("open fridge 1")\nrun(f"put {obj} in/on fridge 1")'
)


def log_text(app) -> str:
    return "\n".join(app.debug_screen.env_log.lines)


async def test_solve_a_put_game_by_typing_the_expansion() -> None:
    app = build_app(console_options())
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        assert "TASK put a vase in sidetable." in log_text(app)
        await command(pilot, app, "c")
        assert app.debug_screen.run_state == "awaiting expansion"
        assert app.focused is app.debug_screen.editor.editor
        assert "Prompt for n0 `solve(instruction, observation)`" in str(app.debug_screen.pending_prompt[0])
        # The thought first, then the code inside <execute>.
        await pilot.press("up", "up", "up")
        await type_text(pilot, "the vase is on the dining table")
        await pilot.press("down", "down", "down")
        await type_text(pilot, PUT_PLAN)
        await command(pilot, app, "ctrl+s")
        assert isinstance(app.debug_screen.debugger.last_event, ev.LLMAnswered)
        assert app.debug_screen.agent.tree.root.thought == "the vase is on the dining table"
        assert len(app.debug_screen.agent.tree.root.children) == 4
        await command(pilot, app, "c")
        assert app.debug_screen.run_state == "done"
        assert app.debug_screen.agent.finished.success
        assert "══ WON (4 steps) ══" in log_text(app)
        assert all(c.status is NodeStatus.COMPLETED for c in app.debug_screen.agent.tree.root.children)


async def test_solve_a_clean_game_with_a_nested_placeholder() -> None:
    app = build_app(console_options("clean-01"))
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")
        await type_text(pilot, CLEAN_PLAN)
        await command(pilot, app, "ctrl+s")
        # continue runs the two actions and stops at the next expansion the human must write
        await command(pilot, app, "c")
        assert app.debug_screen.run_state == "awaiting expansion"
        assert app.debug_screen.debugger.last_event.node_id == "n4"
        assert "clean_and_store(obj)" in app.debug_screen.editor.query_one("#expand-header").render().plain
        assert "- obj (str): plate 3" in app.debug_screen.pending_prompt[1]
        assert "2 > take plate 3 from countertop 1" in log_text(app)
        await type_text(pilot, CLEAN_STORE)
        await command(pilot, app, "ctrl+s")
        await command(pilot, app, "c")
        assert app.debug_screen.agent.finished is not None and app.debug_screen.agent.finished.success
        assert app.debug_screen.run_state == "done"
        assert "episode won" in app.debug_screen.reason


async def test_invalid_expansion_is_refused_and_the_text_stays() -> None:
    app = build_app(console_options())
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")
        await type_text(pilot, 'run("look")\nfor x in [1, 2]:\n    find_vase(x)')
        typed = app.debug_screen.editor.editor.text
        stops = app.debug_screen.stops
        await pilot.press("ctrl+s")
        await pilot.pause(0.1)
        assert app.debug_screen.stops == stops and app.debug_screen.debugger.awaiting_human  # nothing was sent
        check = app.debug_screen.editor.last_check
        assert not check.ok and check.message.startswith("line 7: placeholder `find_vase(...)` is inside a loop")
        assert "line 7" in app.debug_screen.editor.query_one("#expand-check").render().plain
        assert app.debug_screen.editor.editor.text == typed
        # Leaving the editor, switching tabs and resizing loses nothing.
        await pilot.press("escape")
        await pilot.press("r")
        assert app.debug_screen.query_one("#bottom").active == "tab-prompt"
        await pilot.resize_terminal(120, 40)
        await pilot.press("e")
        assert app.debug_screen.editor.editor.text == typed
        assert app.debug_screen.drafts["n0"] == typed
        await pilot.resize_terminal(*SIZE)
        # Fix it: the plan is accepted.
        app.debug_screen.editor.editor.load_text('run("look")\nfind_vase()')
        await command(pilot, app, "ctrl+s")
        assert isinstance(app.debug_screen.debugger.last_event, ev.LLMAnswered)


def demo_app(**kwargs):
    return build_app(console_options("put-01", "demo", breakpoints=[], **kwargs))


async def add_breakpoint(pilot, app, spec: str) -> None:
    await pilot.press("B")
    app.debug_screen.query_one("#bp-input", Input).focus()
    await type_text(pilot, spec)
    await pilot.press("enter")
    await pilot.pause()
    app.debug_screen.tree_view.focus()


async def test_stop_at_a_stub_name_breakpoint() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await add_breakpoint(pilot, app, "stub put_in_receptacle")
        assert app.debug_screen.debugger.breakpoints[0].value == "put_in_receptacle"
        await command(pilot, app, "c")
        event = app.debug_screen.debugger.last_event
        assert isinstance(event, ev.LLMRequested)
        assert app.debug_screen.agent.tree.nodes[event.node_id].code.endswith("put_in_receptacle(obj, target_type, places, seen)")
        assert app.debug_screen.reason == "breakpoint 1: stub `put_in_receptacle` — put_in_receptacle"
        assert app.debug_screen.run_state == "paused"
        table = app.debug_screen.query_one("#bp-table", DataTable)
        assert table.get_row_at(0)[-1] == "1"  # hit count
        # The tree shows the stub as the current node, its path open.
        item = app.debug_screen.tree_view.item(event.node_id)
        assert app.debug_screen.tree_view.cursor_node is item
        assert item.label.plain.startswith("▸◆ ")  # the current node, a stub


async def test_b_toggles_a_breakpoint_on_the_selected_stub() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await pilot.press("b")
        bp = app.debug_screen.debugger.breakpoints[-1]
        assert (bp.kind.value, bp.value) == ("stub_name", "solve")
        await command(pilot, app, "c")
        assert app.debug_screen.reason.startswith(f"breakpoint {bp.number}: stub `solve`")
        await pilot.press("b")
        assert app.debug_screen.debugger.breakpoints == []


async def test_stop_at_an_action_regex_breakpoint() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await add_breakpoint(pilot, app, r"action ^take\b")
        await command(pilot, app, "c")
        event = app.debug_screen.debugger.last_event
        assert isinstance(event, ev.ActionSent) and event.action == "take vase 1 from diningtable 1"
        assert app.debug_screen.reason == "breakpoint 1: action matches '^take\\b' — take vase 1 from diningtable 1"
        assert "> take vase 1" in log_text(app)  # the action is shown, its observation not yet
        assert "You pick up" not in log_text(app)
        await command(pilot, app, "n")
        assert "You pick up the vase 1" in log_text(app)


async def test_continue_runs_to_the_next_expansion() -> None:
    app = build_app(console_options("put-01", "demo"))  # every-stub breakpoint on
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        seen = []
        for _ in range(3):
            await command(pilot, app, "c")
            assert isinstance(app.debug_screen.debugger.last_event, ev.LLMRequested)
            seen.append(app.debug_screen.debugger.last_event.node_id)
            assert app.debug_screen.reason.startswith("breakpoint 1: every stub expansion")
        assert len(set(seen)) == 3
        assert app.debug_screen.query_one("#prompt-text").text.startswith(app.debug_screen.pending_prompt[1][:200])


LOOP_SCRIPT = ScriptedLLM(
    [
        ScriptEntry(
            "<think>look at three places</think><execute>\n"
            'for place in ["coffeetable 1", "diningtable 1", "sidetable 1"]:\n'
            '    obs = run("go to " + place)\n'
            "</execute>",
            stub="solve(instruction, observation)",
        )
    ]
)


async def test_step_into_stops_between_the_actions_of_a_loop() -> None:
    app = build_app(console_options(breakpoints=[]), LOOP_SCRIPT)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        while not (isinstance(app.debug_screen.debugger.last_event, ev.NodeStarted) and app.debug_screen.debugger.last_event.node_id == "n1"):
            await command(pilot, app, "s")
        actions = []
        for _ in range(3):
            await command(pilot, app, "s")
            event = app.debug_screen.debugger.last_event
            assert isinstance(event, ev.ActionSent) and event.node_id == "n1"
            actions.append(event.action)
            assert log_text(app).count(" > ") == len(actions)  # one more action each time
        assert actions == ["go to coffeetable 1", "go to diningtable 1", "go to sidetable 1"]
        assert app.debug_screen.agent.tree.nodes["n1"].status is NodeStatus.RUNNING


async def test_variables_pane_marks_what_changed() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        pane = app.debug_screen.variables
        assert pane.marks == {"instruction": "new", "observation": "new"}
        await add_breakpoint(pilot, app, "depth 2")
        await command(pilot, app, "c")
        marked = set(pane.marks)
        assert {"obj_type", "target_type", "places", "seen"} <= marked
        assert "instruction" not in marked
        table = app.debug_screen.query_one("#vars-table", DataTable)
        assert table.get_cell("places", "mark").plain in {"+", "●"}
        assert table.get_cell("instruction", "mark").plain == " "
        assert table.get_cell("places", "type").plain == "list[str]"
        # Stepping over that node marks only what its subtree bound.
        app.debug_screen.debugger.toggle_breakpoint(1)
        await command(pilot, app, "o")
        assert "obj" in pane.marks and "source" in pane.marks
        assert "places" not in pane.marks and "obj_type" not in pane.marks
        # Selecting a row shows the full value.
        table.focus()
        table.move_cursor(row=table.get_row_index("places"))
        await wait_for(pilot, lambda: app.debug_screen.variables.full_text.startswith("['armchair 1'"), what="the full value of places")


async def test_help_lists_every_binding_with_its_id() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await pilot.press("question_mark")
        await pilot.pause()
        from recode_tui.console.screens.help_screen import HelpScreen

        assert isinstance(app.screen, HelpScreen)
        ids = {row[2] for row in app.screen.rows}
        for binding in DebugScreen.BINDINGS + BreakpointsPane.BINDINGS + AnswerEditor.BINDINGS:
            assert binding.id in ids
        assert ("n", "Next", "step.next") in app.screen.rows
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_a_changes_breakpoint_stops_when_the_value_moves_and_says_from_what_to_what() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await add_breakpoint(pilot, app, "changes len(seen)")
        assert app.debug_screen.debugger.breakpoints[0].describe() == "`len(seen)` changes"
        await command(pilot, app, "c")
        first = app.debug_screen.reason
        assert first.startswith("breakpoint 1: `len(seen)` changes — <NameError: name 'seen' is not defined> → 0"), first
        await command(pilot, app, "c")
        assert app.debug_screen.reason.startswith("breakpoint 1: `len(seen)` changes — 0 → 1"), app.debug_screen.reason
        assert app.debug_screen.debugger.breakpoints[0].hit_count == 2


async def test_esc_in_the_breakpoint_add_box_goes_back_to_the_list_so_keys_step_again() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await pilot.press("B")
        app.debug_screen.query_one("#bp-input", Input).focus()
        await type_text(pilot, "depth 2")
        await pilot.press("enter")
        await pilot.pause()
        assert app.focused is app.debug_screen.query_one("#bp-table", DataTable)  # added: back to the list
        await pilot.press("a")
        await type_text(pilot, "dep")
        assert isinstance(app.focused, Input)
        await pilot.press("escape")
        await pilot.pause()
        assert app.focused is app.debug_screen.query_one("#bp-table", DataTable)
        await command(pilot, app, "c")  # a step key again, not a letter typed into the box
        assert app.debug_screen.reason.startswith("breakpoint 1: depth >= 2")
