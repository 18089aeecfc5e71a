"""Private temp folders named after the process that owns them, so orphans can be found and removed.

A process killed with SIGKILL (a test, a crashed agent, a Ray worker lost mid-episode) cannot run its
clean-up and leaves its folder in the temp dir. Each folder is named `<prefix><pid>-<random>`; the next
process that makes a folder of the same kind removes those whose owner is no longer running.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path


def owned_tempdir(prefix: str) -> str:
    """A new folder `<prefix><this pid>-<random>` in the temp dir, after sweeping that prefix's orphans."""
    sweep_orphans(prefix)
    return tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-")


def sweep_orphans(prefix: str, root: str | None = None) -> list[str]:
    """Remove the `<prefix><pid>-*` folders whose pid no longer runs; returns the removed ones.

    Folders of running processes (this one included) and folders named otherwise are left alone.
    """
    removed = []
    for folder in Path(root or tempfile.gettempdir()).glob(f"{prefix}*-*"):
        pid = folder.name[len(prefix):].split("-", 1)[0]
        if not pid.isdigit() or running(int(pid)):
            continue
        shutil.rmtree(folder, ignore_errors=True)
        if not folder.exists():
            removed.append(str(folder))
    return removed


def running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True
