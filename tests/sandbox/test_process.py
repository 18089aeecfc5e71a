"""The worker process: clocks, interrupts, restarts, snapshots, trusted mode."""

from __future__ import annotations

import asyncio
import os
import pickle
import time

import pytest

from agent.runtime.runner import ActionRequest, NodeOutcome
from agent.sandbox.runner import SandboxError, SandboxRunner
from agent.sandbox.walls import SandboxPolicy

from .conftest import SPIN_TIMEOUT

pytestmark = pytest.mark.heavy  # the sandbox worker
HANG = 60.0  # bounds a real hang only: a loaded machine is slow, not stuck


@pytest.mark.asyncio
async def test_the_clock_stops_while_the_parent_serves_run(drive):
    async def slow_env(_request):
        await asyncio.sleep(0.2)

    runner = SandboxRunner(node_timeout=0.6, memory_mb=256)  # the four answers' 0.8 s is longer
    try:
        began = time.monotonic()
        outcome = await drive(runner, "for i in range(4):\n    run('look')", on_action=slow_env)
        assert outcome.status == "completed", outcome  # 0.8 s of parent time, far less of worker time
        assert time.monotonic() - began >= 0.8
    finally:
        await runner.close()


@pytest.mark.asyncio
async def test_condition_sees_the_live_loop_while_waiting_in_run(runner):
    await runner.start("for i in range(3):\n    run(f'step {i}')")
    seen = []
    while True:
        message = await runner.next_message()
        if isinstance(message, NodeOutcome):
            break
        seen.append((message.action, await runner.evaluate_condition("i >= 1")))
        assert "i" in {v.name for v in await runner.variables()}
        runner.answer("ok")
    assert seen == [("step 0", False), ("step 1", True), ("step 2", True)]


@pytest.mark.asyncio
async def test_interrupt_stops_a_loop(drive):
    runner = SandboxRunner(node_timeout=30.0, memory_mb=256)
    try:
        await runner.set_variables({"canary": 1})
        await runner.start("n = 0\nwhile True:\n    n += 1")
        pid = runner.worker_pid
        asyncio.get_running_loop().call_later(0.2, runner.interrupt)
        began = time.monotonic()
        outcome = await runner.next_message()
        assert isinstance(outcome, NodeOutcome)
        assert (outcome.status, outcome.error) == ("error", "interrupted")
        assert time.monotonic() - began < 1.0
        assert runner.worker_pid == pid  # the interrupt was enough: no restart
        assert {v.name for v in await runner.variables()} >= {"canary", "n"}
    finally:
        await runner.close()


@pytest.mark.asyncio
async def test_interrupt_escalates_to_kill_and_restore(drive):
    runner = SandboxRunner(node_timeout=30.0, memory_mb=256, interrupt_grace=0.3)
    try:
        await runner.set_variables({"canary": "alive"})
        await runner.start("while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass")
        pid = runner.worker_pid
        asyncio.get_running_loop().call_later(0.1, runner.interrupt)
        began = time.monotonic()
        outcome = await runner.next_message()
        assert outcome.status == "error" and outcome.error.startswith("interrupted"), outcome
        assert time.monotonic() - began < 1.5
        assert runner.worker_pid not in (None, pid)
        assert [v.summary for v in await runner.variables()] == ["alive"]
        assert (await drive(runner, "x = canary")).status == "completed"
    finally:
        await runner.close()


@pytest.mark.asyncio
async def test_interrupt_while_waiting_for_an_answer(runner):
    await runner.start("run('look')\nafter = 1")
    message = await runner.next_message()
    assert isinstance(message, ActionRequest)
    runner.interrupt()
    runner.answer("too late")  # dropped: nothing is waiting any more
    outcome = await runner.next_message()
    assert (outcome.status, outcome.error) == ("error", "interrupted")
    assert "after" not in {v.name for v in await runner.variables()}


@pytest.mark.asyncio
async def test_restart_restores_snapshot_and_reports_unpicklable(spinning_runner, drive):
    runner = spinning_runner
    outcome = await drive(runner, "data = {'a': [1, 2]}\nm = re.match('a', 'a')\ngen = (i for i in [1])")
    assert outcome.status == "completed"
    pid = runner.worker_pid
    outcome = await drive(runner, "data['b'] = 3\nwhile True:\n    pass")
    assert outcome.error.startswith(f"timed out after {SPIN_TIMEOUT:.1f} s (not restored: ")
    assert "m" in outcome.error and "gen" in outcome.error
    assert {(c.name, c.change) for c in outcome.changes} == {("m", "removed"), ("gen", "removed")}
    assert runner.worker_pid != pid and runner.restarts == 1
    values = {v.name: v.summary for v in await runner.variables()}
    assert values == {"data": "{'a': [1, 2]}"}  # the timed-out node's change is undone
    assert await runner.evaluate_condition("data['a'] == [1, 2]")


@pytest.mark.asyncio
async def test_worker_killed_from_outside_is_replaced(runner, drive):
    await runner.set_variables({"canary": "alive"})
    worker = runner._proc  # the process the runner started (bwrap's, which ends with the worker under it)
    assert worker is not None
    os.kill(runner.worker_pid, 9)
    # The runner sees the worker die when the loop reaps that process: its exit, awaited (no public event says so).
    await asyncio.wait_for(worker.wait(), HANG)
    assert runner.worker_pid is None  # the runner has seen the worker die
    outcome = await drive(runner, "x = canary + '!'")
    assert outcome.status == "completed", outcome
    assert {v.name: v.summary for v in await runner.variables()} == {"canary": "alive", "x": "alive!"}


@pytest.mark.asyncio
async def test_a_slow_condition_kills_the_node_it_was_asked_in(spinning_runner):
    runner = spinning_runner
    await runner.start("run('look')")
    assert isinstance(await runner.next_message(), ActionRequest)
    with pytest.raises(SandboxError, match="timed out"):
        await runner.evaluate_condition("any(iter(int, 1))")
    outcome = await runner.next_message()
    assert outcome.status == "error" and outcome.error.startswith("timed out")
    assert runner.worker_pid is not None


@pytest.mark.asyncio
async def test_parent_never_unpickles(monkeypatch, spinning_runner, drive):
    runner = spinning_runner
    def refuse(*args, **kwargs):
        raise AssertionError("the parent unpickled something")

    monkeypatch.setattr(pickle, "loads", refuse)
    monkeypatch.setattr(pickle, "load", refuse)
    monkeypatch.setattr(pickle, "Unpickler", refuse)
    await runner.set_variables({"canary": [1, 2]})
    assert (await drive(runner, "canary.append(3)")).status == "completed"
    assert (await drive(runner, "while True:\n    pass")).status == "error"  # kill + restore
    assert [v.summary for v in await runner.variables()] == ["[1, 2, 3]"]


@pytest.mark.asyncio
async def test_trusted_mode_skips_checks_but_keeps_isolation_and_limits(drive):
    runner = SandboxRunner(trusted=True, node_timeout=SPIN_TIMEOUT, memory_mb=256)
    try:
        outcome = await drive(runner, "import os\npid = os.getpid()\nt = type(1).__name__")
        assert outcome.status == "completed", outcome
        values = {v.name: v.summary for v in await runner.variables()}
        assert values["pid"] != str(os.getpid()) and values["t"] == "int"
        outcome = await drive(runner, "while True:\n    pass")
        assert outcome.error == f"timed out after {SPIN_TIMEOUT:.1f} s"
        outcome = await drive(runner, "s = 'a' * (3 * 1024 ** 3)")
        assert outcome.error == "memory limit"
        outcome = await drive(runner, "exit(3)")
        assert outcome.error == "SystemExit: 3"
        outcome = await drive(runner, "import os\nos._exit(1)")
        assert outcome.status == "error" and outcome.error.startswith("worker exited")
        outcome = await drive(runner, "import os\nos.kill(os.getpid(), 11)")
        assert outcome.error.startswith("worker crashed (SIGSEGV)")
        assert {v.name for v in await runner.variables()} >= {"pid", "t"}
    finally:
        await runner.close()


@pytest.mark.asyncio
async def test_the_worker_gets_no_secrets_from_the_environment(monkeypatch, drive):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    runner = SandboxRunner(trusted=True, node_timeout=1.0)
    try:
        outcome = await drive(runner, "import os\nkey = os.environ.get('OPENAI_API_KEY', 'none')")
        assert outcome.status == "completed", outcome
        assert [v.summary for v in await runner.variables()] == ["none"]
    finally:
        await runner.close()


@pytest.mark.asyncio
async def test_close_ends_the_worker():
    runner = SandboxRunner(node_timeout=1.0)
    await runner.ensure_started()
    pid = runner.worker_pid
    ended = asyncio.get_running_loop().create_future()
    watch = os.pidfd_open(pid)  # readable once the worker has exited, whoever reaps it
    asyncio.get_running_loop().add_reader(watch, lambda: ended.done() or ended.set_result(True))
    try:
        await runner.close()
        # a worker killed in its stopped state is bubblewrap's child and dies with it a moment after close
        # returns: its exit is awaited (the bound is for a worker that never ends)
        assert await asyncio.wait_for(ended, timeout=10.0)
    finally:
        asyncio.get_running_loop().remove_reader(watch)
        os.close(watch)


def our_children() -> set[int]:
    """The processes this test process started that are still running (not yet reaped)."""
    me, found = os.getpid(), set()
    for entry in os.listdir("/proc"):
        try:
            stat = open(f"/proc/{entry}/stat").read() if entry.isdigit() else ""
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split() if stat else []
        if fields and int(fields[1]) == me and fields[0] != "Z":
            found.add(int(entry))
    return found


@pytest.mark.asyncio
async def test_a_runner_closed_while_its_worker_starts_leaves_no_worker():
    """A run closed while its first node's worker is still starting (a console quit, or a resume replacing
    the run, right after a step): the worker that comes up after the close is stopped, not left running
    for as long as the console runs."""
    before = our_children()
    runner = SandboxRunner(node_timeout=1.0)
    starting = asyncio.ensure_future(runner.start("x = 1"))
    await asyncio.sleep(0)  # the start runs up to its first wait: the worker is being spawned
    await runner.close()
    with pytest.raises(SandboxError, match="closed while its worker started"):
        await starting
    assert runner.worker_pid is None and our_children() <= before


@pytest.mark.asyncio
async def test_saving_and_restoring_a_large_namespace_is_not_the_nodes_time(drive):
    runner = SandboxRunner(node_timeout=1.0, memory_mb=2048)
    try:
        # Fast code (~0.2 s) whose variables take longer than the limit to snapshot.
        code = "\n".join(f"v{i} = [str(j).zfill(50) for j in range(450_000)]" for i in range(2))
        outcome = await drive(runner, code)
        assert outcome.status == "completed", outcome
        assert outcome.seconds < 1.0 and outcome.restore_seconds == 0.0
        outcome = await drive(runner, "while True:\n    pass")
        assert outcome.error == "timed out after 1.0 s"
        assert 1.0 <= outcome.seconds < 1.2  # the limit, not the limit plus the restore
        assert outcome.restore_seconds > 0.0  # reported apart
        assert {v.name for v in await runner.variables()} == {"v0", "v1"}
    finally:
        await runner.close()


def test_a_runner_dropped_without_close_leaves_no_private_folder():
    """The worker's working directory goes with its runner, closed or not (no recode-worker-* pile in /tmp)."""
    import asyncio
    import gc

    async def start_and_drop() -> str:
        runner = SandboxRunner(node_timeout=1.0, policy=OUTSIDE_NAMESPACES)  # inside them the folder is a tmpfs
        await runner.ensure_started()
        folder = runner.workdir
        assert folder is not None and os.path.isdir(folder)
        os.kill(runner.worker_pid, 9)
        await asyncio.sleep(0.2)  # the loop reaps the killed worker
        del runner
        gc.collect()  # while the loop runs: its transport closes cleanly (a closed loop's raises in __del__,
        return folder  # at whatever later moment the collector runs, e.g. inside another test's ast.parse)

    folder = asyncio.run(start_and_drop())
    assert not os.path.exists(folder)


# A worker outside namespaces (weak mode) works in a folder of the parent's /tmp; inside them, in a tmpfs.
OUTSIDE_NAMESPACES = SandboxPolicy(walls=frozenset({"landlock", "seccomp"}), weak_ok=True)

PARENT_THAT_GETS_KILLED = """
import asyncio, sys, time
from agent.sandbox.runner import SandboxRunner
from agent.sandbox.walls import SandboxPolicy

async def main():
    runner = SandboxRunner(node_timeout=1.0, policy=SandboxPolicy(walls=frozenset({"seccomp"}), weak_ok=True))
    await runner.ensure_started()
    print(runner.workdir, flush=True)
    time.sleep(60)

asyncio.run(main())
"""


def test_the_folder_of_a_parent_killed_with_sigkill_is_removed_by_the_next_parent(tmp_path):
    """A killed parent cannot clean up: the next one removes its worker folder, not a live parent's."""
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    parent = subprocess.Popen([sys.executable, "-c", PARENT_THAT_GETS_KILLED], cwd=root, stdout=subprocess.PIPE,
                              text=True)
    try:
        orphan = parent.stdout.readline().strip()
        assert orphan and os.path.isdir(orphan), orphan
    finally:
        parent.kill()
        parent.wait()
    live = tempfile.mkdtemp(prefix=f"recode-worker-{os.getpid()}-")  # this process is a running parent
    try:
        assert os.path.isdir(orphan)  # nobody cleaned up after the SIGKILL

        async def start_another() -> None:
            runner = SandboxRunner(node_timeout=1.0, policy=OUTSIDE_NAMESPACES)
            try:
                await runner.ensure_started()
            finally:
                await runner.close()

        asyncio.run(start_another())
        assert not os.path.exists(orphan)
        assert os.path.isdir(live)
    finally:
        os.rmdir(live)
