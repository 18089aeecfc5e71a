"""The console in a real terminal: a private tmux server, read as a person sees it."""

from __future__ import annotations

import shutil
import subprocess
import time
from typing import Callable

import pytest

# Every module that drives a real terminal skips, not fails, where tmux is missing
# (.ci/run installs it): `pytestmark = needs_tmux`.
needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (.ci/run installs it)")


class Tmux:
    """One private tmux server (`-L`, no user config), so other sessions can't resize ours."""

    def __init__(self, socket: str) -> None:
        self.socket = socket

    def __call__(self, *args: str) -> subprocess.CompletedProcess:
        deadline = time.monotonic() + 10
        while True:
            done = subprocess.run(
                ["tmux", "-L", self.socket, "-f", "/dev/null", *args], capture_output=True, text=True, timeout=10
            )
            # The server an earlier test killed may still be exiting on this socket: wait for it.
            if "server exited unexpectedly" not in done.stderr or time.monotonic() > deadline:
                return done
            time.sleep(0.2)

    def screen(self, session: str) -> str:
        return self("capture-pane", "-p", "-t", session).stdout

    def wait_for(self, session: str, text: str, timeout: float = 40.0) -> str:
        deadline = time.monotonic() + timeout
        shown = ""
        while time.monotonic() < deadline:
            shown = self.screen(session)
            if text in shown:
                return shown
            time.sleep(0.2)
        raise AssertionError(f"{text!r} never appeared; the screen was:\n{shown}")

    def wait_until(self, session: str, check: Callable[[str], bool], what: str, timeout: float = 40.0) -> str:
        """The first screen on which `check` holds: a state, not a moment (lines may paint one after another)."""
        deadline = time.monotonic() + timeout
        shown = ""
        while time.monotonic() < deadline:
            shown = self.screen(session)
            if check(shown):
                return shown
            time.sleep(0.2)
        raise AssertionError(f"{what} never held; the screen was:\n{shown}")

    def wait_for_all(self, session: str, *texts: str, timeout: float = 40.0) -> str:
        """The first screen that shows every one of `texts` at once."""
        return self.wait_until(session, lambda shown: all(text in shown for text in texts),
                               f"all of {texts!r} on one screen", timeout)

    def kill_server(self) -> None:
        self("kill-server")
