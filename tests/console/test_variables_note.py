"""Agents that keep no variables say what they keep instead of showing an empty table.

On the toy world with node code in-process (tests/console/page.py): the note is the console's. The tests
read each agent's first stop, one console per agent (`shared_consoles`).
"""

from __future__ import annotations

import pytest

from .page import ConsolePage, Stops, at, shared_consoles, toy_app, toy_console


@pytest.fixture(scope="module", autouse=True)
def toy(toy_module):
    return toy_module


STOPS: Stops = {
    "react at 80x24": lambda: ConsolePage.open(toy_app(agent="react"), size=(80, 24)),
    "plan-execute": lambda: toy_console(agent="plan-execute"),
    "recap": lambda: toy_console(agent="recap"),
}
page = shared_consoles(STOPS)  # the react console serves the next two tests: first in each (pytest keys it by index)


@at("react at 80x24")
async def test_v_reaches_the_log_at_80_columns_when_the_agent_keeps_no_variables(page: ConsolePage) -> None:
    await page.press("v")
    assert page.app.focused is page.screen.env_log  # the note has nothing to focus: the log takes it


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("page, kept", [("react at 80x24", "its trajectory"), ("plan-execute", "the plan"),
                                        ("recap", "remaining subtask list")], indirect=["page"])
async def test_an_agent_without_variables_says_what_it_keeps(page: ConsolePage, kept: str) -> None:
    note = page.app.query_one("#vars-note")
    assert note.display and kept in str(note.render()) and "keeps no variables" in str(note.render())
    assert not page.app.query_one("#vars-table").display  # no empty table with headers


async def test_recode_shows_its_variables_not_a_note() -> None:
    async with toy_console() as page:
        assert page.app.query_one("#vars-table").display and not page.app.query_one("#vars-note").display
