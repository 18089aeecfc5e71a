"""The Prompt tab at 80x24: Home/End reach the prompt's top and bottom, the focus shows as on
the other panes, and the title's size (chars) is not cut at the edge."""

from __future__ import annotations

import re

from recode_tui.console.app import build_app

from .helpers import command, started, wait_for
from tests.settings import console_options


async def test_prompt_tab_home_end_focus_and_title_at_80x24() -> None:
    app = build_app(console_options())
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")
        assert app.debug_screen.debugger.awaiting_human
        tree = app.query_one("#code-tree")
        tree.focus()
        await pilot.pause()
        focused_pane = tree.styles.border_top
        await pilot.press("r")
        area = app.query_one("#prompt-text")
        await wait_for(pilot, lambda: app.focused is area, what="the prompt focused")
        await pilot.pause()
        assert area.styles.border_top == focused_pane  # focused, it looks like any focused pane
        title = app.query_one("#prompt-title")
        text = str(title.render())
        assert re.search(r"attempt 1, [\d,]+ chars$", text)
        assert title.size.height == 2  # wrapped, not cut: "chars" is on screen
        await pilot.press("end")
        await wait_for(pilot, lambda: area.scroll_y > 0 and area.cursor_location[0] == area.document.line_count - 1,
                       what="the end of the prompt", timeout=5)
        await pilot.press("home")
        await wait_for(pilot, lambda: area.scroll_y == 0 and area.cursor_location == (0, 0),
                       what="the top of the prompt", timeout=5)
