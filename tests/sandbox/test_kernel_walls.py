"""The kernel's walls hold with the Python-level layers switched off, for root and for an ordinary user.

`RECODE_SANDBOX_LAYERS=os` lets node code import `os`, `socket` and
`subprocess`, open files and walk to anything; only the walls below the
interpreter stand. The battery (tests/sandbox/hostile_battery.py) runs once as
root and once as an unused uid dropped to with `setpriv`; where the interpreter
lives under a folder that uid cannot enter, the test shows it the interpreter
through a private mount namespace instead of skipping. Each wall is then
attacked alone, with the others off.
"""

from __future__ import annotations

import asyncio
import json
import os
import pwd
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from agent.runtime.runner import NodeOutcome
from agent.sandbox.runner import SandboxRunner
from agent.sandbox.walls import SandboxPolicy, missing_walls

ROOT = Path(__file__).resolve().parents[2]
BATTERY = Path(__file__).with_name("hostile_battery.py")
SECRET = "sk-walls-test-do-not-leak"

# heavy: the sandbox worker
pytestmark = [pytest.mark.heavy,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the kernel walls are Linux's")]


def _require_walls() -> None:
    missing = missing_walls()
    assert not missing, f"this machine cannot raise the sandbox's walls: {missing} (.ci/run installs bubblewrap)"


def _unused_uid() -> int:
    taken = {entry.pw_uid for entry in pwd.getpwall()}
    return next(uid for uid in range(47000, 60000) if uid not in taken)


def _world(tmp: Path, owner: int) -> dict[str, object]:
    """A HOME with a 0600 and a 0644 secret, a world-writable folder, and a listener on loopback."""
    home, shared = tmp / "home", tmp / "shared"
    home.mkdir()
    shared.mkdir()
    (home / "secret600").write_text("six hundred")
    (home / "secret644").write_text("six forty-four")
    os.chmod(home / "secret600", 0o600)
    os.chmod(home / "secret644", 0o644)
    os.chmod(home, 0o755)
    os.chmod(shared, 0o1777)
    for path in (home, home / "secret600", home / "secret644"):
        os.chown(path, owner, owner)
    return {"home": str(home), "shared": str(shared)}


# The host's shared memory may grow by the worker's private tmpfs (64 MiB) and what the machine's other
# processes do meanwhile (64 MiB): never by the 1.5 GiB of memfd and SysV segments the battery asks for.
SHARED_MEMORY_MARGIN_MIB = 128


def _check(results: dict[str, object], world: dict[str, object]) -> None:
    escaped = {name: result for name, result in results.items() if str(result).startswith("ESCAPED")}
    assert not escaped, escaped
    assert float(str(results["host shared memory grew (MiB)"])) <= SHARED_MEMORY_MARGIN_MIB, results
    assert results["the parent's check refuses import os"] is None  # RECODE_SANDBOX_LAYERS=os: the walls alone
    assert results["a taken-over worker's outcome and prompt lines"] == "held"  # clipped by the parent
    if _distribution_python():
        assert results["a distribution Python's /usr"] == "held"
    assert results["parent signalled"] is False
    for name in ("planted", "shell-ran", "exec-ran"):
        assert not (Path(str(world["shared"])) / name).exists(), name
    assert not (Path(str(world["home"])) / "planted").exists()
    walls = " ".join(map(str, results["walls"]))
    assert "namespaces" in walls and "landlock" in walls and "seccomp" in walls, walls


def _battery_env(home: str) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "RECODE_SANDBOX_LAYERS": "os",
            "RECODE_TEST_SECRET": SECRET, "LANG": "C.UTF-8"}


def _distribution_python() -> str:
    """A Python installed by the distribution in /usr, if this machine has one ('' if not)."""
    for candidate in ("/usr/bin/python3",):
        real = os.path.realpath(candidate)
        if os.path.isfile(real) and real.startswith("/usr/") and \
                subprocess.run([real, "-c", "import sys; assert sys.version_info >= (3, 10)"]).returncode == 0:
            return real
    return ""


def _run_battery(argv_prefix: list[str], python: str, script: str, world: dict[str, object],
                 path: list[str]) -> dict[str, object]:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.settimeout(0)
        targets = dict(world, port=listener.getsockname()[1], path=path, distribution_python=_distribution_python())
        done = subprocess.run([*argv_prefix, python, "-I", script, json.dumps(targets)],
                              capture_output=True, text=True, timeout=240, env=_battery_env(str(world["home"])))
        try:
            accepted = listener.accept()
            accepted[0].close()
            connected = True
        except (BlockingIOError, OSError):
            connected = False
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads(done.stdout.strip().splitlines()[-1])
    assert not connected, "the listener saw a connection"
    assert SECRET not in done.stdout
    return results


@pytest.mark.skipif(os.geteuid() != 0, reason="the root run needs root (the unprivileged run below covers you)")
def test_hostile_code_gets_nothing_as_root_with_the_python_layers_off():
    _require_walls()
    with tempfile.TemporaryDirectory(prefix="recode-walls-") as folder:
        world = _world(Path(folder), 0)
        results = _run_battery([], sys.executable, str(BATTERY), world, [str(ROOT), *_site_packages()])
    _check(results, world)
    assert results["uid"] == 0


def _site_packages() -> list[str]:
    """Where pyseccomp is installed (the battery runs isolated: -I keeps the virtualenv off its path)."""
    import pyseccomp

    return [str(Path(pyseccomp.__file__).parent)]


def _copy_for(uid: int, tmp: Path) -> str:
    """The battery, the `agent` package and pyseccomp in a folder the uid can read."""
    code = tmp / "code"
    shutil.copytree(ROOT / "agent", code / "agent", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(BATTERY, code / BATTERY.name)
    import pyseccomp

    shutil.copy(pyseccomp.__file__, code / "pyseccomp.py")
    for path in [code, *code.rglob("*")]:
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    return str(code)


def _closed_ancestor(path: str) -> str | None:
    """The outermost folder on `path` that others cannot enter (None: the path is open to every uid)."""
    current = Path("/")
    for part in Path(path).parts[1:]:
        current = current / part
        if current.is_dir() and not os.stat(current).st_mode & stat.S_IXOTH:
            return str(current)
    return None


def _reachable_interpreter_prefix(python: str, tmp: Path) -> list[str]:
    """A command prefix under which `python` (and its standard library) can be run by any uid.

    When a folder on its way is closed to others (pyenv under /root), a private mount
    namespace lays an open tmpfs over that folder with only the interpreter's prefix
    bound back at its own path: nothing on the machine changes, and nothing skips.
    """
    prefix = os.path.realpath(sys.base_prefix)
    closed = _closed_ancestor(prefix) or _closed_ancestor(python)
    if closed is None:
        return []
    stage = tmp / "stage"
    stage.mkdir()
    script = (f"mount --bind {prefix} {stage} && mount -t tmpfs -o mode=0755 recode-walls {closed} && "
              f"mkdir -p {prefix} && mount --bind {stage} {prefix} && exec \"$@\"")
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh"]


@pytest.mark.skipif(os.geteuid() != 0, reason="dropping to another uid needs root")
def test_hostile_code_gets_nothing_as_an_ordinary_user_with_the_python_layers_off():
    _require_walls()
    uid = _unused_uid()
    with tempfile.TemporaryDirectory(prefix="recode-walls-") as folder:
        tmp = Path(folder)
        os.chmod(tmp, 0o755)
        world = _world(tmp, uid)
        code = _copy_for(uid, tmp)
        python = os.path.realpath(sys.executable)
        drop = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
        results = _run_battery(_reachable_interpreter_prefix(python, tmp) + drop, python,
                               str(Path(code) / BATTERY.name), world, [code])
    _check(results, world)
    assert results["uid"] == uid


# -- each wall alone ----------------------------------------------------------------------------


async def _attempt(policy: SandboxPolicy, code: str) -> str:
    """Run `code` with the Python layers off behind `policy`'s walls; what `got` holds ('None': nothing)."""
    runner = SandboxRunner(node_timeout=5.0, memory_mb=512, policy=policy)
    try:
        body = "".join(f"    {line}\n" for line in code.splitlines())
        await runner.start(f"got = None\ntry:\n{body}except BaseException:\n    got = None")
        while not isinstance(outcome := await runner.next_message(), NodeOutcome):
            runner.answer("")
        assert outcome.status == "completed", outcome
        return {v.name: v.summary for v in await runner.variables()}["got"]
    finally:
        await runner.close()


@pytest.fixture
def open_tmp():
    """A folder every uid may enter (pytest's tmp_path is root's alone: `nobody` could read nothing there)."""
    folder = tempfile.mkdtemp(prefix="recode-walls-")
    os.chmod(folder, 0o755)
    yield Path(folder)
    shutil.rmtree(folder, ignore_errors=True)


def _only(wall: str) -> SandboxPolicy:
    return SandboxPolicy(python_layers=False, walls=frozenset({wall}), weak_ok=True)


async def test_with_no_wall_the_python_layers_off_really_lets_code_through(open_tmp):
    """The control: the attempts below do succeed when no kernel wall stands (so each wall's test can fail)."""
    _require_walls()
    readable = open_tmp / "open"
    readable.write_text("anyone")
    os.chmod(readable, 0o644)
    nothing = SandboxPolicy(python_layers=False, walls=frozenset(), weak_ok=True)
    assert await _attempt(nothing, f"got = open({str(readable)!r}).read()") == "anyone"
    assert await _attempt(nothing, "import socket\ns = socket.socket()\ngot = 'socket'") == "socket"
    assert await _attempt(nothing, "import os\ngot = os.listdir('/etc')[:1]") != "None"
    assert await _attempt(nothing, "import subprocess\ngot = subprocess.run(['/bin/true']).returncode") == "0"
    assert await _attempt(nothing, f"import os\nos.kill({os.getpid()}, 0)\ngot = 'sent'") == "sent"


@pytest.mark.parametrize("wall", ["namespaces", "landlock"])
async def test_files_outside_are_out_of_reach_behind_one_wall(wall, open_tmp):
    _require_walls()
    readable = open_tmp / "open"
    readable.write_text("anyone")
    shared = open_tmp / "shared"
    shared.mkdir()
    for path in (open_tmp, readable):
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    os.chmod(shared, 0o1777)
    assert await _attempt(_only(wall), f"got = open({str(readable)!r}).read()") == "None"
    assert await _attempt(_only(wall), f"open({str(shared)!r} + '/x', 'w').write('x')\ngot = 'wrote'") == "None"
    assert await _attempt(_only(wall), "import os\ngot = os.listdir('/etc')") == "None"
    assert not (shared / "x").exists()


@pytest.mark.parametrize("wall", ["namespaces", "landlock", "seccomp"])
async def test_no_connection_to_loopback_behind_one_wall(wall):
    _require_walls()
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        code = f"import socket\ns = socket.create_connection(('127.0.0.1', {port}), timeout=2)\ngot = 'connected'"
        assert await _attempt(_only(wall), code) == "None"


@pytest.mark.parametrize("wall", ["landlock", "seccomp"])
async def test_no_program_runs_behind_one_wall(wall, open_tmp):
    _require_walls()
    os.chmod(open_tmp, 0o1777)
    marker = open_tmp / "ran"
    code = f"import subprocess\nsubprocess.run(['/bin/sh', '-c', 'touch {marker}'])\ngot = 'ran'"
    assert await _attempt(_only(wall), code) == "None"
    assert not marker.exists()


@pytest.mark.parametrize("wall", ["landlock", "seccomp"])
async def test_the_worker_cannot_exec_even_its_own_interpreter_behind_one_wall(wall):
    """The namespaces alone cannot stop this (bwrap execs the interpreter, so it is there): `recode-tui sandbox` says so."""
    _require_walls()
    code = "import os, sys\nos.execv(sys.executable, ['python', '-S', '-c', 'raise SystemExit(42)'])"
    assert await _attempt(_only(wall), code) == "None"


async def test_no_file_the_worker_writes_grows_past_its_budget_outside_the_namespaces():
    """Behind Landlock alone the working folder is on the host's disk: RLIMIT_FSIZE bounds each file."""
    _require_walls()
    from agent.sandbox.budgets import FILE_BYTES

    megabytes = FILE_BYTES // 2**20 + 16
    code = ("with open('big', 'wb') as f:\n"
            f"    for _ in range({megabytes}):\n        f.write(bytes(2**20))\ngot = 'wrote'")
    assert await _attempt(_only("landlock"), code) == "None"


@pytest.mark.parametrize("wall", ["namespaces", "landlock", "seccomp"])
async def test_the_parent_cannot_be_signalled_behind_one_wall(wall):
    _require_walls()
    import signal

    received: list[int] = []
    previous = signal.signal(signal.SIGUSR2, lambda signum, frame: received.append(signum))
    try:
        code = f"import os, signal\nos.kill({os.getpid()}, signal.SIGUSR2)\ngot = 'sent'"
        assert await _attempt(_only(wall), code) == "None"
    finally:
        signal.signal(signal.SIGUSR2, previous)
    assert not received


async def test_inside_the_namespaces_the_parents_proc_files_do_not_exist(monkeypatch):
    _require_walls()
    monkeypatch.setenv("RECODE_TEST_SECRET", SECRET)
    code = f"got = open('/proc/{os.getpid()}/environ', 'rb').read().decode('latin-1')"
    assert await _attempt(_only("namespaces"), code) == "None"
    assert await _attempt(_only("namespaces"), "import os\ngot = sorted(os.listdir('/proc'))[:3]") != "None"


# -- budgets between nodes ----------------------------------------------------------------------


async def wait_until(condition, timeout: float = 60.0) -> None:
    """Poll `condition` until it holds; the limit bounds a real hang only. Kept for the one wait no event
    marks: a worker stopping. The worker is not this process's child (bwrap's outer and inner processes are
    between them), so `waitid(WSTOPPED)` cannot see it stop; a pidfd reports only an exit, ptrace would
    make the stop a trace stop ('t', not 'T'), the proc connector sends no stop event, and /proc files
    cannot be polled or watched with inotify: /proc read again is the only way to see the stop."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        await asyncio.sleep(0.01)


def _process_state(pid: int) -> str:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat[stat.rfind(")") + 2:].split()[0]


async def test_between_nodes_the_worker_gets_no_cpu_whatever_its_code_left_running():
    """Code with the layers off leaves a busy signal handler behind; the parent stops the worker until it asks again."""
    _require_walls()
    runner = SandboxRunner(node_timeout=1.0, memory_mb=512, policy=SandboxPolicy(python_layers=False))
    try:
        await runner.start("import signal\nsignal.signal(signal.SIGALRM, lambda *a: [0 for _ in iter(int, 1)])\n"
                           "signal.setitimer(signal.ITIMER_REAL, 30)")
        outcome = await runner.next_message()
        assert isinstance(outcome, NodeOutcome) and outcome.status == "completed", outcome
        pid = runner.worker_pid
        assert pid is not None
        await wait_until(lambda: _process_state(pid) == "T")  # stopped: no CPU while the parent has the turn
        await runner.full_value("nothing")  # a request continues it; its reply stops it again
        await wait_until(lambda: _process_state(pid) == "T")
        await runner.start("x = 1")
        outcome = await runner.next_message()
        assert isinstance(outcome, NodeOutcome) and outcome.status == "completed", outcome
    finally:
        await runner.close()


@pytest.mark.skipif(os.geteuid() != 0, reason="only real root may lower the limits of the worker's IPC namespace")
async def test_behind_the_namespaces_alone_no_sysv_shared_memory_is_had():
    """Without the filter, the worker's own IPC namespace allows no SysV segment (its shmall is 0)."""
    _require_walls()
    code = ("import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
            "key = libc.shmget(0, ctypes.c_size_t(64 * 2**20), 0o1600)\ngot = key if key >= 0 else None")
    assert await _attempt(_only("namespaces"), code) == "None"
    assert open("/proc/sys/kernel/shmmni").read().strip() != "0"  # the host's own limits are untouched
