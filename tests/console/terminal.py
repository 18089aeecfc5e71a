"""The console in a real terminal: a private tmux server, read as a person sees it.

A read waits on the terminal, not on a clock: each session has a control-mode client (`tmux -C attach`),
to which tmux sends an `%output` line for every write a program makes to the pane. The pane is captured
once at the start and again after each write, until the state asked for is on the screen. tmux parses a
write into the pane before it reads the next command, so a capture that follows a write shows it; a state
the program drew last is seen as soon as it is drawn, and no read looks at the screen on a clock's tick.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable, Iterator

import pytest

from tests import toyenv

# Every module that drives a real terminal skips, not fails, where tmux is missing
# (.ci/run installs it): `pytestmark = needs_tmux`.
needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (.ci/run installs it)")

HANG_SECONDS = 90.0  # a bound only against a hang: every read returns when the screen shows its state
ROOT = Path(__file__).resolve().parents[2]
# `recode_tui`'s `env` for a console on the toy world (tests/toyenv): its process finds the world as a plugin
# (the tmux server keeps the environment it started with, not the test's)
TOY_WORLD = f"RECODE_TUI_PLUGINS={toyenv.PLUGIN} PYTHONPATH={ROOT}"
NARROW = 100  # below this width the console shows its own key line (widgets/key_line.py), else Textual's footer


def recode_tui(args: str, env: str = "") -> str:
    """The shell command that runs `python -m recode_tui ARGS` from the checkout, `env` (`NAME=value ...`) set.

    Textual takes COLUMNS/LINES from the environment over the terminal's size: they are dropped."""
    return f"cd {ROOT} && env -u COLUMNS -u LINES {env} {sys.executable} -m recode_tui {args}"


def editor_keys(width: int) -> tuple[str, ...]:
    """What the last row shows while the answer editor has the keys."""
    return ("esc leave editor", "^s submit") if width < NARROW else ("esc Leave editor", "^s Submit")


def pane_keys(width: int) -> str:
    """What the last row shows while the panes have the keys (a step key is read)."""
    return "n s o u c step" if width < NARROW else "c Continue"


class PaneWrites:
    """A control-mode client of one session: counts the writes to its pane and sees the session end."""

    def __init__(self, command: list[str]) -> None:
        self.writes = 0
        self.ended = False
        self._changed = threading.Condition()
        self._attached = threading.Event()
        # stdin stays open: a control client whose input ends detaches
        self._client = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        if not self._attached.wait(HANG_SECONDS):
            raise AssertionError(f"tmux's control client never attached: {command}")

    def _read(self) -> None:
        assert self._client.stdout is not None
        for line in self._client.stdout:
            if line.startswith(b"%output "):
                with self._changed:
                    self.writes += 1
                    self._changed.notify_all()
            elif line.startswith(b"%session-changed "):  # attached: every later write is sent to us
                self._attached.set()
            elif line.startswith(b"%exit"):
                break
        with self._changed:
            self.ended = True
            self._changed.notify_all()
        self._attached.set()

    def wait_past(self, seen: int, deadline: float) -> bool:
        """Until a write after the `seen`th or the session's end; False at the deadline."""
        with self._changed:
            return self._changed.wait_for(lambda: self.writes != seen or self.ended, deadline - time.monotonic())

    def wait_ended(self, deadline: float) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: self.ended, deadline - time.monotonic())

    def close(self) -> None:
        if self._client.poll() is None:
            assert self._client.stdin is not None
            self._client.stdin.close()  # detaches
            try:
                self._client.wait(10)
            except subprocess.TimeoutExpired:
                self._client.kill()
                self._client.wait()
        elif self._client.stdin is not None:
            self._client.stdin.close()
        self._reader.join(10)
        assert self._client.stdout is not None
        self._client.stdout.close()


class Tmux:
    """One private tmux server (`-L`, no user config), so other sessions can't resize ours."""

    def __init__(self, socket: str) -> None:
        self.socket = socket
        self._writes: dict[str, PaneWrites] = {}

    def serve(self) -> None:
        """Start the server to outlive its sessions: one server serves a module's tests, each with its own sessions."""
        done = self("start-server", ";", "set-option", "-g", "exit-empty", "off")
        assert done.returncode == 0, done.stderr

    def __call__(self, *args: str) -> subprocess.CompletedProcess:
        deadline = time.monotonic() + 10
        while True:
            done = subprocess.run(self._argv(*args), capture_output=True, text=True, timeout=10)
            # The server an earlier test killed may still be exiting on this socket: wait for it.
            if "server exited unexpectedly" not in done.stderr or time.monotonic() > deadline:
                return done
            time.sleep(0.2)

    def _argv(self, *args: str) -> list[str]:
        return ["tmux", "-L", self.socket, "-f", "/dev/null", *args]

    def start(self, session: str, size: tuple[int, int], command: str) -> None:
        """A detached session of `size` (columns, rows) running `command`, its writes watched from the start.

        The session gets the test's RECODE_TUI_SESSIONS (tests/console/conftest.py): the server keeps the
        environment of the test that started it, and one server serves a module's tests."""
        journals = os.environ.get("RECODE_TUI_SESSIONS")
        where = ("-e", f"RECODE_TUI_SESSIONS={journals}") if journals else ()
        done = self("new-session", "-d", "-s", session, "-x", str(size[0]), "-y", str(size[1]), *where, command)
        assert done.returncode == 0, done.stderr
        self._watch(session)

    def _watch(self, session: str) -> PaneWrites:
        if session not in self._writes:
            self._writes[session] = PaneWrites(self._argv("-C", "attach", "-t", session))
        return self._writes[session]

    def keys(self, session: str, *keys: str) -> None:
        """Keys by tmux's names (`c`, `Enter`, `C-s`, `Escape`), each its own key press."""
        self("send-keys", "-t", session, *keys)

    def text(self, session: str, text: str) -> None:
        """`text` typed literally, character by character."""
        self("send-keys", "-t", session, "-l", text)

    def screen(self, session: str, *flags: str) -> str:
        return self("capture-pane", "-p", *flags, "-t", session).stdout

    def screen_when(self, session: str, check: Callable[[str], bool], what: str, *flags: str) -> str:
        """The first screen on which `check` holds: a state, not a moment (lines may paint one after another)."""
        writes = self._watch(session)
        deadline = time.monotonic() + HANG_SECONDS
        while True:
            seen = writes.writes
            shown = self.screen(session, *flags)
            if check(shown):
                return shown
            if writes.ended or not writes.wait_past(seen, deadline):
                raise AssertionError(f"{what} never held; the screen was:\n{shown}")

    def screen_showing(self, session: str, *texts: str, line: int | None = None) -> str:
        """The first screen that shows every one of `texts` at once (on its row `line` if given)."""
        def shows(screen: str) -> bool:
            rows = screen.splitlines()
            where = screen if line is None else rows[line] if -len(rows) <= line < len(rows) else ""
            return all(text in where for text in texts)

        return self.screen_when(session, shows, f"all of {texts!r} on {'one screen' if line is None else f'row {line}'}")

    def screens_for(self, session: str, seconds: float) -> Iterator[str]:
        """Every screen the pane shows for `seconds` from now: one now and one after each write (a window to
        watch for what must not show, not a wait)."""
        writes = self._watch(session)
        until = time.monotonic() + seconds
        while True:
            seen = writes.writes
            yield self.screen(session)
            if writes.ended or not writes.wait_past(seen, until):
                return

    def ended(self, session: str) -> bool:
        """Whether the session ends (its program exited) before the hang bound."""
        return self._watch(session).wait_ended(time.monotonic() + HANG_SECONDS)

    def kill_session(self, session: str) -> None:
        self("kill-session", "-t", session)
        writes = self._writes.pop(session, None)
        if writes is not None:
            writes.close()

    def kill_server(self) -> None:
        self("kill-server")
        for writes in self._writes.values():
            writes.close()
        self._writes.clear()
