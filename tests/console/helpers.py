"""Driving the console in tests: wait for the agent, type like a person."""

from __future__ import annotations

import asyncio
import time
from typing import TypeVar

from textual import events
from textual.app import App
from textual.pilot import Pilot
from textual.signal import Signal

from recode_tui.console.app import RecodeApp
from recode_tui.console.run.run_state import RunState
from recode_tui.console.support.textual_compat import frame_pending, notifications_on_show, screen_cells
from recode_tui.console.widgets.key_footer import FooterEntry, KeyFooter

SIZE = (100, 30)  # the console tests' terminal: Textual draws per cell, so a smaller one costs less CPU
WIDE = (160, 48)  # for the tests whose subject is the wide layout, or text a narrower pane wraps or hides
HANG = 90.0  # bounds a real hang only: a loaded machine is slow, not stuck
T = TypeVar("T")


async def select_node(pilot: Pilot, app: RecodeApp, node_id: str) -> None:
    """Put the tree's cursor on `node_id` as a person would, and make sure it stays there: until the
    shown stop's frame is drawn the tree still follows the current node and takes the cursor back (a
    key pressed then acts on another node), so that frame is awaited first."""
    tree = app.debug_screen.tree_view
    await queues_drained(app)  # the tree's own placement of its cursor is queued for after the frame
    await refreshed(app)
    tree.move_cursor(tree.item(node_id))
    await drawn(app)  # the panes that follow the cursor (the node's detail) show the node, drawn
    cursor = tree.cursor_node
    assert cursor is not None and cursor.data == node_id, f"the tree took the cursor off {node_id}"


def armed(app: App, signal: Signal[T]) -> asyncio.Future[T]:
    """A future the next publication of `signal` resolves with its data: armed before what causes it."""
    future: asyncio.Future[T] = asyncio.get_running_loop().create_future()

    def published(data: T) -> None:
        if not future.done():
            future.set_result(data)

    signal.subscribe(app, published, immediate=True)
    return future


async def published(future: asyncio.Future[T], what: str) -> T:
    """Await what `armed` armed; the limit bounds a real hang only."""
    try:
        return await asyncio.wait_for(future, HANG)
    except asyncio.TimeoutError:
        raise AssertionError(f"{what} did not happen in {HANG:g} s") from None


def next_stop(app: RecodeApp) -> asyncio.Future[RunState]:
    """A future the run's next shown stop resolves with the run state: armed before the key that
    causes the stop (the screen's `stop_shown` signal, published once every pane shows it)."""
    return armed(app, app.debug_screen.stop_shown)


async def worked(pilot: Pilot, group: str) -> None:
    """Await the app's workers of `group` a key just started (the sessions list's read, a replay's
    "session", the "draft" and "settings" writes), then the messages they posted."""
    app = pilot.app
    await queues_drained(app)  # the key's message is handled: its worker exists
    done = app.workers.wait_for_complete([w for w in app.workers if w.group == group])
    await published(asyncio.ensure_future(done), f"the {group} work")
    await drawn(app)


async def replays_done(pilot: Pilot) -> None:
    """Await the replays (resume, rewind, fork: the "session" workers) under way, if any."""
    app = pilot.app
    await queues_drained(app)
    replays = [w for w in app.workers if w.group == "session"]
    if replays:
        await published(asyncio.ensure_future(app.workers.wait_for_complete(replays)), "the replay")
        await queues_drained(app)


async def session_opened(pilot: Pilot, app: RecodeApp) -> None:
    """Await the session a resume, rewind or fork opens (its replay worker), shown at its first stop."""
    await worked(pilot, "session")
    await started(pilot, app)


async def state_entered(pilot: Pilot, app: RecodeApp, state: RunState) -> None:
    """Await the run screen's `run_state` reactive reaching `state` (at once if it is there): a state a
    controller enters between stops (a proposal under review), watched as Textual watches reactives."""
    screen = app.debug_screen
    if screen.run_state is not state:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def entered(new: RunState) -> None:
            if new is state and not future.done():
                future.set_result(None)

        screen.watch(screen, "run_state", entered, init=False)
        await published(future, f"the run state {state}")
    await drawn(pilot.app)


async def stop_shown(pilot: Pilot, stop: asyncio.Future[RunState]) -> RunState:
    """Await the stop `next_stop` armed, then a finished frame."""
    try:
        state = await asyncio.wait_for(stop, HANG)
    except asyncio.TimeoutError:
        raise AssertionError(f"no stop was shown in {HANG:g} s (the run says: {pilot.app.debug_screen.reason!r})") from None
    await footer_settled(pilot)
    return state


async def footer_settled(pilot: Pilot) -> None:
    """A finished frame whose footer greys the keys the run state disables (redrawn a refresh later)."""
    for _ in range(20):  # each round awaits the app's idle and two equal frames: no clock
        await settled(pilot)
        if keys_settled(pilot.app):
            return
    raise AssertionError("the footer does not grey the keys the run state disables")


async def settled(pilot: Pilot, timeout: float = 30.0) -> None:
    """Wait until the screen shows a finished frame: two frames in a row, the app idle between them, are the same.

    Why frames: Textual finishes some drawing a refresh or an idle later (the
    variables table sizes its columns when idle, the footer greys keys on the
    next refresh), so the app's state can be final while the screen is still
    half-drawn; a snapshot taken then differs under load.
    """
    app = pilot.app
    deadline = time.monotonic() + timeout
    await drawn(app)
    shown = screen_cells(app)
    while True:
        await drawn(app)
        again = screen_cells(app)
        if again == shown:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"the screen kept changing for {timeout:g} s")
        shown = again


def keys_settled(app: RecodeApp) -> bool:
    """The footer greys exactly the keys the run state disables (Textual redraws it a refresh later)."""
    from recode_tui.console.run.run_state import STEPPING_ACTIONS, action_enabled

    state, greyable = app.debug_screen.run_state, STEPPING_ACTIONS | {"submit"}
    names = ((key, key.action.split("(", 1)[0]) for key in footer_keys(app.debug_screen))
    return all(key.disabled != action_enabled(name, state) for key, name in names if name in greyable)


def footer_keys(screen) -> list[FooterEntry]:
    """The keys the footer draws now (each with its key, label, action and greying)."""
    return screen.query_one(KeyFooter).shown()


def notifications(app) -> list:
    """The notifications the app shows now (read through the quarantine: Textual has no public list)."""
    return notifications_on_show(app)


async def checked(pilot: Pilot, app: RecodeApp) -> None:
    """Wait until the editor's check line shows the check of the text now in the editor: each verdict
    the editor shows is published (`check_shown`); one of an older text is followed by the current one's."""
    editor = app.debug_screen.editor
    while editor.last_check != editor.check(editor.editor.text):
        await published(armed(app, editor.check_shown), "the live check")
    await settled(pilot)


async def started(pilot: Pilot, app: RecodeApp) -> None:
    """Wait until the run's first stop (the task, or where a replay ended) is shown, in a finished frame.
    A console started to resume a session shows it once its replay worker is done: that first."""
    await replays_done(pilot)
    try:
        await asyncio.wait_for(app.debug_screen.first_stop_shown.wait(), HANG)
    except asyncio.TimeoutError:
        raise AssertionError(f"the run showed no stop in {HANG:g} s (it says: {app.debug_screen.reason!r})") from None
    await footer_settled(pilot)


async def command(pilot: Pilot, app: RecodeApp, *keys: str) -> None:
    """Press keys that start one agent command and wait until its stop is shown."""
    stop = next_stop(app)
    for key in keys:
        await key_pressed(app, key)
    await stop_shown(pilot, stop)


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
    await keys_handled(app)
    await drawn(app)  # what the keys posted (a text area's change, the editor's check) is handled, drawn


async def keys_handled(app: App) -> None:
    """Wait until the keys posted to `app` so far are handled where they went: the app forwards each key
    to the focused widget's queue, so a call queued behind them on the app, then on the widget focused
    then, runs after the last of them (no fixed pause)."""
    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def on_widget() -> None:
        if not done.done():
            done.set_result(None)

    def on_app() -> None:
        target = app.focused or app.screen
        if not target.call_later(on_widget):
            on_widget()

    app.call_later(on_app)
    await asyncio.wait_for(done, HANG)


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


def key_event(key: str) -> events.Key:
    """The key event a terminal sends for `key`, named as `pilot.press` names keys ("n", "ctrl+s",
    "question_mark", or the character itself), with the character it types, as Pilot gives it."""
    import unicodedata

    from textual.keys import KEY_TO_UNICODE_NAME, REPLACED_KEYS

    if len(key) == 1 and not key.isalnum():
        key = key_name(key)
    named = REPLACED_KEYS.get(key, key)
    try:
        char: str | None = unicodedata.lookup(KEY_TO_UNICODE_NAME.get(named, named))
    except KeyError:
        char = key if len(key) == 1 else None
    return events.Key(key, char)


def post_keys(app: App, *keys: str) -> None:
    """Send `keys` to `app` as its terminal does, without waiting: `pilot.press` waits for the process
    to go idle after each key, which lets Textual draw every frame of what the key started (a stop's
    layout, its scrollbars, the tree's cursor a frame later); a test awaits what it needs instead."""
    for key in keys:
        app.post_message(key_event(key))


async def queues_drained(app: App) -> None:
    """Wait until the app and every widget of its screen have handled the messages queued so far (a
    call queued behind them on each runs last; a widget with none queued has nothing to
    wait for, and gets no call), without drawing a frame: what a stop or a key posted (the editor's focus,
    the key line, a pane's request) is handled. `pilot.pause` also waits for the process to go idle, and
    Textual draws the frames pending by then."""
    screen = app.screen  # the app and the screen always: they run what is queued for after a refresh
    pending = [app, screen, *(node for node in screen.walk_children() if node.message_queue_size)]
    left = len(pending)
    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def handled() -> None:
        nonlocal left
        left -= 1
        if left == 0 and not done.done():
            done.set_result(None)

    for node in pending:  # `call_later` as Textual does it, without a `partial` per node: one callable, whose
        # parameters Textual counts once, not once per node (~3 ms of a ~24 ms step at 50 widgets)
        if not node.post_message(events.Callback(callback=handled)):  # a node closing: nothing queued there
            handled()
    await published(done, "the messages queued to the app and its screen")


async def refreshed(app: App) -> None:
    """Wait until what the screen queued to run after its next refresh has run (the tree puts its
    cursor on the current node so, after the stop's frame), then the messages that posted: one frame,
    not the idle `pilot.pause` waits for."""
    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def ran() -> None:
        if not done.done():
            done.set_result(None)

    app.screen.call_after_refresh(ran)
    await published(done, "the screen's refresh")
    await queues_drained(app)


async def drawn(app: App, rounds: int = 20) -> None:
    """Wait until the screen has nothing left for a coming frame: frame by frame (`refreshed`) while
    a layout, a repaint, a call queued for after a refresh or a message is pending (a box a key filled
    gets its scrollbar, and its text wraps to the width left, a frame later). What `pilot.pause` waits
    for by sleeping until the process goes idle, awaited frame by frame instead; and as `pilot.pause`
    stops after a second, a screen that keeps changing (a run going on, a clock) is left after `rounds`."""
    for _ in range(rounds):
        await refreshed(app)
        if not frame_pending(app):
            return


async def key_pressed(app: App, key: str) -> None:
    """Send `key` as the terminal does and wait until every part that may act on it has had it: the app
    (its priority bindings), the widget focused then and each of its parents up to the screen (the key
    bubbles up one queue at a time), the app again (the other bindings run their action there); then
    the messages all that posted. Unlike `pilot.press`, no wait for the process to go idle, so no frame
    is drawn for the key unless a test awaits one (`refreshed`)."""
    app.post_message(key_event(key))
    await _behind_queue(app)
    focused = app.focused or app.screen
    for node in (*focused.ancestors_with_self,):
        if node is not app:
            await _behind_queue(node)
    await _behind_queue(app)
    await queues_drained(app)


async def _behind_queue(node) -> None:
    """Wait until `node` has handled the messages queued to it so far (none to wait for once it closed)."""
    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def reached() -> None:
        if not done.done():
            done.set_result(None)

    if node.call_later(reached):
        await published(done, f"the messages queued to {type(node).__name__}")
