"""The debug screen's footer (widgets/key_footer.py): the keys in one row drawn by one widget, each a
click target, greyed keys dimmed, redrawn only when what it shows changes.

A small app with two keys (no console boot): what is checked is the widget's, not the run's. That it
draws the debug screen's row exactly as Textual's footer did is held by the snapshot tests.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widget import Widget

from recode_tui.console.widgets.key_footer import KeyFooter

from .helpers import drawn


class Host(App[None]):
    CSS_PATH = "../../recode_tui/console/recode.tcss"
    BINDINGS = [Binding("x", "go", "Go", tooltip="Go somewhere"), Binding("y", "stay", "Stay"),
                Binding("z", "hidden", "Hidden", show=False)]
    allowed = True

    def __init__(self) -> None:
        super().__init__()
        self.done: list[str] = []
        self.bells = 0

    def compose(self) -> ComposeResult:
        yield KeyFooter()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return True if self.allowed or action != "go" else None  # None: shown greyed (False would hide it)

    def action_go(self) -> None:
        self.done.append("go")

    def action_stay(self) -> None:
        self.done.append("stay")

    def bell(self) -> None:
        self.bells += 1


def row(app: Host) -> str:
    return app.query_one(KeyFooter).render().plain


async def test_the_footer_is_one_widget_showing_the_shown_keys_in_order_and_the_palette_at_the_edge() -> None:
    app = Host()
    async with app.run_test(size=(60, 5)) as pilot:
        await drawn(app)
        footer = app.query_one(KeyFooter)
        assert list(footer.query(Widget)) == []  # no widget per key to mount and restyle
        text = row(app)
        assert text.startswith(" x Go  y Stay ") and "Hidden" not in text, text
        assert text.rstrip().endswith("▏^p palette") and len(text) == 60 - 1, text  # plus its right padding
        assert [(k.key_display, k.description) for k in footer.shown()][:2] == [("x", "Go"), ("y", "Stay")]


async def test_a_click_presses_the_key_and_a_greyed_key_is_dimmed_and_rings_the_bell() -> None:
    app = Host()
    async with app.run_test(size=(60, 5)) as pilot:
        await drawn(app)
        footer = app.query_one(KeyFooter)
        await pilot.click(KeyFooter, offset=(1, 0))  # on "x"
        await pilot.click(KeyFooter, offset=(8, 0))  # on "Stay"
        assert app.done == ["go", "stay"]
        app.allowed = False
        app.refresh_bindings()
        await drawn(app)
        go = next(k for k in footer.shown() if k.action == "go")
        assert go.disabled and footer.render().get_style_at_offset(app.console, 1).dim
        await pilot.click(KeyFooter, offset=(1, 0))
        assert app.done == ["go", "stay"] and app.bells == 1  # greyed: the bell, not the action


async def test_hovering_a_key_shows_its_tooltip() -> None:
    app = Host()
    async with app.run_test(size=(60, 5)) as pilot:
        await drawn(app)
        footer = app.query_one(KeyFooter)
        await pilot.hover(KeyFooter, offset=(2, 0))
        assert footer.tooltip == "Go somewhere"
        await pilot.hover(KeyFooter, offset=(8, 0))
        assert footer.tooltip is None  # "Stay" has none
