"""One submit rule wherever an answer is submitted: the workspace's person column judges and
confirms as the main editor does; the plain mode's test is in tests/plain."""

from __future__ import annotations

from textual.widgets import Input, TextArea

from recode_tui.console.workspace.compare import CompareScreen
from .helpers import armed, key_pressed, published
from .page import toy_console
from .test_workspace import open_workspace_page, scripted

# The code sits outside <execute>: the execute section is empty, so the answer skips the root.
OUTSIDE = "<think>look first</think>\nrun('look')\n<execute>\n\n</execute>\n"


async def test_an_empty_root_answer_in_the_workspace_person_column_asks_to_confirm_as_the_editor_does(toy_env) -> None:
    async with toy_console(scripted()) as page:
        app = page.app
        await page.step("continue")  # stopped at the root's expansion
        ws = await open_workspace_page(page)
        ws.query_one("#ws-llms", Input).value = "human"
        await page.press("ctrl+r")
        await page.worked("reexpand")
        assert isinstance(app.screen, CompareScreen)  # the comparison
        cmp = app.screen
        person = cmp.query_one("#cmp-text-1", TextArea)
        judged = armed(app, cmp.column(1).verdict_shown)
        person.load_text(OUTSIDE)
        title = cmp.query_one("#cmp-title-1")
        await published(judged, "the person's check line")  # the column judges its text a moment after it changed
        assert "skips the whole task" in str(title.render())
        assert "valid" not in str(title.render())  # the main editor's warning, not a tick
        person.focus()
        await key_pressed(app, "ctrl+a")  # the answer editor's keys: select everything
        assert person.selected_text == OUTSIDE
        await key_pressed(app, "f1")
        assert "press F1 again to skip the whole task" in str(title.render())  # the confirmation
        assert app.screen is cmp  # nothing applied yet
        root = page.agent.tree.root
        assert not root.llm_calls or not root.llm_calls[-1].accepted
        await page.press("f1")  # the same key again: applied, as ctrl+s twice in the main editor
        assert app.screen is app.screen_stack[0]  # back to the console
