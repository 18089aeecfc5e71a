"""Driving the console in tests: wait for the engine, type like a person."""

from __future__ import annotations

import time

from textual.pilot import Pilot

from recode_tui.console.app import RecodeApp

SIZE = (160, 48)


async def wait_for(pilot: Pilot, predicate, timeout: float = 30.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.02)


async def wait_stop(pilot: Pilot, app: RecodeApp, after: int) -> None:
    """Wait until the console has shown the result of the command after stop number `after`."""
    await wait_for(pilot, lambda: app.stops > after and not app.driver.busy and keys_settled(app)
                   and tables_measured(app), what=f"stop #{after + 1}")
    await pilot.pause()


def tables_measured(app: RecodeApp) -> bool:
    """The variables table has sized its columns to the rows it got (Textual does it when the table is idle)."""
    from textual.widgets import DataTable

    return not any(table._require_update_dimensions or table._updated_cells
                   for table in app.debug_screen.query(DataTable))


def keys_settled(app: RecodeApp) -> bool:
    """The footer greys exactly the keys the run state disables (Textual redraws it a refresh later)."""
    from textual.widgets._footer import FooterKey

    from recode_tui.console.run_state import STEPPING_ACTIONS, action_enabled

    state, greyable = app.run_state, STEPPING_ACTIONS | {"submit"}
    names = ((key, key.action.split("(", 1)[0]) for key in app.debug_screen.query(FooterKey))
    return all(key.has_class("-disabled") != action_enabled(name, state) for key, name in names if name in greyable)


async def checked(pilot: Pilot, app: RecodeApp) -> None:
    """Wait until the editor's check line shows the check of the text now in the editor."""
    editor = app.editor
    await wait_for(pilot, lambda: editor.last_check == editor.check(editor.editor.text) and tables_measured(pilot.app),
                   what="the live check")
    await pilot.pause()


async def started(pilot: Pilot, app: RecodeApp) -> None:
    await wait_stop(pilot, app, 0)


async def command(pilot: Pilot, app: RecodeApp, *keys: str) -> None:
    """Press keys that start one engine command and wait until it has stopped."""
    before = app.stops
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
    from textual.keys import _character_to_key

    from recode_tui.console.widgets.expansion_editor import CodeArea

    app = pilot.app
    keys = code_keys(text) if isinstance(app.focused, CodeArea) else list(text)
    for ch in keys:
        if ch == "\b":
            event = events.Key("backspace", None)
        else:
            key = "enter" if ch == "\n" else (ch if ch.isalnum() else _character_to_key(ch))
            event = events.Key(key, None if ch == "\n" else ch)
        event.set_sender(app)
        app._driver.send_message(event)
    await pilot.pause(0.05)
    await pilot.pause()


def code_keys(text: str) -> list[str]:
    """The keys a person types for `text` in the auto-indenting editor (`\b` is backspace).

    After enter the editor indents by itself (one level more after a colon), so
    a person types only the extra spaces, or backspaces to dedent.
    """
    from recode_tui.console.widgets.expansion_editor import next_line_indent

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
