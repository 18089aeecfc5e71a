"""Screens of the console as SVG snapshots (pytest-textual-snapshot).

Fixed 160x48 terminal, cursor blink off, scripted or human LLMs only, nothing
time- or path-dependent on screen. Update with `pytest --snapshot-update`.
"""

from __future__ import annotations

from agent.debugger import Breakpoint, BreakpointKind
from mockllm.scripted import ScriptedLLM, ScriptEntry
from recode_tui.app import build_app

from .helpers import SIZE, command, started, type_text


def test_start_screen(snap_compare) -> None:
    app = build_app("put-01", "human", cursor_blink=False)

    async def run_before(pilot) -> None:
        await started(pilot, app)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_awaiting_expansion(snap_compare) -> None:
    app = build_app("put-01", "human", cursor_blink=False)

    async def run_before(pilot) -> None:
        await started(pilot, app)
        await command(pilot, app, "c")
        await type_text(pilot, 'run("go to diningtable 1")\nfor x in [1]:\n    take_it(x)')
        await pilot.pause(0.3)  # the live check runs after a short quiet

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_breakpoint_hit(snap_compare) -> None:
    app = build_app(
        "put-01", "demo", cursor_blink=False, breakpoints=[Breakpoint(BreakpointKind.ACTION_REGEX, r"^take\b")]
    )

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
    app = build_app(
        "put-01", ScriptedLLM(ERROR_SCRIPT), cursor_blink=False, breakpoints=[Breakpoint(BreakpointKind.ANY_ERROR)]
    )

    async def run_before(pilot) -> None:
        await started(pilot, app)
        await command(pilot, app, "c")
        app.clear_notifications()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_episode_won(snap_compare) -> None:
    app = build_app("put-01", "demo", cursor_blink=False, breakpoints=[])

    async def run_before(pilot) -> None:
        await started(pilot, app)
        await command(pilot, app, "c")
        app.clear_notifications()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
