"""Shared by the Ray tests: Ray's files in a short temp folder per cluster, nodes started with `ray start`,
the command line in a process of its own, and the local model answering the toy world's coin episodes.

Every cluster a test starts keeps its files in a folder of its own (RAY_TMPDIR: Ray's socket paths must stay
short); its processes inherit that variable, which is how a test finds them (to kill a worker mid-episode, to
end its nodes) without touching another run's Ray.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
import venv
from pathlib import Path
from typing import Callable, Iterator

import pytest

ROOT = Path(__file__).resolve().parents[2]
RAY = [sys.executable, "-m", "ray.scripts.scripts"]  # `ray`, as a node of this venv runs it


def skip_module_without_ray() -> None:
    """Skip the calling test module when the ray extra is not installed. Ray is looked for, not imported
    (as `pytest.importorskip` would): every xdist worker collects these modules, and importing Ray costs each
    0.4 CPU-s."""
    if importlib.util.find_spec("ray") is None:
        pytest.skip("the ray extra is not installed: pip install -e '.[ray]'", allow_module_level=True)


def cluster_processes(ray_dir: str, title: bytes = b"") -> list[int]:
    """Processes of the cluster whose files are in `ray_dir` (they inherit its RAY_TMPDIR), whose title starts
    with `title`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if cmdline.startswith(title) and f"RAY_TMPDIR={ray_dir}\0".encode() in environ + b"\0":
            found.append(int(entry.name))
    return found


def _with_descendants(pids: list[int]) -> list[int]:
    """`pids` and every process started under them (Ray's agents do not carry RAY_TMPDIR, their raylet does)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text() if entry.name.isdigit() else ""
        except OSError:
            continue
        if stat:
            children.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry.name))
    found, todo = [], list(pids)
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def end_cluster(ray_dir: str) -> None:
    """Kill the cluster of `ray_dir` (only its processes and theirs) and remove its files."""
    for pid in _with_descendants(cluster_processes(ray_dir)):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    shutil.rmtree(ray_dir, ignore_errors=True)


def new_ray_dir() -> str:
    return tempfile.mkdtemp(prefix="rt-ray-", dir="/tmp")


@pytest.fixture
def ray_dir() -> Iterator[str]:
    """A folder for the local cluster an eval starts; the test fails if the eval left that cluster running."""
    folder = new_ray_dir()
    try:
        yield folder
        deadline = time.monotonic() + 15
        while cluster_processes(folder) and time.monotonic() < deadline:
            time.sleep(0.2)
        left = cluster_processes(folder)
        assert not left, f"the eval left its Ray cluster running: {left}"  # ray.shutdown() stops it
    finally:
        end_cluster(folder)


# No workers started ahead of a job: a test's job needs workers with its own runtime_env, so a worker started
# ahead would only idle (about 0.8 CPU-s per eval here); an eval's own local cluster (no runtime_env) started
# one per CPU, and its one episode used one of them (0.7 CPU-s for the other). One worker starting at a time: a
# lease request that finds another task waiting behind it makes the raylet start a worker ahead for that task
# besides the lease's own, and the task's own lease then starts a third; started one at a time, the worker
# started ahead takes the first lease, and a two-episode eval starts two workers, not three (a worker with the
# job's runtime_env costs about 1.5 CPU-s here).
NO_SPARE_WORKERS = {"RAY_prestart_worker_first_driver": "0", "RAY_enable_worker_prestart": "0",
                    "RAY_worker_maximum_startup_concurrency": "1"}


def node_env(ray_dir: str) -> dict[str, str]:
    """What a node is started with: no PYTHONPATH, no plug-ins (the job brings its code), the cluster's folder,
    Ray's token authentication off (whatever token another test's local cluster left in ~/.ray), and no
    workers started ahead of a job (NO_SPARE_WORKERS)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "RECODE_TUI_PLUGINS")}
    return {**env, "RAY_TMPDIR": ray_dir, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled",
            **NO_SPARE_WORKERS}


# No log monitor on a test's nodes: it tails every worker's log files to pass them to the drivers, and eval's
# driver asks for none (log_to_driver=False); it cost about 0.025 CPU-s per second of a cluster's life here.
NODE_FLAGS = ["--disable-usage-stats", "--include-log-monitor=false"]


def start_head(ray_dir: str, cwd: Path, cpus: int) -> str:
    """`ray start --head` with `cpus` CPUs, no dashboard and no autoscaler monitor (a test's cluster has the
    nodes it starts; the monitor cost about 0.7 CPU-s per half minute here); the address a worker node or
    `eval --ray` joins."""
    head = subprocess.run([*RAY, "start", "--head", f"--num-cpus={cpus}", "--port=0", "--include-dashboard=false",
                           "--no-monitor", *NODE_FLAGS], env=node_env(ray_dir), cwd=cwd, capture_output=True,
                          text=True, timeout=180)
    found = re.search(r"ray start --address='([^']+)'", head.stdout + head.stderr)
    assert head.returncode == 0 and found, head.stdout + head.stderr
    return found.group(1)


def worker_node_python(folder: Path) -> list[str]:
    """A Python with this venv's dependencies and without the project: a fresh venv whose path file names the
    dependencies' folder as bubblewrap binds it, run with the checkout hidden under an empty tmpfs (Ray hands
    workers the driver's `sys.path`, which on one machine would otherwise reach the checkout)."""
    deps, node = folder / "deps", folder / "node"
    deps.mkdir()
    venv.create(node, with_pip=False)
    packages = Path(sysconfig.get_paths()["purelib"])  # this venv's site-packages
    inside = deps / packages.relative_to(sys.prefix)
    node_packages = Path(sysconfig.get_paths(vars={"base": str(node), "platbase": str(node)})["purelib"])
    (node_packages / "deps.pth").write_text(f"{inside}\n")
    hide = ["bwrap", "--dev-bind", "/", "/", "--tmpfs", str(ROOT), "--ro-bind", sys.prefix, str(deps), "--"]
    return [*hide, str(node / "bin" / "python")]


def start_two_nodes(ray_dir: str, folder: Path) -> str:
    """A head node with no CPUs and a worker node with 2 CPUs whose Python has the dependencies but not the
    project (checked), both started with `ray start`, their files in `ray_dir`: every task runs on the worker
    node. The address `eval --ray` joins."""
    if shutil.which("bwrap") is None:
        pytest.skip("the worker node hides the checkout with bubblewrap: sudo apt-get install bubblewrap")
    node, env = worker_node_python(folder), node_env(ray_dir)
    has_deps = "import importlib.util as u; assert all(u.find_spec(m) for m in ('ray', 'openai', 'yaml'))"
    assert subprocess.run([*node, "-c", has_deps], env=env, cwd=folder).returncode == 0  # found, not imported
    assert subprocess.run([*node, "-c", "import recode_tui"], env=env, cwd=folder,
                          capture_output=True).returncode != 0, "the worker node must not have the project"
    address = start_head(ray_dir, folder, cpus=0)
    joined = subprocess.run([*node, "-m", "ray.scripts.scripts", "start", f"--address={address}", "--num-cpus=2",
                             *NODE_FLAGS], env=env, cwd=folder, capture_output=True, text=True, timeout=180)
    assert joined.returncode == 0, joined.stdout + joined.stderr
    return address


def start(command: list[str], ray_dir: str, joining: bool = False) -> subprocess.Popen:
    """The command in a session of its own (a test can press Ctrl-C on it), with the cluster's folder; `joining`
    a cluster `start_head` started: authentication off, as on its nodes; else the local cluster the command
    starts (`--ray` with no address inherits the driver's environment) starts no workers ahead either."""
    env = {**os.environ, "RAY_TMPDIR": ray_dir, **({"RAY_AUTH_MODE": "disabled"} if joining else NO_SPARE_WORKERS)}
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)


def finish(process: subprocess.Popen, timeout: float = 240) -> tuple[int, str]:
    try:
        out, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, _ = process.communicate()
        raise AssertionError(f"eval did not end:\n{out}")
    return process.returncode, out


TOY_FIRST_CALL = re.compile(r"Now: You are in the middle of a room")  # the one-action agent's first call on toy


def coin_responder() -> Callable[[str], str]:
    """The local model answering as `--llm demo` does on the toy world (tests/toyenv/scripts/coin.yaml): the
    one-action agent wins `toy:coin-1` and `toy:coin-2` in two calls each."""
    from agent.llm import CallContext
    from mockllm.scripted import load_script
    from tests.toyenv import SCRIPTS
    from tests.toyenv.agent import PURPOSE

    entries, context = load_script(str(SCRIPTS / "coin.yaml")), CallContext(purpose=PURPOSE)

    def respond(prompt: str) -> str:
        for entry in entries:
            if entry.matches(prompt, context):
                return entry.answer
        raise AssertionError(f"the coin script has no answer for: {prompt[-200:]!r}")

    return respond
