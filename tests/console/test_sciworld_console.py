"""ScienceWorld in the console: `tui --env sciworld --game boil/0 --llm human`, a person types the plan."""

from __future__ import annotations

import shutil
import threading

import pytest

from envs.sciworld import simulator as simulator_module
from recode_tui.console.app import RecodeApp
from recode_tui.console.screens.debug_screen import DebugScreen
from recode_tui.commands.cli import console_app
from recode_tui.commands.parser import build_parser
from recode_tui.console.widgets.status_bar import StatusBar

from .page import ConsolePage

pytestmark = [pytest.mark.heavy, pytest.mark.skipif(shutil.which("java") is None, reason="no Java runtime (.ci/run installs one)")]

# What a person who knows the kitchen types for boil/0 (14 actions; the simulator's gold path has 39).
BOIL = [
    "open door to kitchen", "go to kitchen", "pick up thermometer", "open cupboard", "pick up metal pot",
    "move metal pot to sink", "activate sink", "deactivate sink", "pick up metal pot",
    "focus on substance in metal pot", "move metal pot to stove", "activate stove", "wait", "wait",
]
BOIL_PLAN = "\n".join(f'run("{action}")' for action in BOIL)


def _app(tmp_path, episode_ref: str = "boil/0") -> RecodeApp:
    args = build_parser().parse_args(["tui", "--env", "sciworld", "--game", episode_ref, "--llm", "human",
                                      "--sessions", str(tmp_path)])
    return console_app(args)


async def test_the_jvm_starts_after_the_first_frame_and_off_the_event_loop(tmp_path, monkeypatch) -> None:
    """The console paints before the ~1-2 s JVM start, which runs in the agent's thread, not the UI's."""
    fresh = simulator_module.Simulator()  # this process's JVM may be up already: a simulator with none yet
    earlier = simulator_module.shared_simulator()
    simulator_module._shared = fresh  # kept as the process's afterwards: the next test needs no JVM start of its own
    painted: list[bool] = []
    starts: list[tuple[bool, bool]] = []  # (painted before the start?, on the event loop's thread?)
    mount = DebugScreen.on_mount

    def mount_noting_the_first_frame(self: DebugScreen) -> None:
        # Textual runs the calls queued with `call_after_refresh` once the screen is drawn, in order: this one
        # comes before the run's start the screen queues as it mounts. A signal set with the frame, where
        # the app's `Ready` message raced the JVM's start thread (handled whenever the loop gets to it).
        self.call_after_refresh(painted.append, True)
        mount(self)

    monkeypatch.setattr(DebugScreen, "on_mount", mount_noting_the_first_frame)
    real_start = fresh._start

    def start():
        starts.append((bool(painted), threading.current_thread() is threading.main_thread()))
        return real_start()

    monkeypatch.setattr(fresh, "_start", start)
    earlier.close()  # its JVM, if it had one, stops (no one holds it now)
    async with ConsolePage.open(_app(tmp_path, "find-animal/0")) as page:  # the task is shown: the JVM is up
        assert painted
        assert "TASK Your task is to find a(n) animal" in " ".join(page.log().split())  # the pane wraps it at 100x30
    assert starts == [(True, False)]  # one start, after the first frame, off the UI thread


async def test_a_person_solves_boil_in_the_console_with_the_score_shown(tmp_path) -> None:
    async with ConsolePage.open(_app(tmp_path)) as page:
        status = page.screen.query_one(StatusBar)
        assert "sciworld boil/0" in status.text and "score 0/100" in status.text
        assert "TASK Your task is to boil water" in " ".join(page.log().split())  # the pane wraps it at 100x30
        await page.step("continue")
        assert page.state == "awaiting expansion"
        await page.answer(BOIL_PLAN)
        await page.step("continue")
        assert page.state == "done" and page.screen.agent.host.finished.success
        log = " ".join(page.log().split())
        assert "score 0 → 3" in log and "→ 100" in log  # the environment log notes each score change
        assert "score 100/100" in status.text
        assert "══ WON (14 steps) ══" in log
