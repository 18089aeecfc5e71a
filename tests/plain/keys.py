"""Keys and waits for driving the plain front end through prompt-toolkit's pipe input (its tests share them).

Nothing here imports prompt-toolkit: a module that only names these is collected without it.
"""

from __future__ import annotations

import asyncio
from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterator

if TYPE_CHECKING:
    from prompt_toolkit.input import PipeInput
    from prompt_toolkit.output import DummyOutput

    from recode_tui.plain.terminal import PlainFrontEnd

ESC_ENTER = "\x1b\r"


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


async def editor_open(front: PlainFrontEnd, task: asyncio.Future) -> None:
    for _ in range(2000):
        app = front.prompt_session.app
        if front.editing.is_set() and app.is_running and app.render_counter > 0:  # drawn once: ready for keys
            return
        if task.done():
            task.result()
            raise AssertionError("the run ended before the editor opened")
        await asyncio.sleep(0.01)
    raise AssertionError("the editor never opened")


async def until(predicate, timeout: float = 10.0) -> None:
    for _ in range(int(timeout / 0.01)):
        if predicate():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("condition not reached")
