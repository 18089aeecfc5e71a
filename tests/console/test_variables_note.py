"""Agents that keep no variables say what they keep instead of showing an empty table."""

from __future__ import annotations

import pytest

from recode_tui.console.app import build_app

from .helpers import SIZE, started
from tests.settings import console_options


@pytest.mark.parametrize("agent, kept", [("react", "its trajectory"), ("plan-execute", "the plan"),
                                         ("recap", "remaining subtask list")])
async def test_an_agent_without_variables_says_what_it_keeps(agent: str, kept: str) -> None:
    app = build_app(console_options(agent=agent))
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        note = app.query_one("#vars-note")
        assert note.display and kept in str(note.render()) and "keeps no variables" in str(note.render())
        assert not app.query_one("#vars-table").display  # no empty table with headers


async def test_recode_shows_its_variables_and_no_note_and_v_reaches_the_log_at_80_columns() -> None:
    app = build_app(console_options())
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        assert app.query_one("#vars-table").display and not app.query_one("#vars-note").display
    react = build_app(console_options(agent="react"))
    async with react.run_test(size=(80, 24)) as pilot:
        await started(pilot, react)
        await pilot.press("v")
        await pilot.pause()
        await pilot.pause()
        assert react.focused is react.debug_screen.env_log  # the note has nothing to focus: the log takes it
