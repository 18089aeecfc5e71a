"""The console's environment in a worker process started at the program's start.

On a terminal, `recode-tui` draws its first frame before it builds the run. What
remains before the run is ready to step is CPU-bound Python on one core: the console's widgets
and the environment's engine (ALFWorld's TextWorld import is about 0.3 s). A thread cannot
overlap them (the GIL); a process can. So the command line starts an `EnvHost` before it imports
Textual: its worker (`recode_tui.setup.env_workers`) imports the engine on the other core while the
console draws and mounts its screen, and the run's loader then opens the episode in it. The import runs in a
thread of lower priority (`warm_behind`): at normal priority it delayed the first frame by about
50 ms (1.55-1.61x a hello-world app against 1.35-1.39x), the ready time was the same (0.82-0.86 s). (Started behind the
first frame instead, it saved less than half as much: 1.08 s to ready against 0.92 s, before `prepare`.)

Every reply carries the episode's whole state (`envs.base.EnvState`: ALFWorld's admissible commands,
WebShop's page choices and reward, a score log) and translation is a call, so any environment could be
hosted; `HOSTED_ENVS` names the ones that gain from it. Any other episode gets an in-process
environment, and the worker is closed unused. ScienceWorld would gain nothing: its simulator is a JVM, a process
of its own already (hosted with its score log carried, `tui --env sciworld` was ready in 1.59-1.65 s
against 1.65-1.69 s in-process, and its first frame came later). `RECODE_CONSOLE_ENV_WORKER=0` keeps every environment in-process.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from envs.registry import EpisodeRef
    from envs.base import Env
    from recode_tui.setup.env_workers import EnvWorker

# environments whose engine's import the worker overlaps (each starts no process of its own: an unused worker is
# ended at once, `EnvWorker.discard`)
HOSTED_ENVS = frozenset({"alfworld", "webshop"})


class EnvHost:
    """One environment worker, started now, used by the first episode of its environment (then owned by it)."""

    def __init__(self, env_name: str = "alfworld") -> None:
        self.env_name = env_name
        self._worker: EnvWorker | None = None
        self._given: EnvWorker | None = None  # the worker an episode took, ended by `close` at the latest

    def start(self) -> None:
        """Start the worker (it imports the engine at once, in a thread that yields the CPU to this
        process's); a second call does nothing."""
        from recode_tui.setup.env_workers import EnvWorker

        if self._worker is None and self._given is None and self.env_name in HOSTED_ENVS:
            self._worker = EnvWorker(warm=self.env_name, warm_behind=True)

    @classmethod
    def for_arguments(cls, env: str | None, episode_ref: str | None) -> "EnvHost | None":
        """A host for what `--env`/`--game` name, when it is a hosted environment; judged from the text alone
        (importing the registry here would slow the first frame); a wrong guess costs only the worker's start."""
        named = env or (episode_ref.split(":", 1)[0] if episode_ref and ":" in episode_ref else "alfworld")
        return cls(named) if named in HOSTED_ENVS else None

    @property
    def worker(self) -> "EnvWorker | None":
        """The started worker no episode has taken yet."""
        return self._worker

    @property
    def waiting(self) -> bool:
        """A worker is started and no episode has taken it yet."""
        return self._worker is not None

    def make_env(self, episode: EpisodeRef, max_steps: int | None = None) -> "Env":
        """The episode's environment: in the host's worker when it plays the host's environment, else in-process."""
        from envs.base import EnvError
        from recode_tui.setup.env_workers import RemoteEnv, WorkerDied
        from recode_tui.setup.build import make_env
        from recode_tui.setup.usage import UsageError

        worker, self._worker = self._worker, None
        if worker is None or episode.env != self.env_name:
            if worker is not None:
                worker.discard()
            return make_env(episode, max_steps)
        try:
            env = RemoteEnv.open(worker, episode.ref, max_steps)
        except WorkerDied:  # the engine would not start there: in-process, where its error is reported as always
            worker.close(timeout=1)
            return make_env(episode, max_steps)
        except EnvError as exc:
            worker.close(timeout=1)
            raise UsageError(str(exc)) from None
        env.owns_worker = True  # closing the episode's environment ends the worker
        self._given = worker
        return env

    def take_worker(self, env_name: str | None) -> list[EnvWorker]:
        """The started worker for a pool of `env_name` (None: the default environment), as the pool's first;
        none, and the worker closed, when the pool plays another environment (`eval` hands it over so)."""
        from envs import registry

        worker, self._worker = self._worker, None
        if worker is None:
            return []
        if self.env_name == (env_name or registry.default_env()):
            self._given = worker
            return [worker]
        worker.discard()
        return []

    def close(self) -> None:
        """End the worker, whether an episode took it or not (the console has quit, the command is done). One no
        episode took is ended at once, its engine's import perhaps still running (a refused `eval`, a console
        quit before its episode opened, exit without waiting for it)."""
        if self._worker is not None:
            self._worker.discard()
        if self._given is not None:
            self._given.close(timeout=1)
        self._worker = self._given = None
