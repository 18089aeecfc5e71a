"""The diff screen as SVG snapshots: a fork and its parent (real ALFWorld, scripted LLM) at 80x24 and 200x50.

The two session folders are copied to fixed names, so nothing time- or path-dependent is on screen.
Update with `pytest --snapshot-update`.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from agent.sessions.journal_read import read_journal
from agent.eval.rundiff.diff import diff_runs
from recode_tui.console.viewers.diff_file import DiffApp
from tests.rundiff.test_diff_fork import GAME, fork_of, play, plan_llm, walkthrough

from .helpers import key_pressed, settled


@pytest.fixture()
def fixed_runs(tmp_path: Path) -> tuple[Path, Path]:
    async def make() -> tuple[Path, Path]:
        steps = walkthrough(GAME)
        parent = await play(tmp_path / "made", GAME, plan_llm(steps))
        return parent, await fork_of(tmp_path / "made", parent, steps[:4] + ["look"])

    parent, fork = asyncio.run(make())
    a, b = tmp_path / "runs" / "cool-03-parent", tmp_path / "runs" / "cool-03-parent~fork_n1"
    shutil.copytree(parent, a)
    shutil.copytree(fork, b)
    return a, b


def test_diff_screen_at_80x24_on_the_steps(snap_compare, fixed_runs) -> None:
    a, b = fixed_runs
    app = DiffApp(diff_runs(read_journal(a), read_journal(b)))

    async def run_before(pilot) -> None:
        await settled(pilot)
        await key_pressed(pilot.app, "t")  # the steps, at the step where the actions part
        await settled(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_diff_screen_at_200x50_on_the_nodes(snap_compare, fixed_runs) -> None:
    a, b = fixed_runs
    app = DiffApp(diff_runs(read_journal(a), read_journal(b)))

    async def run_before(pilot) -> None:
        await settled(pilot)

    assert snap_compare(app, terminal_size=(200, 50), run_before=run_before)
