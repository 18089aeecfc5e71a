"""`/` finds text in the focused pane (code tree, environment log, prompt): every match, the current one, wrap.

On the toy world with node code in-process (tests/console/page.py): the search is the console's. The
searches share one console, a played run's (each closes its search where it began).
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import AsyncIterator

import pytest
from textual.widgets import Input, TextArea

from recode_tui.console.widgets.search import find_all
from recode_tui.console.widgets.search_bar import SearchBar

from .page import ConsolePage, at, shared_consoles, toy_console
from .test_pilot import nested_model

@pytest.fixture(scope="module", autouse=True)
def toy(toy_module):
    return toy_module


@asynccontextmanager
async def played() -> AsyncIterator[ConsolePage]:
    """The nested model's run, played to its end with no breakpoint."""
    async with toy_console(nested_model(), breakpoints=[]) as page:
        await page.step("continue")
        yield page


page = shared_consoles({"played": played})


def count(page: ConsolePage) -> str:
    """What the search bar's count says."""
    return str(page.screen.query_one("#search-count").render())


@at("played")
async def test_find_in_the_prompt_selects_the_match(page: ConsolePage) -> None:
    await page.press("r")  # the model's last prompt
    area = page.screen.query_one("#prompt-text", TextArea)
    assert area.text
    area.focus()
    await page.press("slash")
    await page.type("instruction")
    matches = find_all(area.document.lines, "instruction")
    assert len(matches) >= 2 and count(page) == f"1 of {len(matches)}"
    assert area.selected_text.lower() == "instruction"
    await page.press("enter")
    second = matches[1]
    assert area.selection.start == (second.line, second.start)
    await page.press("escape")
    assert page.app.focused is area


@at("played")
async def test_find_in_the_environment_log_steps_through_every_match_wrapping(page: ConsolePage) -> None:
    log = page.screen.env_log
    expected = find_all(log.lines, "sidetable 1")
    assert len(expected) >= 3
    log.scroll_to(y=0, animate=False)
    log.focus()
    await page.press("slash")
    bar = page.screen.query_one(SearchBar)
    assert bar.display and isinstance(page.app.focused, Input)
    await page.type("SIDETABLE 1")  # a capital: case-sensitive, nothing
    assert count(page) == "no match"
    page.screen.query_one("#search-input", Input).value = ""
    await page.type("sidetable 1")
    assert count(page) == f"1 of {len(expected)}"
    # the match is marked where the log draws it
    first = expected[0]
    assert log._found[first.line][0] == (first.start, first.end, True)
    await page.press("enter")
    assert count(page) == f"2 of {len(expected)}"
    await page.press("up", "up")
    assert count(page) == f"{len(expected)} of {len(expected)}"  # wrapped to the last
    last = expected[-1]
    assert log.scroll_y <= last.line < log.scroll_y + log.size.height  # brought into view
    await page.press("escape")
    assert not bar.display and page.app.focused is log and not log._found


@at("played")
async def test_find_in_the_code_tree_puts_the_cursor_on_a_match_its_path_opened(page: ConsolePage) -> None:
    tree = page.screen.tree_view
    code = page.screen.agent.tree
    takes = [n for n in code.nodes.values() if "take" in n.code.lower()]
    assert takes
    hidden = [n for n in takes if not all(tree.item(a.id).is_expanded for a in code.path_to(n)[:-1])]
    assert hidden, "the finished subtrees should be collapsed"
    tree.focus()
    await page.press("slash")
    assert "Code tree" in str(page.screen.query_one("#search-label").render())
    await page.type("take")
    assert count(page).endswith(f" of {len(takes)}")
    node = code.nodes[tree.cursor_node.data]
    assert "take" in node.code.lower()
    assert all(tree.item(a.id).is_expanded for a in code.path_to(node)[:-1])
    assert any("take" in line for line in page.tree())  # shown, its path open
    await page.press("escape")
    assert page.app.focused is tree


LINES = ["go to Cabinet 1, cabinet 2", "CABINET"]


def test_a_lower_case_query_finds_every_occurrence_in_any_case() -> None:
    assert [(m.line, m.start) for m in find_all(LINES, "cabinet")] == [(0, 6), (0, 17), (1, 0)]


def test_a_query_with_a_capital_matches_its_case_only() -> None:
    assert [(m.line, m.start) for m in find_all(LINES, "Cabinet")] == [(0, 6)]


def test_an_empty_query_finds_nothing() -> None:
    assert find_all(LINES, "") == []


def test_matches_are_capped() -> None:
    assert len(find_all(["ab ab"] * 20, "ab", limit=5)) == 5


def test_offsets_survive_characters_that_lengthen_when_lowered() -> None:
    assert [(m.line, m.start, m.end) for m in find_all(["İx ab", "ab"], "AB".lower())] == [(0, 3, 5), (1, 0, 2)]


async def search_from_the_variables(page: ConsolePage, text: str) -> None:
    """Focus the variables table (a pane `/` cannot search), press `/` and type `text`."""
    page.screen.query_one("#vars-table").focus()
    await page.press("slash")
    await page.type(text)


@at("played")
async def test_from_a_pane_that_cannot_be_searched_the_log_is(page: ConsolePage) -> None:
    top = page.screen.env_log.scroll_offset.y  # the log's first line in view: its search starts there
    await search_from_the_variables(page, "sidetable")
    assert "Environment" in str(page.screen.query_one("#search-label").render())
    matches = find_all(page.screen.env_log.lines, "sidetable")
    first = next(i for i, match in enumerate(matches) if match.line >= top)
    assert count(page) == f"{first + 1} of {len(matches)}"
    await page.press("escape")


@at("played")
async def test_esc_returns_to_the_pane_the_search_started_from(page: ConsolePage) -> None:
    await search_from_the_variables(page, "sidetable")
    await page.press("escape")
    assert page.app.focused is page.screen.query_one("#vars-table")
