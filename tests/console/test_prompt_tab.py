"""The Prompt tab at 80x24: Home/End reach the prompt's top and bottom, the focus shows as on
the other panes, and the title's size (chars) is not cut at the edge.

On the toy world with node code in-process (tests/console/page.py): the tab is the console's.
"""

from __future__ import annotations

import re

from .helpers import drawn
from .page import ConsolePage, toy_app


async def test_prompt_tab_home_end_focus_and_title_at_80x24(toy_env) -> None:
    async with ConsolePage.open(toy_app(), size=(80, 24)) as page:
        await page.step("continue")
        assert page.screen.debugger.awaiting_human
        tree = page.app.query_one("#code-tree")
        tree.focus()
        await drawn(page.app)  # the focused pane's border
        focused_pane = tree.styles.border_top
        await page.press("r")
        area = page.app.query_one("#prompt-text")
        assert page.app.focused is area
        assert area.styles.border_top == focused_pane  # focused, it looks like any focused pane
        title = page.app.query_one("#prompt-title")
        text = str(title.render())
        assert re.search(r"attempt 1, [\d,]+ chars$", text)
        assert title.size.height == 2  # wrapped, not cut: "chars" is on screen
        await page.press("end")
        assert area.scroll_y > 0 and area.cursor_location[0] == area.document.line_count - 1
        await page.press("home")
        assert area.scroll_y == 0 and area.cursor_location == (0, 0)

