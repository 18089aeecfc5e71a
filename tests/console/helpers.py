"""Driving the console in tests: wait for the agent, type like a person."""

from __future__ import annotations

import time

from textual.pilot import Pilot

from recode_tui.console.app import RecodeApp

SIZE = (160, 48)


async def wait_for(pilot: Pilot, predicate, timeout: float = 90.0, what: str = "condition") -> None:
    """Poll until `predicate` holds; the generous limit only bounds a real hang (a loaded machine is slow, not stuck)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.02)


async def select_node(pilot: Pilot, app: RecodeApp, node_id: str) -> None:
    """Put the tree's cursor on `node_id` as a person would, and make sure it stays there: until the
    opened run's last redraw is done the tree still follows the current node and takes the cursor back
    (a key pressed then acts on another node)."""
    def there() -> bool:
        cursor = app.debug_screen.tree_view.cursor_node
        return cursor is not None and cursor.data == node_id

    for _ in range(3):  # placed, and still there after the app's pending refreshes
        await wait_for(pilot, lambda: there() or bool(app.debug_screen.tree_view.move_cursor(app.debug_screen.tree_view.item(node_id))),
                       what=f"the cursor on {node_id}")
        await pilot.pause(0.1)
    assert there(), f"the tree took the cursor off {node_id}"


async def wait_stop(pilot: Pilot, app: RecodeApp, after: int) -> None:
    """Wait until the console has shown the result of the command after stop number `after`."""
    await wait_for(pilot, lambda: app.debug_screen.stops > after and not app.debug_screen.driver.busy and keys_settled(app),
                   what=f"stop #{after + 1}")
    await settled(pilot)


async def settled(pilot: Pilot, timeout: float = 30.0) -> None:
    """Wait until the screen shows a finished frame: two frames in a row, the app idle between them, are the same.

    Why frames: Textual finishes some drawing a refresh or an idle later (the
    variables table sizes its columns when idle, the footer greys keys on the
    next refresh), so the app's state can be final while the screen is still
    half-drawn; a snapshot taken then differs under load.
    """
    app = pilot.app
    deadline = time.monotonic() + timeout
    await pilot.pause()
    shown = frame(app)
    while True:
        await pilot.pause()
        again = frame(app)
        if again == shown:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"the screen kept changing for {timeout:g} s")
        shown = again


def frame(app) -> list[list]:
    """The screen's cells as Textual draws them: what `export_screenshot` prints, without making the SVG
    (the SVG is most of a screenshot's cost, and a wait for a stop compares two or more frames).

    Reads Textual's private compositor (`Screen._compositor`, `App._background_screens`): Textual
    has no public way to get the frame but the SVG.
    """
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    return [list(line) for line in update.strips]


def keys_settled(app: RecodeApp) -> bool:
    """The footer greys exactly the keys the run state disables (Textual redraws it a refresh later)."""
    from recode_tui.console.run.run_state import STEPPING_ACTIONS, action_enabled

    state, greyable = app.debug_screen.run_state, STEPPING_ACTIONS | {"submit"}
    names = ((key, key.action.split("(", 1)[0]) for key in footer_keys(app.debug_screen))
    return all(key.has_class("-disabled") != action_enabled(name, state) for key, name in names if name in greyable)


def footer_keys(screen) -> list:
    """The footer's keys (Textual's `FooterKey`, queried by its CSS type: its module is private)."""
    return list(screen.query("FooterKey"))


def notifications(app) -> list:
    """The notifications the app shows now.

    A private Textual attribute the tests read (`App._notifications`):
    Textual has no public way to list them, and their toasts expire.
    """
    return list(app._notifications)


async def checked(pilot: Pilot, app: RecodeApp) -> None:
    """Wait until the editor's check line shows the check of the text now in the editor."""
    editor = app.debug_screen.editor
    await wait_for(pilot, lambda: editor.last_check == editor.check(editor.editor.text), what="the live check")
    await settled(pilot)


async def started(pilot: Pilot, app: RecodeApp) -> None:
    await wait_stop(pilot, app, 0)


async def command(pilot: Pilot, app: RecodeApp, *keys: str) -> None:
    """Press keys that start one agent command and wait until it has stopped."""
    before = app.debug_screen.stops
    await pilot.press(*keys)
    await wait_stop(pilot, app, before)


def keys_for(text: str) -> list[str]:
    return ["enter" if ch == "\n" else ch for ch in text]


async def type_text(pilot: Pilot, text: str) -> None:
    """Type like a fast person: one key event per character, as a terminal sends them.

    `pilot.press` waits for the screen to go idle after every key (~70 ms here);
    this queues the same key events in order and waits once at the end.
    """
    from textual import events

    from recode_tui.console.widgets.answer_editor import CodeArea

    app = pilot.app
    keys = code_keys(text) if isinstance(app.focused, CodeArea) else list(text)
    for ch in keys:
        if ch == "\b":
            event = events.Key("backspace", None)
        else:
            key = "enter" if ch == "\n" else key_name(ch)
            event = events.Key(key, None if ch == "\n" else ch)
        app.post_message(event)  # as the terminal driver does: to the app, which routes it to the focused widget
    await pilot.pause(0.05)
    await pilot.pause()


def key_name(ch: str) -> str:
    """Textual's name of the key that types `ch` ("(" is "left_parenthesis", " " is "space")."""
    import unicodedata

    from textual.keys import KEY_NAME_REPLACEMENTS

    if ch.isalnum():
        return ch
    name = unicodedata.name(ch, ch).lower().replace("-", "_").replace(" ", "_")
    return KEY_NAME_REPLACEMENTS.get(name, name)


def code_keys(text: str) -> list[str]:
    """The keys a person types for `text` in the auto-indenting editor (`\b` is backspace).

    After enter the editor indents by itself (one level more after a colon), so
    a person types only the extra spaces, or backspaces to dedent.
    """
    from recode_tui.console.widgets.answer_editor import next_line_indent

    lines = text.split("\n")
    keys = list(lines[0])
    for previous, line in zip(lines, lines[1:]):
        keys.append("\n")
        auto = len(next_line_indent(previous))
        want = len(line) - len(line.lstrip(" ")) if line.strip() else 0
        while auto > want:
            keys.append("\b")
            auto -= (auto - 1) % 4 + 1
        keys.extend(" " * (want - auto) + line[want:] if line.strip() else "")
    return keys
