"""A wait on a folder's files that wakes when one changes (Linux inotify), not on a clock's tick.

For what a console process writes with nothing on the screen to say so (the draft it saves on its timer).
"""

from __future__ import annotations

import ctypes
import os
import select
import time
from pathlib import Path
from typing import Callable

HANG_SECONDS = 90.0  # a bound only against a hang
# inotify(7): a file in the folder written, closed after writing, renamed into it, or made
CHANGES = 0x002 | 0x008 | 0x080 | 0x100

_libc = ctypes.CDLL(None, use_errno=True)


class FolderChanges:
    """Watches `folder` from the moment it is made: no change after that is missed."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._fd = _libc.inotify_init1(os.O_CLOEXEC)
        if self._fd < 0:
            raise OSError(ctypes.get_errno(), f"inotify_init1: {os.strerror(ctypes.get_errno())}")
        if _libc.inotify_add_watch(self._fd, os.fsencode(folder), CHANGES) < 0:
            os.close(self._fd)
            raise OSError(ctypes.get_errno(), f"cannot watch {folder}: {os.strerror(ctypes.get_errno())}")

    def until(self, check: Callable[[], bool], what: str) -> None:
        """Return once `check()` holds, looked at now and after each change in the folder."""
        deadline = time.monotonic() + HANG_SECONDS
        while not check():
            ready, _, _ = select.select([self._fd], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                raise AssertionError(f"{what} never held in {self.folder}: {sorted(p.name for p in self.folder.iterdir())}")
            os.read(self._fd, 65536)  # the events themselves: `check` says what changed matters

    def close(self) -> None:
        os.close(self._fd)

    def __enter__(self) -> FolderChanges:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
