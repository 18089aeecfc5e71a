"""The status line skips the figures it is given again (a stop gives them three or four times) and still
says every one that changed, whichever it is.

A StatusBar alone in a small app (as tests/console/test_status_line.py): what it says is its own doing.
"""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult

from recode_tui.console.widgets.status_bar import StatusBar

FIGURES: dict[str, Any] = dict(
    episode="toy vase-1", task_type="put", steps=1, max_steps=30, depth=1, score=None, reward=None, nodes=3,
    llm_calls=1, tokens=(10, 20), cost=0.0, state="paused", reason_kind="step", reason="node n1 starts",
    llm="demo", trusted=False, agent_name="ReCode")
CHANGED: dict[str, Any] = dict(
    episode="toy vase-2", task_type="clean", steps=2, max_steps=40, depth=2, score=50, reward=0.5, nodes=4,
    llm_calls=2, tokens=(11, 21), cost=0.25, state="done", reason_kind="error", reason="action 1: look",
    llm="human", trusted=True, agent_name="ReAct")


class OneBar(App[None]):
    def compose(self) -> ComposeResult:
        yield StatusBar()


async def test_each_figure_given_anew_changes_the_line_and_the_same_ones_again_leave_it() -> None:
    app = OneBar()
    async with app.run_test(size=(200, 2)):
        bar = app.query_one(StatusBar)
        bar.show(**FIGURES)
        first = bar.text
        bar.show(**FIGURES)
        assert bar.text == first
        for name, value in CHANGED.items():
            bar.show(**{**FIGURES, name: value})
            assert bar.text != first, f"{name} changed and the line did not"
            bar.show(**FIGURES)
            assert bar.text == first, name
