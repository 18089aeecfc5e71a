"""One ScienceWorld JVM per process, started on first use and reused across episodes.

Why a holder instead of `ScienceWorldEnv` per episode: the JVM takes ~1.3-2.5 s
to start and ~700 MB unbounded, so a worker keeps one with a capped heap. Why
not the wrapper's `step`: it also fetches look, inventory, task description
and every valid action on each step (46-88 ms); a step here asks the simulator
only for the observation, score and completion (~5 ms).

A JVM that dies is started again on the next call with one line in `notes`; a
call that does not answer within `call_timeout` kills the JVM (so nothing
hangs) and raises `SimulatorError`.
"""

from __future__ import annotations

import asyncio
import atexit
import functools
import logging
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, Callable, TypeVar

from envs.base import EnvError
from envs.sciworld import class_archive

T = TypeVar("T")
# Held while a JVM starts: its options reach the JVM's command line through scienceworld's module-level
# `launch_gateway`, bound for that one start (ScienceWorldEnv offers no parameter for them). Why not
# JAVA_TOOL_OPTIONS: the process's environment is everyone's; a thread that copied it during a start (a
# subprocess's environment, a test's saved copy put back later) kept a class archive's options for good,
# which turned the archive off for every later start.
_JAVA_START = threading.Lock()

DEFAULT_HEAP_MB = 640  # measured: keeps a worker's JVM near 500 MB resident
RESTART = "a new one starts with the next episode"
ARCHIVE_WAIT_S = 30.0  # the longest a closing JVM is given to write the class archive (~1 s idle)
ARCHIVE_NOTE = "the JVM could not use ScienceWorld's class archive; removed it (the next JVM writes a new one)"
NO_ARCHIVE_NOTE = "this Java cannot write ScienceWorld's class archive; its JVMs start without one"
JAVA_HINT = "ScienceWorld needs a Java runtime (17+): apt-get install -y openjdk-17-jre-headless"


class SimulatorError(EnvError):
    """The simulator failed or did not answer; the message is one line."""


class Simulator:
    """The process's ScienceWorld JVM."""

    def __init__(self, heap_mb: int = DEFAULT_HEAP_MB, call_timeout: float = 60.0) -> None:
        self.heap_mb = heap_mb
        self.call_timeout = call_timeout
        self.notes: list[str] = []  # one line per restart, for whoever shows the log
        self._env: Any = None
        self._lock = threading.RLock()
        self._calls = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sciworld")
        self.loaded: tuple[str, int, str] | None = None
        self._archive = class_archive.ArchiveUse()  # how the running JVM uses ScienceWorld's class archive
        self._at_start = False  # the loaded episode's world is as loaded (no action played since)

    # -- life cycle ------------------------------------------------------------

    @property
    def alive(self) -> bool:
        proc = _java_process(self._env)
        return self._env is not None and proc is not None and proc.poll() is None

    def _start(self) -> Any:
        """The wrapper on a new JVM; it maps ScienceWorld's class archive, or writes it at its normal exit
        (`envs.sciworld.class_archive`); one the JVM cannot use is dropped with a line in `notes`."""
        try:
            from scienceworld import ScienceWorldEnv
        except ImportError as exc:  # pragma: no cover - a dependency of the project
            raise SimulatorError("ScienceWorld is not installed: pip install scienceworld") from exc
        logging.getLogger("py4j").setLevel(logging.CRITICAL)  # a dead JVM is reported here in one line
        persons = os.environ.get("JAVA_TOOL_OPTIONS")  # a person's own options: the JVM reads them itself
        use = class_archive.plan(persons)
        heap = [] if persons and "-Xmx" in persons else [f"-Xmx{self.heap_mb}m"]
        try:
            wrapper = self._launch(ScienceWorldEnv, [*heap, *use.options])
        except SimulatorError as exc:
            if not use.options or str(exc) == JAVA_HINT:
                raise
            class_archive.give_up(use)
            wrapper = self._launch(ScienceWorldEnv, heap)
            self.notes.append(ARCHIVE_NOTE if use.writing is None else NO_ARCHIVE_NOTE)
            use = class_archive.ArchiveUse()
        if use.dropped or class_archive.refused(use):
            self.notes.append(ARCHIVE_NOTE)
        self._archive = use
        return wrapper

    def _launch(self, wrapper_class: Any, java_options: list[str]) -> Any:
        """ScienceWorld's own constructor, its JVM started with `java_options` on the command line."""
        import scienceworld.scienceworld as wrapper_module
        from py4j.java_gateway import launch_gateway

        wrapper = wrapper_class.__new__(wrapper_class)
        with _JAVA_START:
            wrapper_module.launch_gateway = functools.partial(launch_gateway, javaopts=java_options)
            try:
                wrapper.__init__("", envStepLimit=10**9)  # our Env counts steps itself
                return wrapper
            except FileNotFoundError:
                wrapper.close = lambda: None  # else the half-built wrapper's __del__ prints a traceback
                raise SimulatorError(JAVA_HINT) from None
            except Exception as exc:  # noqa: BLE001 - py4j raises plain exceptions when java will not start
                wrapper.close = lambda: None
                raise SimulatorError(f"the ScienceWorld simulator did not start ({type(exc).__name__}); "
                                     f"{JAVA_HINT}") from None
            finally:
                wrapper_module.launch_gateway = launch_gateway

    def env(self) -> Any:
        """The wrapper object, starting (or restarting) the JVM when needed."""
        with self._lock:
            if self._env is not None and not self.alive:
                self.notes.append("the ScienceWorld JVM had stopped; started a new one")
                self._discard()
            if self._env is None:
                self._env = self._start()
                self.loaded = None
            return self._env

    def _discard(self) -> None:
        env, self._env, self.loaded = self._env, None, None
        if env is None:
            return
        proc = _java_process(env)
        try:
            if proc is not None and proc.poll() is None:
                proc.kill()
            env._gateway.shutdown()
        except Exception:  # noqa: BLE001 - the JVM is gone either way
            pass
        class_archive.keep(self._archive, None)  # a killed JVM's archive, if it was writing one, is not kept

    def close(self) -> None:
        """Stop the JVM: it exits normally, and one that writes the class archive is waited for (the first
        time on this machine: ~1 s) so that the archive is put in place."""
        with self._lock:
            if self._env is not None:
                proc = _java_process(self._env)
                try:
                    self._env.close()  # the JVM exits normally (py4j's newline on its stdin)
                except Exception:  # noqa: BLE001
                    pass
                if self._archive.writing is not None and proc is not None:
                    try:
                        exit_code = proc.wait(timeout=ARCHIVE_WAIT_S)
                    except Exception:  # noqa: BLE001 - still writing after ARCHIVE_WAIT_S: it is killed
                        exit_code = None
                    class_archive.keep(self._archive, exit_code)
                self._discard()

    # -- calls -------------------------------------------------------------------

    def call(self, what: str, fn: Callable[[Any], T], needs_episode: bool = False) -> T:
        """Run `fn(wrapper)` with a time limit; a dead or hung JVM becomes SimulatorError.

        `needs_episode`: the call works on the loaded episode, which a JVM that
        died has lost; it fails instead of running on a fresh, empty JVM.
        """
        future = self._calls.submit(fn, self._ready(what, needs_episode))
        try:
            return future.result(timeout=self.call_timeout)
        except FutureTimeout:
            self._discard()  # kills the JVM, which also ends the blocked call
            raise self._timed_out(what) from None
        except Exception as exc:  # noqa: BLE001 - sorted into one line by _failure
            raise self._failure(what, exc) from None

    async def call_async(self, what: str, fn: Callable[[Any], T], needs_episode: bool = False) -> T:
        """`call` for an event loop: the loop awaits the simulator's own thread.

        Why: an engine that ran the blocking `call` in its env thread paid two
        thread hops per step (its thread, then this one); awaiting pays one.
        """
        future = asyncio.wrap_future(self._calls.submit(fn, self._ready(what, needs_episode)))
        try:
            return await asyncio.wait_for(future, self.call_timeout)  # Python 3.10 has no asyncio.timeout
        except asyncio.TimeoutError:  # not the built-in TimeoutError before Python 3.11
            await asyncio.to_thread(self._discard)  # killing the JVM can take a moment: not on the loop
            raise self._timed_out(what) from None
        except Exception as exc:  # noqa: BLE001 - sorted into one line by _failure
            raise self._failure(what, exc) from None

    def _ready(self, what: str, needs_episode: bool) -> Any:
        """The wrapper to call, or SimulatorError when the call's episode is gone."""
        if needs_episode and self._env is not None and not self.alive:
            self._discard()
            self.notes.append(f"the ScienceWorld JVM had stopped; {RESTART}")
            raise SimulatorError(f"the ScienceWorld JVM had stopped before {what} ({RESTART}); the episode ends here")
        if needs_episode and self.loaded is None:
            raise SimulatorError(f"no episode is loaded in the simulator for {what}; the episode ends here")
        return self.env()

    def _timed_out(self, what: str) -> SimulatorError:
        self.notes.append(f"the ScienceWorld simulator did not answer {what} within {self.call_timeout:g} s; stopped it")
        return SimulatorError(
            f"the simulator did not answer {what} within {self.call_timeout:g} s (stopped it; {RESTART}); "
            "the episode ends here"
        )

    def _failure(self, what: str, exc: Exception) -> SimulatorError:
        """One line for a call that raised: the wrapper's own check, or a JVM that died mid-call."""
        if isinstance(exc, SimulatorError):
            return exc
        if isinstance(exc, ValueError):  # the wrapper's own argument checks
            return SimulatorError(str(exc).splitlines()[0])
        if not self.alive:  # py4j: the JVM died mid-call
            self._discard()
            self.notes.append(f"the ScienceWorld JVM stopped during {what}; {RESTART}")
            return SimulatorError(f"the ScienceWorld JVM stopped during {what} ({RESTART}); the episode ends here")
        return SimulatorError(f"the simulator failed during {what}: "
                              f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")

    def load(self, task: str, variation: int, simplifications: str, gold: bool = False) -> None:
        self.call(f"loading {task}/{variation}", lambda e: e.load(task, variation, simplifications, generateGoldPath=gold))
        self.loaded = (task, variation, simplifications)
        self._at_start = True

    def reset(self) -> tuple[str, str]:
        """(first observation, task description): the loaded episode from its start.

        A world just loaded is at its start; a played one is loaded again. Why not the simulator's own
        `reset`: once any load of this JVM has generated a gold path, its reset generates one again every
        time (measured: 1.4 CPU-s against 0.1 for a load), so every episode after a `--llm gold` one paid it.
        """
        at_start, self._at_start = self._at_start, False
        loaded = self.loaded

        def _reset(e: Any) -> tuple[str, str]:
            if not at_start and loaded is not None:
                e.server.load(*loaded, False)
            return str(e.server.step("look around")), str(e.server.freeActionTaskDesc())

        return self.call("reset", _reset, needs_episode=True)

    def step(self, action: str) -> tuple[str, int, bool]:
        """(observation, score 0-100 or negative on failure, completed)."""
        self._at_start = False
        return self.call(f"the action {action!r}", _stepper(action), needs_episode=True)

    async def step_async(self, action: str) -> tuple[str, int, bool]:
        """`step`, awaited on an event loop (one thread hop)."""
        self._at_start = False
        return await self.call_async(f"the action {action!r}", _stepper(action), needs_episode=True)

    def inventory(self) -> str:
        return self.call("inventory", lambda e: str(e.server.freeActionInventory()), needs_episode=True)

    def valid_actions(self) -> list[str]:
        return self.call("the valid actions", lambda e: list(e.get_valid_action_object_combinations()), needs_episode=True)

    def gold_actions(self) -> list[str]:
        return self.call("the gold path", lambda e: list(e.get_gold_action_sequence()), needs_episode=True)

    def variations(self, task: str) -> dict[str, list[int]]:
        """The simulator's own train/dev/test variation lists for a task."""

        def _lists(e: Any) -> dict[str, list[int]]:
            e.load(task, 0, "")
            return {
                "train": list(e.get_variations_train()),
                "dev": list(e.get_variations_dev()),
                "test": list(e.get_variations_test()),
            }

        lists = self.call(f"the variations of {task}", _lists)
        self.loaded = None
        return lists


def _stepper(action: str) -> Callable[[Any], tuple[str, int, bool]]:
    """One step as the simulator thread runs it: the observation, the score, and whether the task ended."""

    def step(e: Any) -> tuple[str, int, bool]:
        observation = str(e.server.step(action))
        return observation, int(round(100 * e.server.getScore())), bool(e.server.getCompleted())

    return step


_shared: Simulator | None = None
_shared_lock = threading.Lock()


def shared_simulator() -> Simulator:
    """The process's simulator (created on first use; its JVM starts on the first call)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = Simulator()
            atexit.register(close_shared)  # a normal exit of its JVM, which writes the class archive the first time
        return _shared


def close_shared() -> None:
    """Stop the process's JVM, if one was started (a later call starts a new one).

    For whoever ends the process: a JVM bridge left to the interpreter's
    finalisers (py4j's reader threads and object finalisers still talking to
    the JVM while Python tears down) can crash the exit.
    """
    with _shared_lock:
        simulator = _shared
    if simulator is not None:
        simulator.close()


def write_class_archive(java_options: str | None) -> bool:
    """Write ScienceWorld's class archive now if this machine has none (`class_archive`): a JVM plays a step
    of boil/0 and exits normally. For whoever is about to start many JVMs at once (a test session), which would
    otherwise each start without it; `java_options`: the JAVA_TOOL_OPTIONS they get. Whether one was written;
    any failure is no archive."""
    if class_archive.plan(java_options).writing is None:
        return False
    simulator = Simulator()
    try:
        simulator.load("boil", 0, "")
        simulator.reset()
        simulator.step("open door to kitchen")
    except SimulatorError:
        return False
    finally:
        simulator.close()
    return class_archive.archive_file().is_file()


def _java_process(env: Any) -> Any:
    """The JVM behind a ScienceWorldEnv (its py4j gateway's process, a private attribute), or None."""
    try:
        return env._gateway.java_process
    except AttributeError:  # none started yet, or a ScienceWorld that keeps it elsewhere
        return None
