"""At 80x24 the console's keys are all there, each whole, and the editor offers its own (Esc leaves it).

Textual's footer cut its row at the screen's edge (`^s Subm`), never showed `e r v z a` or ctrl+t, and
said `esc Pause` in the editor, where Esc leaves the editor. Below 100 columns the key line takes its
place: the test reads the widget drawn on the screen's last row and its text.
"""

from __future__ import annotations

import re

import pytest

from recode_tui.console.widgets.key_line import KeyLine

from .helpers import WIDE, drawn, footer_keys
from .page import ConsolePage, toy_app


@pytest.fixture(autouse=True)
def toy(toy_env):
    return toy_env


def bottom_line(app) -> str:
    """The text of the widget drawn on the bottom row, checked to fit the screen."""
    width, height = app.size
    widget, _ = app.screen.get_widget_at(0, height - 1)
    assert isinstance(widget, KeyLine), f"the bottom row is {widget!r}"
    text = widget.render().plain
    assert widget.region.x == 0 and widget.region.width == width and len(text) <= width, (widget.region, text)
    return text


def keys_of(line: str) -> dict[str, str]:
    """`key(s) label` pairs as shown: `z ^t zoom` -> {'z': 'zoom', '^t': 'zoom'}."""
    found = {}
    for entry in line.split("  "):
        words = entry.split()
        keys = [w for w in words if len(w) <= 3 and (len(w) == 1 or w.startswith("^") or w in ("esc", "f1"))]
        label = " ".join(words[len(keys):])
        found.update({k: label for k in keys})
    return found


async def test_at_80x24_every_view_key_zoom_and_quit_is_shown_whole() -> None:
    async with ConsolePage.open(toy_app(agent="react"), size=(80, 24)) as page:
        app = page.app
        app.debug_screen.query_one("#code-tree").focus()
        await drawn(app)  # the line follows the focus
        shown = keys_of(bottom_line(app))
        for key in ("e", "r", "v", "z", "^t", "q", "a", "?", "n", "c"):
            assert key in shown, (key, shown)
        assert shown["z"] == shown["^t"] == "zoom" and shown["q"] == "quit" and shown["a"] == "agent"
        assert not re.search(r"\bSubm\b", bottom_line(app))


async def test_in_the_editor_the_line_offers_the_editors_keys_and_esc_leaves_it() -> None:
    async with ConsolePage.open(toy_app(), size=(80, 24)) as page:
        app = page.app
        await page.step("continue")
        assert app.focused is app.debug_screen.editor.editor
        line = bottom_line(app)
        shown = keys_of(line)
        assert shown["^s"] == "submit" and shown["^t"] == "zoom" and shown["esc"] == "leave editor", line
        assert "pause" not in line.lower()
        await page.press("escape")
        assert app.focused is not app.debug_screen.editor.editor  # what the line said
        assert "n s o u c" in bottom_line(app)


async def test_a_wide_terminal_keeps_textuals_footer_which_in_the_editor_says_what_esc_does() -> None:
    async with ConsolePage.open(toy_app(), size=WIDE) as page:
        app = page.app
        widget, _ = app.screen.get_widget_at(0, WIDE[1] - 1)
        assert not isinstance(widget, KeyLine) and not app.debug_screen.query_one(KeyLine).display
        await page.step("continue")
        shown = {(k.key_display, k.description) for k in footer_keys(app.debug_screen)}
        assert {("esc", "Leave editor"), ("^t", "Zoom"), ("^s", "Submit")} <= shown, shown
        assert not any(description == "Pause" for _, description in shown)
