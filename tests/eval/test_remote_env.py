"""The Env proxy whose real environment lives in a worker process.

The proxy, the worker's reuse and its death are the subject: the toy world (`toy_env`) plays there, a
worker's start costing a tenth of an ALFWorld one's. ALFWorld's engine behind the proxy, observation
for observation: tests/envs/test_env_host.py; its warm import: the last two tests here.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from envs.registry import make_env
from envs.base import EnvError
from recode_tui.setup.env_workers import EnvPool, EnvWorker, RemoteEnv, WorkerDied
from tests.toyenv.world import EPISODES

pytestmark = pytest.mark.heavy  # worker processes, and ALFWorld's engine in the last two


@pytest.fixture
def worker(toy_env):
    """A worker that plays the toy world (toy_env names it in the worker's environment)."""
    w = EnvWorker(warm=False)
    yield w
    w.close()


def test_a_remote_env_plays_exactly_like_the_local_one(worker):
    local = make_env("toy:vase-1")
    remote = RemoteEnv.open(worker, "toy:vase-1", max_steps=80)
    assert (remote.name, remote.task_type, remote.max_steps) == (local.name, local.task_type, 80)
    assert remote.reset() == local.reset()
    for action in EPISODES["vase-1"].gold:
        assert remote.step(action) == local.step(action)
        assert (remote.done, remote.won, remote.steps) == (local.done, local.won, local.steps)
    assert remote.won
    remote.close()
    local.close()
    again = RemoteEnv.open(worker, "toy:coin-1", max_steps=3)  # the worker is reused for the next game
    assert again.reset().instruction == "take a coin." and again.task_type == "take"
    for _ in range(3):
        again.step("look")
    assert again.done and not again.won and again.steps == 3


def test_an_environment_error_comes_back_as_env_error(worker):
    with pytest.raises(EnvError, match="no toy episode 'nope-99'; use one of: vase-1"):
        RemoteEnv.open(worker, "toy:nope-99")
    assert worker.alive  # the worker survives a bad request


def test_a_dead_worker_fails_the_call_with_the_exit_code(worker):
    remote = RemoteEnv.open(worker, "toy:vase-1")
    remote.reset()
    os.kill(worker.pid, signal.SIGKILL)
    with pytest.raises(WorkerDied, match=r"died \(signal 9\) during step"):
        remote.step("look")
    with pytest.raises(WorkerDied):
        remote.step("look")
    remote.close()  # closing an env of a dead worker is quiet


async def test_the_pool_replaces_a_dead_worker(toy_env):
    pool = EnvPool(1, warm_env="toy")
    try:
        async with pool.env("toy:vase-1") as env:
            first = env.worker.pid
            os.kill(first, signal.SIGKILL)
        async with pool.env("toy:key-1") as env:
            assert env.worker.pid != first
            assert env.reset().instruction
        assert pool.replaced == 1
    finally:
        await pool.close()


def test_a_worker_warming_behind_plays_its_episodes_at_the_parents_priority():
    """The agent's import yields the CPU to the console's first frame; the steps a person waits on do not."""
    worker = EnvWorker(warm="alfworld", warm_behind=True)
    try:
        env = RemoteEnv.open(worker, "put-01", max_steps=80)  # answered once the warm import is done
        env.reset()
        assert os.getpriority(os.PRIO_PROCESS, worker.pid) == os.getpriority(os.PRIO_PROCESS, 0)
        env.close()
    finally:
        worker.close()


# What a worker process does before its first request: its module, then the engine's warm import.
WORKER_START = """
import json, sys
from recode_tui.setup import env_workers
from envs import registry
registry.provider("alfworld").warm()
print(json.dumps(sorted(name for name in sys.modules if name.split(".")[0] in {"textworld", "asyncio", "prompt_toolkit"}
                        and "." not in name)))
"""


def test_a_worker_imports_only_what_playing_needs():
    """Every eval episode and console start waits on a worker's start: it imports the engine (textworld), not
    textworld's human-play prompt (prompt_toolkit) nor the pool's asyncio (~0.1 CPU-s of its 0.5-0.7)."""
    done = subprocess.run([sys.executable, "-c", WORKER_START], capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(done.stdout.splitlines()[-1]) == ["textworld"]
