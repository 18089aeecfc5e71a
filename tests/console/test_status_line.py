"""The status line says a command is running once it has run a moment: a step that stops at once goes
from one stop to the next without a flash of `running` (and without a frame drawn for it).

A StatusBar alone in a small app: what it says is its own doing. That a command still running says so is
tests/console/test_debug_staples.py::test_the_status_line_counts_the_time_a_model_is_answering.
"""

from __future__ import annotations

from textual.app import App, ComposeResult

from recode_tui.console.widgets.status_bar import StatusBar

from .helpers import drawn

FIGURES = dict(episode="toy vase-1", task_type="put", steps=1, max_steps=30, depth=1, nodes=3, llm_calls=1,
               tokens=(10, 20), cost=0.0)


class OneBar(App[None]):
    def compose(self) -> ComposeResult:
        yield StatusBar()


async def test_a_step_that_stops_at_once_goes_from_stop_to_stop_without_saying_running() -> None:
    app = OneBar()
    async with app.run_test(size=(120, 2)) as pilot:
        bar = app.query_one(StatusBar)
        bar.show(**FIGURES, state="paused", reason_kind="step", reason="node n1 starts")
        await drawn(app)
        bar.show(**FIGURES, state="running", reason="next…")  # the key
        assert "‖ paused" in bar.text and "node n1 starts" in bar.text and "running" not in bar.text
        bar.show(**FIGURES, state="paused", reason_kind="step", reason="action 1: go to diningtable 1")  # its stop
        assert "‖ paused" in bar.text and "action 1: go to diningtable 1" in bar.text and "running" not in bar.text
