"""ScienceWorld in the console: `tui --env sciworld --game find-animal/0 --llm human`, a person types the plan."""

from __future__ import annotations

import shutil

import pytest

from recode_tui.cli import build_parser, console_app
from recode_tui.widgets.status_bar import StatusBar

from .helpers import SIZE, command, started, type_text

pytestmark = pytest.mark.skipif(shutil.which("java") is None, reason="no Java runtime (.ci/run installs one)")

# find-animal/0's gold path (the simulator's own), typed as one plan.
PLAN = "\n".join(f'run("{action}")' for action in [
    "open door to kitchen", "go to kitchen", "open door to outside", "go to outside", "look around",
    "focus on butterfly", "pick up butterfly", "open door to kitchen", "go to kitchen",
    "move egg butterfly egg in inventory to red box",
])


async def test_a_person_solves_find_animal_in_the_console_with_the_score_shown(tmp_path) -> None:
    args = build_parser().parse_args(["tui", "--env", "sciworld", "--game", "find-animal/0", "--llm", "human",
                                      "--sessions", str(tmp_path)])
    app = console_app(args)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)  # the JVM started in the engine's thread, after the first paint
        status = app.query_one(StatusBar)
        assert "sciworld find-animal/0" in status.text and "score 0/100" in status.text
        assert "TASK Your task is to find a(n) animal" in "\n".join(app.env_log.lines)
        await command(pilot, app, "c")
        assert app.run_state == "awaiting expansion"
        await type_text(pilot, PLAN)
        await command(pilot, app, "ctrl+s")
        await command(pilot, app, "c")
        assert app.run_state == "done" and app.engine.finished.success
        log = "\n".join(app.env_log.lines)
        assert "score 0 → " in log and "→ 100" in log  # the environment log notes each score change
        assert "score 100/100" in status.text
        assert "══ WON: won (10 steps) ══" in log
