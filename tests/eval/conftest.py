"""Fixtures of the eval tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def without_early_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """`eval` in this process starts no ALFWorld worker before it reads its settings: for bad-input tests, whose
    input never reaches that worker's engine (it costs a third of a CPU-second to warm). Bad input with the
    worker, in a process of its own, exits 2 with one line and leaves no worker: test_eval_workers.py."""
    from recode_tui.commands import cli

    monkeypatch.setattr(cli, "eval_worker", lambda args: None)
