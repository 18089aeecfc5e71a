"""The worker's audit hook on its own: static checks off, hook on.

With the checks on, every hostile snippet is refused before it runs, so those
tests would pass with the hook gone. Here node code walks from the `print`
helper to the worker module's globals (`os`, `builtins`, `signal`), which the
checks would refuse, and the hook alone must stop files, sockets, processes
and signals.
"""

from __future__ import annotations

import os

import pytest
import pytest_asyncio

from tests.sandbox.layers_off import LayersOffRunner

pytestmark = pytest.mark.heavy  # the sandbox worker: its audit hook is what these check

WORKER_GLOBALS = "g = {m: print.__globals__['__builtins__']['__import__'](m) for m in ('os', 'sys', 'builtins')}\n"


@pytest_asyncio.fixture
async def unchecked():
    runner = LayersOffRunner(node_timeout=2.0, memory_mb=256, static_checks=False)
    try:
        yield runner
    finally:
        await runner.close()


async def test_the_checks_are_really_off_so_the_walk_reaches_the_worker(unchecked, drive):
    outcome = await drive(unchecked, WORKER_GLOBALS + "pid = g['os'].getpid()")
    assert outcome.status == "completed", outcome
    pid = int([v.summary for v in await unchecked.variables() if v.name == "pid"][0])
    assert pid == unchecked.worker_pid or ("namespaces" in " ".join(unchecked.isolation) and pid == 2)


async def test_files_are_refused(unchecked, drive, tmp_path):
    target = tmp_path / "written"
    existing = tmp_path / "existing"
    existing.write_text("keep me")
    cases = {
        f"g['builtins'].open({str(target)!r}, 'w').write('x')": "forbidden: open",
        f"g['builtins'].open({str(existing)!r}).read()": "forbidden: open",
        f"g['os'].remove({str(existing)!r})": "forbidden: os.remove",
        f"g['os'].listdir({str(tmp_path)!r})": "forbidden: os.listdir",
        f"g['os'].mkdir({str(tmp_path / 'd')!r})": "forbidden: os.mkdir",
    }
    for code, reason in cases.items():
        outcome = await drive(unchecked, WORKER_GLOBALS + code)
        assert (outcome.status, outcome.error) == ("error", f"PermissionError: {reason}"), code
    assert not target.exists() and existing.read_text() == "keep me" and not (tmp_path / "d").exists()


async def test_sockets_are_refused(unchecked, drive):
    outcome = await drive(unchecked, WORKER_GLOBALS + "s = g['builtins'].__import__('socket').socket()")
    assert outcome.error == "PermissionError: forbidden: import socket"


async def test_subprocesses_are_refused(unchecked, drive, tmp_path):
    marker = tmp_path / "spawned"
    cases = {
        f"g['os'].system('touch {marker}')": "forbidden: os.system",
        f"g['os'].posix_spawn('/usr/bin/touch', ['touch', {str(marker)!r}], {{}})": "forbidden: os.posix_spawn",
        "g['os'].fork()": "forbidden: os.fork",
        f"g['os'].execv('/usr/bin/touch', ['touch', {str(marker)!r}])": "forbidden: os.exec",
        "g['builtins'].__import__('subprocess')": "forbidden: import subprocess",
    }
    for code, reason in cases.items():
        outcome = await drive(unchecked, WORKER_GLOBALS + code)
        assert (outcome.status, outcome.error) == ("error", f"PermissionError: {reason}"), code
    assert not marker.exists()


async def test_signals_are_refused(unchecked, drive):
    # Signal 0 only probes: were the hook gone, these would succeed and do no harm.
    cases = {
        f"g['os'].kill({os.getpid()}, 0)": "forbidden: os.kill",
        f"g['os'].killpg({os.getpgid(0)}, 0)": "forbidden: os.killpg",
        # The worker's own globals hold no `signal` (its boot module set the handlers): reached through sys.
        "g['sys'].modules['signal'].pthread_kill(0, 0)": "forbidden: signal.pthread_kill",
    }
    for code, reason in cases.items():
        outcome = await drive(unchecked, WORKER_GLOBALS + code)
        assert (outcome.status, outcome.error) == ("error", f"PermissionError: {reason}"), code
    outcome = await drive(unchecked, "x = 1")
    assert outcome.status == "completed"  # the same worker, still answering
