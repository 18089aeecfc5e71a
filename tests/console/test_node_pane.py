"""The node pane draws its own lines (widgets/node_detail.py): they follow the pane's colours, as a
Static's would, when the theme changes."""

from __future__ import annotations

from recode_tui.console.widgets.node_detail import NodeDetail

from .helpers import drawn
from .page import toy_console


async def test_the_node_pane_is_drawn_again_in_a_new_themes_colours(toy_env) -> None:
    async with toy_console(breakpoints=[]) as page:
        pane = page.screen.query_one(NodeDetail)
        page.app.theme = "textual-light"
        await drawn(page.app)  # the theme's new styles applied to the pane
        line = list(pane.render_lines(pane.region.reset_offset)[1])  # the node's first line, inside the border
        padding, text = line[1], next(s for s in line[2:] if s.text.strip())
        assert text.text.strip() == pane.shown_id  # the node's id opens its detail
        assert text.style is not None and padding.style is not None
        assert text.style.bgcolor == padding.style.bgcolor  # the text on the pane's own (light) background


async def test_a_node_that_no_longer_fits_after_a_resize_is_wrapped_left_of_its_scrollbar(toy_env) -> None:
    from mockllm.scripted import ScriptedLLM, ScriptEntry

    from .page import ConsolePage, toy_app

    plan = "<execute>\n" + "\n".join(f'run("go to sidetable {n}")' for n in range(12)) + "\n</execute>"
    llm = ScriptedLLM([ScriptEntry(plan, stub="solve(instruction, observation)")])
    async with ConsolePage.open(toy_app(llm, breakpoints=[]), size=(160, 90)) as page:
        while len(page.screen.agent.tree.root.children) < 12:
            await page.step("next")
        await page.select("n0")  # its 12 children listed: a tall detail
        pane = page.screen.query_one(NodeDetail)
        assert not pane.show_vertical_scrollbar  # it fits a tall terminal
        await page.pilot.resize_terminal(160, 30)
        await drawn(page.app)  # laid out again at the new size
        assert pane.show_vertical_scrollbar  # no longer
        assert pane.virtual_size.width == pane.scrollable_content_region.width  # wrapped left of the bar
