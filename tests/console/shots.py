"""Several screenshots of one console run, each compared with its own accepted SVG.

Why: pytest-textual-snapshot's `snap_compare` boots the app once per picture, and a console boot costs
most of a snapshot test. Screens that are moments of one run (the first stop, the answer being typed,
the breakpoint hit, the episode won) are taken from one boot here, in the plugin's own SVG format and
folder (`__snapshots__/<module>/<test>[<shot>].svg`); `pytest --snapshot-update` accepts them as it does
the plugin's.

A shot is taken when the picture depends only on the run's state: the caller awaits the console's own
signal for the state (a stop shown, a check shown, a screen opened), then `match` awaits a finished
frame (two equal frames with the app idle between them) and the end of any animation. The app runs
under `run_test`, which shows no notifications and no tooltips: nothing on screen runs on a timer.
"""

from __future__ import annotations

import pickle

import pytest
from pytest_textual_snapshot import PseudoApp, PseudoConsole, SVGImageExtension, node_to_report_path
from rich.console import Console
from syrupy import SnapshotAssertion
from textual.pilot import Pilot

from .helpers import settled
from .snapshot_diff import row_diff


class Shots:
    """The accepted screens of one test, compared one by one as the run reaches them."""

    def __init__(self, snapshot: SnapshotAssertion, request: pytest.FixtureRequest) -> None:
        self.snapshot = snapshot.use_extension(SVGImageExtension)
        self.request = request

    async def match(self, pilot: Pilot, name: str) -> None:
        """Compare the screen now, once its frame is finished, with the accepted `name`; a mismatch
        fails the test with the rows that differ (and goes into the plugin's HTML report)."""
        await pilot.wait_for_scheduled_animations()
        await settled(pilot)
        app = pilot.app
        svg = app.export_screenshot(title=app.title, simplify=True)
        if self.snapshot(name=name) == svg:
            return
        expected = str(self.snapshot)
        self._report(name, expected, svg)
        raise AssertionError(f"the screen {name!r} differs from the accepted one:\n{row_diff(expected, svg)}")

    def _report(self, name: str, expected: str, actual: str) -> None:
        """The failure as pytest-textual-snapshot records it, so its HTML report shows both pictures."""
        node = self.request.node
        path, line, test = node.reportinfo()
        console = Console(legacy_windows=False, force_terminal=True)
        data = (False, expected, actual, PseudoApp(PseudoConsole(console.legacy_windows, console.size)), path, line,
                f"{test}[{name}]", node.function.__doc__ or "", "", bool(expected))
        node_to_report_path(node).write_bytes(pickle.dumps(data))


@pytest.fixture
def shots(snapshot: SnapshotAssertion, request: pytest.FixtureRequest) -> Shots:
    """Compare screens of a run with their accepted SVGs: `await shots.match(pilot, "name")`."""
    return Shots(snapshot, request)
