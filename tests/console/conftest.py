"""Console tests share the helpers in tests/console/helpers.py."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def private_sessions(tmp_path_factory, monkeypatch) -> None:
    """The console journals every run it starts: into a temporary folder, never the user's data dir.

    A tmux server started by a test inherits this environment, so real console
    processes journal there too.
    """
    monkeypatch.setenv("RECODE_TUI_SESSIONS", str(tmp_path_factory.mktemp("sessions")))
