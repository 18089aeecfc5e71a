"""Keys and waits for driving the plain front end through prompt-toolkit's pipe input (its tests share them).

Nothing here imports prompt-toolkit: a module that only names these is collected without it.
"""

from __future__ import annotations

import asyncio
from contextlib import contextmanager
from typing import TYPE_CHECKING, Callable, Iterator

if TYPE_CHECKING:
    from prompt_toolkit.input import PipeInput
    from prompt_toolkit.output import DummyOutput

    from recode_tui.plain.terminal import PlainFrontEnd

ESC_ENTER = "\x1b\r"
HANG = 90.0  # bounds a real hang only: a loaded machine is slow, not stuck


@contextmanager
def piped() -> Iterator[PipeInput]:
    """prompt-toolkit's pipe input: what a test types reaches the front end as a terminal's keys."""
    from prompt_toolkit.input import create_pipe_input

    with create_pipe_input() as pipe:
        yield pipe


def no_output() -> DummyOutput:
    """prompt-toolkit's output that draws nowhere."""
    from prompt_toolkit.output import DummyOutput

    return DummyOutput()


def paste(text: str) -> str:
    """Bracketed paste: inserted as is, without auto-indent."""
    return f"\x1b[200~{text}\x1b[201~"


async def changed(front: PlainFrontEnd, task: asyncio.Future, predicate: Callable[[], object],
                  what: str = "the awaited condition") -> None:
    """Return once `predicate()` holds: checked now, then again at each thing the front end does.

    Those are a frame of its editor (prompt-toolkit's public `Application.after_render`: the editor opened,
    a key was handled, a refusal was shown, the editor closed), a change of the editor's text
    (`Buffer.on_text_changed`), an event of the run (the agent's observers, `agent.host.observers`) and the
    end of the run (`task`). A condition must become true at or before one of these, as every one waited on
    here does: a line the front end prints is followed by its event or by the next editor's first frame.
    When the run ends first, this fails at once with the run's own error; HANG bounds only a real hang.
    """
    loop = asyncio.get_running_loop()
    woken = asyncio.Event()

    def wake(*_: object) -> None:
        loop.call_soon_threadsafe(woken.set)

    app, buffer, observers = front.prompt_session.app, front.prompt_session.default_buffer, front.agent.host.observers
    app.after_render.add_handler(wake)
    buffer.on_text_changed.add_handler(wake)
    observers.append(wake)
    task.add_done_callback(wake)
    deadline = loop.time() + HANG
    try:
        while True:
            woken.clear()
            if predicate():
                return
            if task.done():
                task.result()  # the run's error, if it ended on one
                raise AssertionError(f"the run ended before {what}")
            try:
                await asyncio.wait_for(woken.wait(), max(0.0, deadline - loop.time()))
            except asyncio.TimeoutError:
                raise AssertionError(
                    f"{what}: not reached in {HANG:g} s (editing: {front.editing.is_set()}, text: {buffer.text!r}, "
                    f"refusal: {buffer.validation_error}, last line: {front.transcript[-1:]})") from None
    finally:
        task.remove_done_callback(wake)
        observers.remove(wake)
        buffer.on_text_changed.remove_handler(wake)
        app.after_render.remove_handler(wake)


async def editor_open(front: PlainFrontEnd, task: asyncio.Future) -> None:
    """The editor is open and drawn once: ready for keys."""
    app = front.prompt_session.app
    await changed(front, task, lambda: front.editing.is_set() and app.is_running and app.render_counter > 0,
                  "the editor's opening")
