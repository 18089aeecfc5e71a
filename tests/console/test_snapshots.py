"""Screens of the console as SVG snapshots (pytest-textual-snapshot).

A 160x48 terminal (and the small ones, 80x24 and 100x30, at the end), cursor blink off, scripted or human LLMs only, nothing
time- or path-dependent on screen. Update with `pytest --snapshot-update`.
"""

from __future__ import annotations

from agent.runtime.breakpoints import Breakpoint, BreakpointKind
from mockllm.scripted import ScriptedLLM, ScriptEntry
from recode_tui.console.app import build_app

from .helpers import SIZE, checked, command, started, type_text, wait_for
from tests.settings import console_options


def test_start_screen(snap_compare) -> None:
    app = build_app(console_options())

    async def run_before(pilot) -> None:
        await started(pilot, app)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_awaiting_expansion(snap_compare) -> None:
    app = build_app(console_options())

    async def run_before(pilot) -> None:
        await started(pilot, app)
        await command(pilot, app, "c")
        await type_text(pilot, 'run("go to diningtable 1")\nfor x in [1]:\n    take_it(x)')
        await checked(pilot, app)  # the live check runs after a short quiet
        app.clear_notifications()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_breakpoint_hit(snap_compare) -> None:
    app = build_app(console_options("put-01", "demo",
                                    breakpoints=[Breakpoint(BreakpointKind.ACTION_REGEX, r"^take\b")]))

    async def run_before(pilot) -> None:
        await started(pilot, app)
        await command(pilot, app, "c")
        app.clear_notifications()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


ERROR_SCRIPT = [
    ScriptEntry(
        "<think>look at the table, then read the fifth word past the end</think>\n<execute>\n"
        'obs = run("go to diningtable 1")\nword = obs.split()[100]\n</execute>',
        stub="solve(instruction, observation)",
    )
]


def test_error(snap_compare) -> None:
    app = build_app(console_options(breakpoints=[Breakpoint(BreakpointKind.ANY_ERROR)]), ScriptedLLM(ERROR_SCRIPT))

    async def run_before(pilot) -> None:
        await started(pilot, app)
        await command(pilot, app, "c")
        app.clear_notifications()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_episode_won(snap_compare) -> None:
    app = build_app(console_options("put-01", "demo", breakpoints=[]))

    async def run_before(pilot) -> None:
        await started(pilot, app)
        await command(pilot, app, "c")
        app.clear_notifications()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


# -- small terminals ------------------------------------------------------------------------------

SMALL = (80, 24)
MEDIUM = (100, 30)


def test_awaiting_expansion_at_80x24(snap_compare) -> None:
    """The tree, the node and the editor all have rows; the status line is cut, not wrapped."""
    app = build_app(console_options())

    async def run_before(pilot) -> None:
        await started(pilot, app)
        await command(pilot, app, "c")
        await type_text(pilot, 'fetch_vase()\nrun("go to sidetable 1")\nrun("move vase 1 to sidetable 1")')
        await command(pilot, app, "ctrl+s")
        await command(pilot, app, "c")
        await checked(pilot, app)
        app.clear_notifications()

    assert snap_compare(app, terminal_size=SMALL, run_before=run_before)


def test_variables_and_log_at_80x24(snap_compare) -> None:
    app = build_app(console_options("put-01", "demo"))

    async def run_before(pilot) -> None:
        await started(pilot, app)
        await command(pilot, app, "c")
        await pilot.press("v")
        app.clear_notifications()

    assert snap_compare(app, terminal_size=SMALL, run_before=run_before)


def test_breakpoint_hit_at_100x30(snap_compare) -> None:
    """The stop reason stays on the second status line."""
    app = build_app(console_options("put-01", "demo",
                                    breakpoints=[Breakpoint(BreakpointKind.ACTION_REGEX, r"^take\b")]))

    async def run_before(pilot) -> None:
        await started(pilot, app)
        await command(pilot, app, "c")
        tree = app.debug_screen.tree_view  # the tree scrolls to the current node after a refresh: wait for it
        await wait_for(pilot, lambda: tree.cursor_node is not None and tree.cursor_node.data == tree.current_id,
                       what="the tree's cursor on the current node")
        await pilot.pause()
        tree.scroll_to(y=0, animate=False, immediate=True)  # from the top, whichever refresh came first
        await pilot.pause()
        tree.scroll_to_node(tree.cursor_node, animate=False)
        await pilot.pause()
        await pilot.pause()
        app.clear_notifications()

    assert snap_compare(app, terminal_size=MEDIUM, run_before=run_before)


def test_zoomed_tree_at_80x24(snap_compare) -> None:
    app = build_app(console_options("put-01", "demo", breakpoints=[]))

    async def run_before(pilot) -> None:
        await started(pilot, app)
        await command(pilot, app, "c")
        await pilot.press("z")
        app.clear_notifications()

    assert snap_compare(app, terminal_size=SMALL, run_before=run_before)
