"""Environments whose real engine lives in a worker process (eval's pool, the console's early worker).

`RemoteEnv` is an `Env` that sends each call to a worker process
(`python -m recode_tui.setup.env_workers`) over its stdin/stdout, one JSON line per
request and reply. ALFWorld's reset and step are CPU-bound Python, so one
process per concurrent episode is what lets C episodes really run in parallel.

A worker holds one environment at a time and is reused for the next episode
(its imports stay warm). If the worker dies, the call in flight raises
`EnvError` naming the exit code and the worker's last stderr line; the pool
starts a fresh worker for the next episode, so only that episode fails.

    pool = EnvPool(4)
    async with pool.env("put-01", max_steps=80) as env:
        engine = Engine(env, llm, RunnerSettings().make_runner())
        ...
    await pool.close()

The worker ignores Ctrl-C: the parent decides when episodes stop, and closing
a worker's stdin (or the parent dying) ends it.

A worker imports what playing needs and no more: asyncio is the pool's (the parent's), imported in its
methods, so every worker's start (one per lane of an eval, one per console) skips it.
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, Sequence

from envs.base import EnvError, EnvState, Reset, StateView

if TYPE_CHECKING:
    import asyncio

DEFAULT_FACTORY = "envs.registry:make_env"  # "module:function", called as function(game, max_steps)
WORKER_MODULE = "recode_tui.setup.env_workers"  # what a worker process runs (this module)


class WorkerDied(EnvError):
    """The worker process ended while a call was in flight."""


class EnvWorker:
    """One worker process and the blocking request/reply channel to it."""

    def __init__(self, factory: str = DEFAULT_FACTORY, extra_path: Sequence[str] = (), warm: bool | str = True,
                 warm_behind: bool = False) -> None:
        """`warm_behind`: the engine's import yields the CPU to the parent's (the console's first frame);
        for an engine that starts no other process (a JVM would keep the lower priority)."""
        self.factory = factory
        self.warm = warm  # the environment whose engine it starts (True: the default one)
        self._stderr = tempfile.TemporaryFile(mode="w+b")
        env = dict(os.environ)
        if extra_path:
            env["PYTHONPATH"] = os.pathsep.join([*extra_path, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        # warm: start the environment's engine before the first episode (True: the default environment's)
        warm_flags = ([f"--warm={warm}" if isinstance(warm, str) else "--warm"] if warm else [])
        args = [sys.executable, "-m", WORKER_MODULE, factory, *warm_flags, *(["--behind"] if warm_behind else [])]
        self.process = subprocess.Popen(
            args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=env,
        )
        self._lock = threading.Lock()
        self.dead_reason = ""

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def alive(self) -> bool:
        return not self.dead_reason and self.process.poll() is None

    def call(self, op: str, **fields: Any) -> dict[str, Any]:
        """Send one request and wait for its reply (blocking: call it from a thread)."""
        with self._lock:
            if not self.alive:
                raise WorkerDied(self.dead_reason or self._death(op))
            line = (json.dumps({"op": op, **fields}) + "\n").encode()
            try:
                assert self.process.stdin is not None and self.process.stdout is not None
                self.process.stdin.write(line)
                self.process.stdin.flush()
                answer = self.process.stdout.readline()
            except (BrokenPipeError, OSError, ValueError):
                answer = b""
            if not answer:
                self.dead_reason = self._death(op)
                raise WorkerDied(self.dead_reason)
            return json.loads(answer)

    def _death(self, op: str) -> str:
        try:
            code = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        tail = ""
        try:
            self._stderr.seek(0)
            lines = [l for l in self._stderr.read().decode(errors="replace").splitlines() if l.strip()]
            tail = lines[-1].strip()[:200] if lines else ""
        except (OSError, ValueError):
            pass
        why = f"signal {-code}" if code < 0 else f"exit code {code}"
        return f"the environment worker process died ({why}) during {op}" + (f": {tail}" if tail else "")

    def kill(self, reason: str) -> None:
        """End the worker now: a call blocked in it returns WorkerDied; a pool replaces it when it comes back."""
        self.dead_reason = self.dead_reason or reason
        if self.process.poll() is None:
            self.process.kill()

    def discard(self) -> None:
        """End a worker no episode has used, at once: its engine's import may still be running, and `close`
        would wait for it (up to a second of the command's exit, and that import's CPU). Only for a worker
        whose engine starts no process of its own (a JVM would outlive it)."""
        self.kill("not needed")
        self.close(timeout=1)

    def close(self, timeout: float = 5.0) -> None:
        """Ask the worker to exit; kill it if it does not."""
        if self.process.poll() is None:
            try:
                assert self.process.stdin is not None
                self.process.stdin.close()  # EOF ends the worker's loop
            except (OSError, ValueError):
                pass
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for stream in (self.process.stdout, self._stderr):
            if stream is None:
                continue
            try:
                stream.close()
            except (OSError, ValueError):
                pass


class RemoteEnv(StateView):
    """An `Env` over an `EnvWorker`: every call goes to the worker, and the episode's state comes back whole
    (an `EnvState`) with each reply, so reading it never waits on the worker."""

    def __init__(self, worker: EnvWorker, episode_ref: str, max_steps: int, name: str, task_type: str | None,
                 state: EnvState) -> None:
        self.worker = worker
        self.game = episode_ref
        self.max_steps = max_steps
        self.name = name
        self.task_type = task_type
        self.seen = state
        self._open = True
        self.owns_worker = False  # closing this environment ends the worker too (the console's own worker)

    @classmethod
    def open(cls, worker: EnvWorker, episode_ref: str, max_steps: int | None = 80) -> "RemoteEnv":
        """Create the environment in the worker (blocking); max_steps None: the episode's own limit."""
        reply = worker.call("open", game=str(episode_ref), max_steps=max_steps)
        result = _unwrap(reply)
        return cls(worker, str(episode_ref), result.get("max_steps", max_steps), result["name"], result["task_type"],
                   EnvState.from_json(reply["state"]))

    def _call(self, op: str, **fields: Any) -> Any:
        reply = self.worker.call(op, **fields)
        if reply.get("state"):
            self.seen = EnvState.from_json(reply["state"])
        return _unwrap(reply)

    def reset(self) -> Reset:
        result = self._call("reset")
        return Reset(instruction=result["instruction"], observation=result["observation"], raw=result["raw"])

    def step(self, action: str) -> str:
        return self._call("step", action=str(action))

    def translate(self, action: str) -> str:
        return str(self._call("translate", action=str(action)))

    def is_invalid(self, observation: str) -> bool:
        return bool(self._call("is_invalid", observation=str(observation)))

    def close(self) -> None:
        """Close the environment in the worker; the worker itself stays for the next episode unless it is owned."""
        if self._open and self.worker.alive:
            self._open = False
            try:
                self.worker.call("close")
            except EnvError:
                pass
        if self.owns_worker:
            self.worker.close(timeout=2)

    def abandon(self, reason: str) -> None:
        """End the worker process now (an episode over its wall clock): a step blocked in it returns."""
        self._open = False
        self.worker.kill(reason)

    def __repr__(self) -> str:
        return f"RemoteEnv({self.game!r}, pid={self.worker.pid}, task_type={self.task_type!r})"


def _unwrap(reply: dict[str, Any]) -> Any:
    if reply.get("ok"):
        return reply.get("result")
    message = reply.get("message") or reply.get("error") or "unknown error"
    if reply.get("env_error"):
        raise EnvError(message)
    raise EnvError(f"{reply.get('error')}: {message}")


class EnvPool:
    """`size` workers handed out one per episode; a dead worker is replaced when it comes back."""

    def __init__(
        self, size: int, factory: str = DEFAULT_FACTORY, extra_path: Sequence[str] = (), warm_env: str | None = None,
        started: Sequence[EnvWorker] = (),
    ) -> None:
        """`started`: workers started earlier for this factory and environment (`eval` starts one before its
        own imports, so the engine's import overlaps them); the pool takes them first and spawns the rest."""
        if size < 1:
            raise ValueError("an EnvPool needs at least one worker")
        self.factory = factory
        self.extra_path = tuple(extra_path)
        self.warm_env = warm_env  # each worker starts this environment's engine (ScienceWorld: its own JVM)
        self.workers: list[EnvWorker] = list(started[:size]) + [self._spawn() for _ in range(size - len(started))]
        for extra in started[size:]:
            extra.close(timeout=1)
        self._idle: asyncio.Queue[EnvWorker] | None = None
        self.replaced = 0

    def _spawn(self) -> EnvWorker:
        return EnvWorker(self.factory, self.extra_path, warm=self.warm_env or True)

    def _queue(self) -> asyncio.Queue[EnvWorker]:
        import asyncio  # here, not at the top: a worker process never needs it

        if self._idle is None:
            self._idle = asyncio.Queue()
            for worker in self.workers:
                self._idle.put_nowait(worker)
        return self._idle

    async def acquire(self) -> EnvWorker:
        import asyncio

        worker = await self._queue().get()
        if not worker.alive:
            worker = await asyncio.to_thread(self._replace, worker)
        return worker

    def _replace(self, worker: EnvWorker) -> EnvWorker:
        worker.close(timeout=1)
        fresh = self._spawn()
        self.workers[self.workers.index(worker)] = fresh
        self.replaced += 1
        return fresh

    def release(self, worker: EnvWorker) -> None:
        self._queue().put_nowait(worker)

    @asynccontextmanager
    async def env(self, episode_ref: str, max_steps: int | None = 80) -> AsyncIterator[RemoteEnv]:
        """A RemoteEnv on a worker of the pool for the length of the block."""
        import asyncio

        worker = await self.acquire()
        remote: RemoteEnv | None = None
        try:
            remote = await asyncio.to_thread(RemoteEnv.open, worker, episode_ref, max_steps)
            yield remote
        finally:
            if remote is not None:
                await asyncio.shield(asyncio.to_thread(remote.close))
            self.release(worker)

    async def ready(self) -> None:
        """Wait until every worker has started and imported its engine."""
        import asyncio

        await asyncio.gather(*(asyncio.to_thread(w.call, "ping") for w in self.workers))

    async def close(self) -> None:
        import asyncio

        await asyncio.gather(*(asyncio.to_thread(w.close) for w in self.workers))


# ----------------------------------------------------------------- the worker
def _load_factory(spec: str) -> Callable[..., Any]:
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name or "make_env")  # dynamic: the `module:name` spec given


def serve(factory_spec: str, inp: Any, out: Any, warm: bool | str = False, behind: bool = False) -> None:
    """The worker loop: one JSON request per line in, one JSON reply per line out."""
    factory = _load_factory(factory_spec)
    if warm:
        # Started while the parent is still setting up; `behind` (the console draws its first frame
        # meanwhile): the engine's import runs in a thread of lower priority, so it takes the CPU the
        # parent leaves, and the worker's own thread, which plays the episodes, keeps its priority.
        warming = threading.Thread(target=_warm, args=(warm, WARM_NICE if behind else 0), name="warm")
        warming.start()
        warming.join()
    env: Any = None
    for line in inp:
        if not line.strip():
            continue
        request = json.loads(line)
        op = request.get("op")
        try:
            if op == "open":
                if env is not None:
                    env.close()
                env = None
                env = factory(request["game"], request.get("max_steps", 80))
                result: Any = {"name": env.name, "task_type": env.task_type, "max_steps": env.max_steps}
            elif op == "reset":
                reset = _require(env).reset()
                result = {"instruction": reset.instruction, "observation": reset.observation, "raw": reset.raw}
            elif op == "step":
                result = _require(env).step(request["action"])
            elif op == "translate":
                result = _require(env).translate(request["action"])
            elif op == "is_invalid":
                result = bool(_require(env).is_invalid(request["observation"]))
            elif op == "ping":
                result = "pong"
            elif op == "close":
                if env is not None:
                    env.close()
                env, result = None, None
            else:
                raise ValueError(f"unknown request {op!r}")
            reply: dict[str, Any] = {"ok": True, "result": result}
        except Exception as exc:  # noqa: BLE001 - every failure goes back to the parent as a reply
            reply = {"ok": False, "error": type(exc).__name__, "message": str(exc), "env_error": isinstance(exc, EnvError)}
        if env is not None:
            reply["state"] = env.state().to_json()  # whole: whatever the environment offers reaches the parent
        out.write((json.dumps(reply) + "\n").encode())
        out.flush()
    if env is not None:
        env.close()


WARM_NICE = 10  # the warming thread's niceness with --behind (Linux sets it per thread)


def _warm(warm: bool | str, nice: int) -> None:
    """Import and start the environment's engine (TextWorld, a JVM); `nice` > 0: at a lower priority."""
    if nice > 0:
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), nice)
        except (AttributeError, OSError):  # not Linux: the same start at the same priority
            pass
    try:
        from envs import registry

        name = warm if isinstance(warm, str) else registry.default_env()
        registry.provider(name).warm()
    except Exception:  # noqa: BLE001 - a missing engine is reported by the first reset
        pass


def _require(env: Any) -> Any:
    if env is None:
        raise RuntimeError("no environment is open in this worker")
    return env


def main(argv: Sequence[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops episodes, not Ctrl-C
    # The protocol owns the real stdout; anything the engine prints goes to stderr.
    channel = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    factory = next((a for a in argv if not a.startswith("--")), DEFAULT_FACTORY)
    warm: bool | str = next((a.split("=", 1)[1] for a in argv if a.startswith("--warm=")), "--warm" in argv)
    serve(factory, sys.stdin.buffer, channel, warm=warm, behind="--behind" in argv)
    # The parent waits for this process to end: skip the interpreter's teardown of the engine's objects
    # (0.1-0.15 s for ALFWorld's, at the end of every eval and console). The episode is closed and every
    # reply written; a ScienceWorld JVM ends with its pipe (py4j's die_on_exit).
    channel.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
