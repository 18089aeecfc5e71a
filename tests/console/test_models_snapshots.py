"""Snapshots of the model screens: a proposal under review, an LLM failure, the LLM picker.

On the toy world with node code in-process (tests/console/page.py), in-process scripted LLMs only (no
server, no port on screen), several moments of a run per boot (tests/console/shots.py). Update with
`pytest --snapshot-update`.
"""

from __future__ import annotations

from pathlib import Path

from mockllm.scripted import ScriptedLLM, ScriptEntry
from recode_tui.console.run.run_state import RunState

from .helpers import WIDE, command, footer_settled, key_pressed, state_entered
from .page import ConsolePage, toy_app
from .shots import shots  # noqa: F401 - the fixture

PROPOSAL = (
    "<think>The vase is on the dining table.</think>\n<execute>\n"
    'run("go to diningtable 1")\nrun("take vase 1 from diningtable 1")\n'
    'run("go to sidetable 1")\nrun("put vase 1 in/on sidetable 1")\n</execute>\n'
)


async def test_review_proposal(shots, toy_env) -> None:
    app = toy_app(ScriptedLLM([ScriptEntry(PROPOSAL)]), review=True, breakpoints=[])
    async with ConsolePage.open(app, size=WIDE) as page:  # awaits the first stop's signal, draws no frame
        pilot = page.pilot
        await key_pressed(app, "c")
        await state_entered(pilot, app, RunState.REVIEWING)
        assert app.debug_screen.llm_control.reviewing is not None and app.debug_screen.editor.is_open
        await page.checked()  # the proposal's check line: its verdict shown
        await footer_settled(pilot)  # the keys a review disables greyed (a frame later)
        await shots.match(pilot, "proposal")  # a finished frame


async def test_an_llm_failure_then_the_llm_picker(shots, toy_env, tmp_path: Path) -> None:
    profiles = tmp_path / "profiles.yaml"
    profiles.write_text("models:\n  local:\n    base_url: http://127.0.0.1:9/v1\n    model: local-test-model\n")
    app = toy_app(ScriptedLLM([]), profiles=str(profiles), breakpoints=[])
    async with ConsolePage.open(app, size=WIDE) as page:
        pilot = page.pilot
        await command(pilot, app, "c")  # the stop, its footer settled
        await shots.match(pilot, "llm_failure")
        await page.opened("L")
        await shots.match(pilot, "llm_picker")
