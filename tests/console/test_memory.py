"""What a console lets go of: a screen closed inside one console is freed with what it drew, so a person
who opens the workspace many times does not grow the process.

On the toy world with node code in-process (tests/console/page.py). Each test holds only weak references
to what should be gone, collects the garbage, and looks at what is still alive.
"""

from __future__ import annotations

import gc
import weakref

from textual.strip import Strip

from .test_workspace import awaiting_the_root

WORKSPACE_ONLY = "re-expand with"  # a label only the prompt workspace draws (its bottom bar)


def lines_alive_showing(text: str) -> list[str]:
    """The drawn lines (Textual's `Strip`s) the collector tracks that show `text` (collect first to ask which
    are alive: a full collection walks all a test worker holds, ~0.5-1 CPU-s, so the test collects once)."""
    return [line.text for line in gc.get_objects() if isinstance(line, Strip) and text in line.text]


async def test_a_closed_workspace_is_freed_with_every_line_it_drew(toy_env) -> None:
    """W then esc: the workspace screen and the lines its widgets drew are garbage once it is closed (Textual
    kept each widget's drawn lines in a process-wide cache, keyed by the widget's own cache, for the next
    1,024 lines drawn: every workspace opened stayed in memory a while after it closed)."""
    async with awaiting_the_root() as page:  # W opens the workspace on the awaited root
        workspace = weakref.ref(await page.opened("W"))
        assert lines_alive_showing(WORKSPACE_ONLY), "the workspace drew no line with its label: look for another"
        await page.opened("escape")
        assert page.app.screen is page.screen
        gc.collect()  # once: what is left after it is alive
        assert workspace() is None, "something still holds the closed workspace"
        assert lines_alive_showing(WORKSPACE_ONLY) == []

