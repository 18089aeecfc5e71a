"""`/` finds text in the focused pane (code tree, environment log, prompt): every match, the current one, wrap."""

from __future__ import annotations

from textual.widgets import Input, TextArea

from recode_tui.console.app import build_app
from recode_tui.console.widgets.search import find_all
from recode_tui.console.widgets.search_bar import SearchBar

from .helpers import SIZE, command, started, type_text
from .test_pilot import demo_app
from tests.settings import console_options


def count(app) -> str:
    return str(app.debug_screen.query_one("#search-count").render())


async def test_find_in_the_environment_log_and_the_code_tree_steps_through_matches_and_opens_nodes() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")  # the demo plays the episode to its end
        log = app.debug_screen.env_log
        expected = find_all(log.lines, "sidetable 1")
        assert len(expected) >= 3
        log.scroll_to(y=0, animate=False)
        log.focus()
        await pilot.pause()
        await pilot.press("slash")
        bar = app.debug_screen.query_one(SearchBar)
        assert bar.display and isinstance(app.focused, Input)
        await type_text(pilot, "SIDETABLE 1")  # a capital: case-sensitive, nothing
        assert count(app) == "no match"
        app.debug_screen.query_one("#search-input", Input).value = ""
        await type_text(pilot, "sidetable 1")
        await pilot.pause()
        assert count(app) == f"1 of {len(expected)}"
        # the match is marked where the log draws it
        first = expected[0]
        assert log._found[first.line][0] == (first.start, first.end, True)
        await pilot.press("enter")
        assert count(app) == f"2 of {len(expected)}"
        await pilot.press("up", "up")
        assert count(app) == f"{len(expected)} of {len(expected)}"  # wrapped to the last
        last = expected[-1]
        await pilot.pause()
        assert log.scroll_y <= last.line < log.scroll_y + log.size.height  # brought into view
        await pilot.press("escape")
        assert not bar.display and app.focused is log and not log._found
        # In the code tree (the demo's finished subtrees are collapsed): the cursor goes to a match, opened.
        tree = app.debug_screen.tree_view
        takes = [n for n in app.debug_screen.agent.tree.nodes.values() if "take" in n.code.lower()]
        assert takes
        hidden = [n for n in takes if not all(tree.item(a.id).is_expanded for a in app.debug_screen.agent.tree.path_to(n)[:-1])]
        assert hidden, "the demo's finished subtrees should be collapsed"
        tree.focus()
        await pilot.press("slash")
        assert "Code tree" in str(app.debug_screen.query_one("#search-label").render())
        await type_text(pilot, "take")
        await pilot.pause()
        assert count(app).endswith(f" of {len(takes)}")
        await pilot.pause()
        node = app.debug_screen.agent.tree.nodes[tree.cursor_node.data]
        assert "take" in node.code.lower()
        assert all(tree.item(a.id).is_expanded for a in app.debug_screen.agent.tree.path_to(node)[:-1])
        await pilot.press("escape")
        assert app.focused is tree


async def test_find_in_the_prompt_selects_the_match() -> None:
    app = build_app(console_options("put-01", "demo"))  # every-stub breakpoint on
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")  # the first expansion: its prompt is shown
        await pilot.press("r")
        await pilot.pause()
        area = app.debug_screen.query_one("#prompt-text", TextArea)
        assert area.text
        area.focus()
        await pilot.press("slash")
        await type_text(pilot, "instruction")
        await pilot.pause()
        matches = find_all(area.document.lines, "instruction")
        assert count(app) == f"1 of {len(matches)}"
        assert area.selected_text.lower() == "instruction"
        await pilot.press("enter")
        second = matches[1]
        assert area.selection.start == (second.line, second.start)
        await pilot.press("escape")
        assert app.focused is area


def test_smart_case_and_every_occurrence_on_a_line() -> None:
    lines = ["go to Cabinet 1, cabinet 2", "CABINET"]
    assert [(m.line, m.start) for m in find_all(lines, "cabinet")] == [(0, 6), (0, 17), (1, 0)]
    assert [(m.line, m.start) for m in find_all(lines, "Cabinet")] == [(0, 6)]
    assert find_all(lines, "") == []


def test_matches_are_capped_and_offsets_survive_characters_that_lengthen_when_lowered() -> None:
    assert len(find_all(["ab ab"] * 20, "ab", limit=5)) == 5
    assert [(m.line, m.start, m.end) for m in find_all(["İx ab", "ab"], "AB".lower())] == [(0, 3, 5), (1, 0, 2)]


async def test_from_a_pane_that_cannot_be_searched_the_log_is_and_esc_returns_there() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        table = app.debug_screen.query_one("#vars-table")
        table.focus()
        await pilot.press("slash")
        assert "Environment" in str(app.debug_screen.query_one("#search-label").render())
        await type_text(pilot, "sidetable")
        await pilot.pause()
        assert count(app) == f"1 of {len(find_all(app.debug_screen.env_log.lines, 'sidetable'))}"
        await pilot.press("escape")
        assert app.focused is table
