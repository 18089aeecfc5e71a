"""`recode-tui tui --diff A B` in a real terminal at 80x24 and 200x50: a fork and its parent (real ALFWorld)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.rundiff.test_diff_fork import PLAN, make_fork_and_parent

from .terminal import Tmux, needs_tmux, recode_tui

pytestmark = [pytest.mark.heavy, needs_tmux]


@pytest.fixture(scope="module")
def fork_and_parent(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return make_fork_and_parent(tmp_path_factory.mktemp("fork"))


def divergence_row(screen: str) -> str:
    """The row marked as the divergence (`│!`), or '' while none is drawn."""
    return next((line for line in screen.splitlines() if line.startswith("│!")), "")


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
def test_the_diff_screen_in_tmux(tmux: Tmux, fork_and_parent, size) -> None:
    parent, fork = fork_and_parent
    session = f"diff-{size[0]}"
    tmux.start(session, size, recode_tui(f"tui --diff {parent} {fork}"))
    try:
        # both sides drawn (the rows can paint before the panes below them), the plan stub's row marked as
        # the divergence, the keys below
        screen = tmux.screen_when(session, lambda shown: all(text in shown for text in (
            "first divergence: an LLM answer", "╭─ B ", "n Next diff")) and PLAN in divergence_row(shown),
            "the diff drawn, the plan's row marked")
        lines = screen.splitlines()
        assert len(lines) <= size[1] and all(len(line) <= size[0] for line in lines)
        if size[0] < 120:  # stacked: B's pane below A's
            assert screen.index("╭─ B ") > screen.index("╭─ A ")
            assert any(line.startswith("╭─ B ") for line in lines), screen
        else:  # side by side: both pane titles on one line
            assert any("╭─ A " in line and "╭─ B " in line for line in lines), screen
        tmux.keys(session, "t")  # the steps: opens where the actions part
        # B's look at step 5, where the actions part
        tmux.screen_when(session, lambda shown: "environment steps" in shown and "5 look" in divergence_row(shown),
                         "the steps, B's look at step 5 marked")
        tmux.keys(session, "q")  # the screen is all `tui --diff` shows: q ends it
        assert tmux.ended(session), tmux.screen(session)
    finally:
        tmux.kill_session(session)
