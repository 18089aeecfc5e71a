"""The diff screen in Pilot: a fork and its parent (real ALFWorld, scripted LLM), at 200x50 and at 80x24.

It opens at the first divergence (the edited expansion), shows each side's
answer at the selected row, jumps between differences, switches between
nodes and steps, stacks its sides on a small terminal, and is reachable
with `D` from the fork itself in the console.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.sessions.journal_read import read_journal
from agent.eval.rundiff.diff import diff_runs
from recode_tui.commands import cli
from recode_tui.console.viewers.diff_file import DiffApp
from recode_tui.console.screens.diff import DiffScreen
from recode_tui.console.widgets.diff_rows import DiffRows
from tests.rundiff.test_diff_fork import GAME, PLAN, make_fork_and_parent, walkthrough

from .helpers import SIZE, key_pressed, settled
from .page import ConsolePage


@pytest.fixture(scope="module")
def fork_and_parent(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return make_fork_and_parent(tmp_path_factory.mktemp("fork"))


async def press(app: DiffApp, *keys: str) -> None:
    """Keys one by one, each handled (with what it posted) before the next: the rows and sides are read
    from the widgets' state and renders, so no frame is awaited."""
    for key in keys:
        await key_pressed(app, key)


def side(screen: DiffScreen, name: str) -> str:
    return str(screen.query_one(f"#diff-{name}").render())


async def test_the_screen_opens_at_the_edited_expansion_and_walks_the_differences_at_200x50(fork_and_parent) -> None:
    parent, fork = fork_and_parent
    steps = walkthrough(GAME)
    app = DiffApp(diff_runs(read_journal(parent), read_journal(fork)))
    async with app.run_test(size=(200, 50)) as pilot:
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, DiffScreen) and screen.view == "nodes"
        rows = screen.query_one(DiffRows)
        assert rows.cursor == rows.marked >= 0
        assert PLAN in rows.lines[rows.cursor].left  # the plan stub's expansion is where they part
        assert repr(steps) in " ".join(side(screen, "a").split()) and "'look']" in side(screen, "b")
        a, b = screen.query_one("#diff-side-a").region, screen.query_one("#diff-side-b").region
        assert a.y == b.y and b.x >= a.right  # side by side
        # the steps: opens at step 5, where the actions part; n/p walk the rows that differ
        await press(app, "t")
        assert screen.view == "steps" and rows.cursor == rows.marked == 4
        assert "▶  5 > look" in side(screen, "b") and f"▶  5 > {steps[4]}" in side(screen, "a")
        await press(app, "n")
        assert rows.cursor == 5 and rows.lines[5].op == "only_a" and "no step in this row" in side(screen, "b")
        await press(app, "p", "p")
        assert rows.cursor == 4  # no difference above the divergence: it stays
        await press(app, "end", "d")
        assert rows.cursor == 4
        await press(app, "escape")
    assert app.return_code in (0, None)


async def test_the_sides_stack_at_80x24_and_the_divergence_is_on_screen(fork_and_parent) -> None:
    parent, fork = fork_and_parent
    app = DiffApp(diff_runs(read_journal(parent), read_journal(fork)))
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot)
        screen = app.screen
        assert screen.has_class("-stacked")
        a, b = screen.query_one("#diff-side-a").region, screen.query_one("#diff-side-b").region
        assert a.x == b.x and b.y >= a.bottom  # A above B
        rows = screen.query_one(DiffRows)
        assert rows.region.height >= 4 and a.height >= 4 and b.height >= 4
        assert "first divergence: an LLM answer" in str(screen.query_one("#diff-meta").render())
        top = rows.scroll_offset.y
        assert top <= rows.marked < top + rows.scrollable_content_region.height  # the divergence row is in view
        line = "".join(segment.text for segment in rows.render_line(rows.marked - top))
        assert line.startswith("!") and "n1 steps = plan_steps(observation)" in line and len(line) == rows.size.width


@pytest.mark.heavy  # the fork is resumed: its code runs again in the sandbox worker
async def test_D_on_a_fork_in_the_console_diffs_it_against_its_parent(fork_and_parent, tmp_path) -> None:
    parent, fork = fork_and_parent
    args = cli.build_parser().parse_args(["tui", "--resume", str(fork), "--sessions", str(fork.parent),
                                          "--no-break"])
    args.llm_given = False
    app = cli.console_app(args)
    async with app.run_test(size=SIZE) as pilot:
        control, page = app.session_control, ConsolePage(pilot)
        await page.replaced()  # the fork, resumed: its replay worker done, its first stop shown
        assert control.session is not None and not control.busy
        debug = app.screen
        screen = await page.opened("D")  # the diff is read in a worker, then its screen shown
        assert isinstance(screen, DiffScreen)
        assert screen.diff.a.journal.folder == parent and screen.diff.b.journal.folder == fork
        rows = screen.query_one(DiffRows)
        assert rows.cursor == rows.marked and PLAN in rows.lines[rows.cursor].left
        await key_pressed(app, "escape")
        assert app.screen is debug  # back in the console
