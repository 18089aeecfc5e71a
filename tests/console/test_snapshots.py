"""Screens of the console as SVG snapshots, several moments of one run per boot (tests/console/shots.py).

A 160x48 terminal, resized to 80x24 and 100x30 for the small ones; cursor blink off, scripted or human
LLMs only, no notifications, nothing time- or path-dependent on screen. The console's own screens run
on the toy world with node code in-process (tests/console/page.py); the demo's run to a won episode
is real ALFWorld with the sandbox, for ALFWorld's own text in the log. Update with `pytest --snapshot-update`.
"""

from __future__ import annotations

import pytest

from agent.runtime.breakpoints import Breakpoint, BreakpointKind
from mockllm.scripted import ScriptedLLM, ScriptEntry
from recode_tui.console.app import build_app

from .helpers import WIDE, checked, command, key_pressed, started, type_text
from .page import toy_app
from .shots import shots  # noqa: F401 - the fixture
from tests.settings import console_options

SMALL = (80, 24)
MEDIUM = (100, 30)


async def test_a_human_answers_from_the_first_stop_to_a_nested_stub(shots, toy_env) -> None:
    """The first stop; a loop around a placeholder flagged by the live check; at 80x24, the tree, the
    node and the editor all have rows and the status line is cut, not wrapped."""
    app = toy_app()
    async with app.run_test(size=WIDE) as pilot:
        await started(pilot, app)
        await shots.match(pilot, "start_screen")
        await command(pilot, app, "c")
        await type_text(pilot, 'run("go to diningtable 1")\nfor x in [1]:\n    take_it(x)')
        await checked(pilot, app)  # the live check runs after a short quiet
        await shots.match(pilot, "awaiting_expansion")
        await key_pressed(app, "ctrl+r")  # the editor back to the skeleton
        await type_text(pilot, 'fetch_vase()\nrun("go to sidetable 1")\nrun("move vase 1 to sidetable 1")')
        await command(pilot, app, "ctrl+s")
        await pilot.resize_terminal(*SMALL)  # the next stub's editor opens at 80x24
        await command(pilot, app, "c")
        await checked(pilot, app)
        await shots.match(pilot, "awaiting_expansion_at_80x24")


ERROR_SCRIPT = [
    ScriptEntry(
        "<think>look at the table, then read the fifth word past the end</think>\n<execute>\n"
        'obs = run("go to diningtable 1")\nword = obs.split()[100]\n</execute>',
        stub="solve(instruction, observation)",
    )
]


async def test_an_error_stops_the_run_and_v_shows_its_variables_at_80x24(shots, toy_env) -> None:
    app = toy_app(ScriptedLLM(ERROR_SCRIPT), breakpoints=[Breakpoint(BreakpointKind.ANY_ERROR)])
    async with app.run_test(size=WIDE) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")
        await shots.match(pilot, "error")
        await pilot.resize_terminal(*SMALL)
        await key_pressed(app, "v")
        await shots.match(pilot, "variables_and_log_at_80x24")


@pytest.mark.heavy
async def test_the_demo_hits_a_breakpoint_then_wins_on_alfworld(shots) -> None:
    """At 100x30 the stop reason stays on the second status line; at 80x24, z gives the tree the screen."""
    app = build_app(console_options("put-01", "demo",
                                    breakpoints=[Breakpoint(BreakpointKind.ACTION_REGEX, r"^take\b")]))
    async with app.run_test(size=MEDIUM) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")
        tree = app.debug_screen.tree_view
        assert tree.cursor_node is not None and tree.cursor_node.data == tree.current_id
        tree.scroll_to(y=0, animate=False, immediate=True)  # from the top, then to the current node
        tree.scroll_to_node(tree.cursor_node, animate=False)
        await shots.match(pilot, "breakpoint_hit_at_100x30")
        await pilot.resize_terminal(*WIDE)
        await shots.match(pilot, "breakpoint_hit")
        await command(pilot, app, "c")
        await shots.match(pilot, "episode_won")
        await pilot.resize_terminal(*SMALL)
        await key_pressed(app, "z")
        await shots.match(pilot, "zoomed_tree_at_80x24")
