"""Snapshots of the model screens: a proposal under review, an LLM failure, the LLM picker.

In-process scripted LLMs only (no server, no port on screen). Update with
`pytest --snapshot-update`.
"""

from __future__ import annotations

from pathlib import Path

from mockllm.scripted import ScriptedLLM, ScriptEntry
from recode_tui.console.app import build_app

from .helpers import SIZE, checked, command, keys_settled, started, wait_for
from tests.settings import console_options

PROPOSAL = (
    "<think>The vase is on the dining table.</think>\n<execute>\n"
    'run("go to diningtable 1")\nrun("take vase 1 from diningtable 1")\n'
    'run("go to sidetable 1")\nrun("put vase 1 in/on sidetable 1")\n</execute>\n'
)


def test_review_proposal(snap_compare) -> None:
    app = build_app(console_options(review=True, breakpoints=[]), ScriptedLLM([ScriptEntry(PROPOSAL)]))

    async def run_before(pilot) -> None:
        await started(pilot, app)
        await pilot.press("c")
        await wait_for(pilot, lambda: app.debug_screen.llm_control.reviewing is not None and app.debug_screen.editor.is_open
                       and app.debug_screen.run_state == "reviewing" and keys_settled(app),
                       what="the proposal and its keys")
        await checked(pilot, app)
        app.clear_notifications()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_llm_failure(snap_compare) -> None:
    app = build_app(console_options(breakpoints=[]), ScriptedLLM([]))

    async def run_before(pilot) -> None:
        await started(pilot, app)
        await command(pilot, app, "c")
        app.clear_notifications()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_llm_picker(snap_compare, tmp_path: Path) -> None:
    profiles = tmp_path / "profiles.yaml"
    profiles.write_text("models:\n  local:\n    base_url: http://127.0.0.1:9/v1\n    model: local-test-model\n")
    app = build_app(console_options(profiles=str(profiles), breakpoints=[]), ScriptedLLM([]))

    async def run_before(pilot) -> None:
        await started(pilot, app)
        await command(pilot, app, "c")
        app.clear_notifications()
        await pilot.press("L")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
