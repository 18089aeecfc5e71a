"""Console tests share the helpers in tests/console/helpers.py."""

from __future__ import annotations

import os
from typing import Iterator

import pytest

from .terminal import Tmux


@pytest.fixture(autouse=True)
def private_sessions(tmp_path_factory, monkeypatch) -> None:
    """The console journals every run it starts: into a temporary folder, never the user's data dir.

    A tmux session a test starts gets it too (`Tmux.start` passes it), so real console
    processes journal there too.
    """
    monkeypatch.setenv("RECODE_TUI_SESSIONS", str(tmp_path_factory.mktemp("sessions")))


@pytest.fixture(scope="module")
def tmux(request) -> Iterator[Tmux]:
    """One private tmux server for a module's terminal tests (terminal.py); each test ends its own sessions."""
    server = Tmux(f"recode-tui-{request.module.__name__.rsplit('.', 1)[-1]}-{os.getpid()}")
    server.serve()
    yield server
    server.kill_server()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed snapshot says which screen rows differ (CI keeps only this output, not the HTML report)."""
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed or "snap_compare" not in getattr(item, "fixturenames", ()):
        return
    from .snapshot_diff import describe_mismatch

    text = describe_mismatch(item)
    if text:
        report.sections.append(("snapshot rows that differ", text))
