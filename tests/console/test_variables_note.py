"""Agents that keep no variables say what they keep instead of showing an empty table.

On the toy world with node code in-process (tests/console/page.py): the note is the console's.
"""

from __future__ import annotations

import pytest

from .page import ConsolePage, toy_app, toy_console


@pytest.fixture(autouse=True)
def toy(toy_env):
    return toy_env


@pytest.mark.parametrize("agent, kept", [("react", "its trajectory"), ("plan-execute", "the plan"),
                                         ("recap", "remaining subtask list")])
async def test_an_agent_without_variables_says_what_it_keeps(agent: str, kept: str) -> None:
    async with toy_console(agent=agent) as page:
        note = page.app.query_one("#vars-note")
        assert note.display and kept in str(note.render()) and "keeps no variables" in str(note.render())
        assert not page.app.query_one("#vars-table").display  # no empty table with headers


async def test_recode_shows_its_variables_not_a_note() -> None:
    async with toy_console() as page:
        assert page.app.query_one("#vars-table").display and not page.app.query_one("#vars-note").display


async def test_v_reaches_the_log_at_80_columns_when_the_agent_keeps_no_variables() -> None:
    async with ConsolePage.open(toy_app(agent="react"), size=(80, 24)) as page:
        await page.press("v")
        assert page.app.focused is page.screen.env_log  # the note has nothing to focus: the log takes it
