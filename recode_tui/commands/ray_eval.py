"""`recode-tui eval --ray [ADDRESS]`: each episode a Ray task (the optional `[ray]` extra).

The driver keeps everything `eval` has: the same `Evaluation` (its lanes are the tasks in flight),
so the progress bar, the table, `report.json`, Ctrl-C and `--resume` behave as without Ray. A task
plays one episode on a Ray worker with a journal in the worker's temp folder and returns the result
with the journal's files; the driver writes them under its own `journals/`, so a cluster without a
shared filesystem still leaves every journal openable with `tui --resume`. Each worker process
keeps its event loop and environment pool between tasks (the agent, ScienceWorld's JVM, is
started once per worker). A worker killed mid-episode is retried once by Ray; a second death is
recorded as that episode's failure with the reason. A profile's `max_concurrency` is counted by
one Ray actor per capped profile, started by the driver, so the cap holds over every worker.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import logging
import shutil
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable

from agent.eval.executor import EpisodeJob, EvalAborted, LocalExecutor
from agent.eval.report import EvalReport
from agent.eval.results import EpisodeResult, EpisodeSpec, EvalPlan
from agent.sandbox.walls import SandboxPolicy
from recode_tui.setup.usage import UsageError

TRIES = 2  # a task whose worker dies runs once more, then its episode is recorded as failed
_WORKER: dict[Any, Any] = {}  # in a Ray worker process: its event loop and environment pools, kept between tasks


def ray_module() -> Any:
    try:
        import ray
    except ImportError:
        raise UsageError("--ray needs the ray extra: pip install 'recode-tui[ray]'") from None
    return ray


def start_cluster(address: str) -> int:
    """Join the cluster at ADDRESS (`local`: start one with this machine's CPUs); its CPU count."""
    ray = ray_module()
    _check_reachable(address)
    quiet_ray_notices()
    runtime_env = None if address == "local" else job_code()
    try:
        ray.init(address=address, include_dashboard=False, log_to_driver=False, configure_logging=False,
                 runtime_env=runtime_env)
    except (ConnectionError, ValueError, RuntimeError) as exc:
        raise UsageError(f"--ray {address}: cannot join the Ray cluster ({str(exc).splitlines()[0]}); give a "
                         "running cluster's address (ray start --head prints it) or no address for a local one")
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def job_code() -> dict[str, Any]:
    """What travels with the job to a running cluster (Ray's `runtime_env`): this project's packages, the
    packages of the plug-ins `RECODE_TUI_PLUGINS` names, and that variable. A node needs the dependencies
    (`pip install 'recode-tui[ray]'`'s), not the project: its workers import the copies Ray unpacks."""
    import agent
    import envs
    import mockllm
    import recode_tui
    from envs.registry import PLUGINS_VAR, plugins as named_plugins

    folders = [Path(package.__file__).parent for package in (agent, envs, mockllm, recode_tui)
               if package.__file__ is not None]
    plugins = named_plugins()
    for module in plugins:
        top = importlib.util.find_spec(module.split(".")[0])
        where = list(top.submodule_search_locations or []) if top is not None else []  # [] : not a package
        if where and Path(where[0]) not in folders:
            folders.append(Path(where[0]))  # a single-file plug-in module must be installed on the nodes
    code: dict[str, Any] = {"py_modules": [str(f) for f in folders], "excludes": ["__pycache__", "*.pyc"]}
    if plugins:
        code["env_vars"] = {PLUGINS_VAR: ",".join(plugins)}
    return code


# Ray's notices that are no action for an eval: a local cluster starts with token authentication on and
# says how to opt out; printed between eval's own lines, it reads as something the researcher must do.
RAY_NOTICE_LOGGERS = ("ray._private.authentication.authentication_token_setup",)


def quiet_ray_notices() -> None:
    """Keep Ray's authentication notices out of eval's output (its errors still show)."""
    for name in RAY_NOTICE_LOGGERS:
        logging.getLogger(name).setLevel(logging.ERROR)


def _check_reachable(address: str) -> None:
    """A HOST:PORT nobody answers at is refused at once (Ray itself keeps retrying for minutes)."""
    import socket

    host, sep, port = address.rpartition(":")
    if address in ("local", "auto") or "://" in address or not sep or not port.isdigit():
        return
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except OSError as exc:
        raise UsageError(f"--ray {address}: nothing answers there ({exc.strerror or exc}); start the cluster with "
                         "`ray start --head` and give the address it prints, or no address for a local one") from None


def stop_cluster() -> None:
    ray = ray_module()
    if ray.is_initialized():
        ray.shutdown()


GATE_PREFIX = "recode-tui-calls:"  # + profile name: the named actor counting that profile's calls in flight


class CallCounter:
    """A Ray actor: the cluster-wide semaphore of one profile's `max_concurrency`."""

    def __init__(self, limit: int) -> None:
        self._semaphore = asyncio.Semaphore(limit)

    async def acquire(self) -> None:
        await self._semaphore.acquire()

    async def release(self) -> None:
        self._semaphore.release()


def start_call_counters(profiles: str | None) -> list[Any]:
    """On the driver: one counter per profile with a `max_concurrency` (they live as long as the driver)."""
    from agent.llm.profiles import ProfileError, find_profiles_file, load_profiles

    ray = ray_module()
    try:
        book = load_profiles(find_profiles_file(profiles))
    except ProfileError:
        return []  # the LLM factory has said what is wrong, or the spec is not a profile
    actor = ray.remote(CallCounter)
    return [actor.options(name=GATE_PREFIX + name, max_concurrency=10_000).remote(profile.max_concurrency)
            for name, profile in book.profiles.items() if profile.max_concurrency]


class _ClusterGate:
    """`max_concurrency` counted by the driver's actor: the cap holds over every worker."""

    def __init__(self, name: str) -> None:
        self._counter = ray_module().get_actor(GATE_PREFIX + name)

    async def __aenter__(self) -> None:
        await self._counter.acquire.remote()

    async def __aexit__(self, *exc: object) -> None:
        await self._counter.release.remote()


def play_on_worker(plan: dict[str, Any], job: dict[str, Any], profiles: str | None,
                   llm_factory: Callable[..., Any], sandbox: SandboxPolicy,
                   cache_folder: Path | None) -> tuple[dict[str, Any], dict[str, bytes]]:
    """One episode in this Ray worker: its result, and its journal's files (relative path -> bytes).

    `llm_factory` is `eval`'s (passed by reference): the episode's LLM is built here. `sandbox`: the
    driver's policy, and `cache_folder` its response cache's folder, given with the task (a worker on
    another machine inherits no environment from it). The worker keeps
    its event loop and one `LocalExecutor` per plan (its environment pool, a spare code runner) between tasks.
    """
    from agent.llm.openai_client import set_call_gate
    from agent.runtime.tempdirs import owned_tempdir

    set_call_gate(lambda profile: _ClusterGate(profile.name))
    loop = _WORKER.setdefault("loop", asyncio.new_event_loop())
    executor = _worker_executor(plan, profiles, llm_factory, loop, sandbox, cache_folder)
    spec = EpisodeSpec(**job["spec"])
    scratch = Path(owned_tempdir("recode-tui-ray-"))  # a worker killed mid-episode: the next task removes it
    try:
        folder = scratch / "journal"
        result = loop.run_until_complete(executor.play(EpisodeJob(spec, job["agent"], job["repeat"], folder)))
        files = {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
        return asdict(result), files
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _worker_executor(plan: dict[str, Any], profiles: str | None, llm_factory: Callable[..., Any],
                     loop: asyncio.AbstractEventLoop, sandbox: SandboxPolicy, cache_folder: Path | None) -> LocalExecutor:
    """This worker's executor for the plan and sandbox, made and opened on its first task."""
    from recode_tui.setup.env_workers import EnvPool

    key = json.dumps(plan, sort_keys=True) + repr((sandbox, cache_folder))
    executor = _WORKER.get(key)
    if executor is None:
        report = EvalReport(EvalPlan.from_dict(plan))
        llm_for, abort = llm_factory(report.plan.run.model.llm, profiles, report.plan.games, report.plan.run.env.name,
                                     report.plan.compared)
        executor = LocalExecutor(report, llm_for, lambda lanes: EnvPool(lanes, warm_env=report.plan.run.env.name),
                                 abort_on_llm_error=abort, sandbox=sandbox, cache_folder=cache_folder)
        loop.run_until_complete(executor.open(1))
        _WORKER[key] = executor
    return executor


class RayExecutor:
    """Plays each episode as a Ray task (a `LocalExecutor` on some worker); the journals come back to the driver."""

    def __init__(self, report: EvalReport, *, profiles: str | None, llm_factory: Callable[..., Any],
                 on_start: Callable[[EpisodeSpec], None] | None = None, sandbox: SandboxPolicy = SandboxPolicy(),
                 cache_folder: Path | None = None) -> None:
        ray = ray_module()
        self._ray = ray
        self.plan = report.plan
        self._plan = report.plan.to_dict()
        self._profiles = profiles
        self._llm_factory = llm_factory
        self._sandbox = sandbox  # handed to every task: the workers never read the driver's environment
        self._cache_folder = cache_folder
        self.on_start = on_start
        self._counters = start_call_counters(profiles)  # kept referenced: the actors live while this does
        self._task = ray.remote(num_cpus=1, max_retries=TRIES - 1)(play_on_worker)

    async def open(self, lanes: int) -> None:
        """Nothing to start: the cluster's workers hold the environments."""

    async def close(self) -> None:
        """Nothing to stop: the workers end with the cluster (`stop_cluster`)."""

    async def play(self, job: EpisodeJob) -> EpisodeResult:
        ray = self._ray
        job.journal.mkdir(parents=True)  # the name is this episode's, whatever the other lanes pick
        if self.on_start is not None:
            self.on_start(job.spec)
        ref = self._task.remote(self._plan, {"spec": asdict(job.spec), "agent": job.agent, "repeat": job.repeat},
                                self._profiles, self._llm_factory, self._sandbox, self._cache_folder)
        try:
            data, files = await ref
        except asyncio.CancelledError:
            ray.cancel(ref, force=True)
            raise
        except ray.exceptions.RayTaskError as exc:
            cause = getattr(exc, "cause", None)  # dynamic: the optional extra's error has `cause` only in some Ray versions
            if isinstance(cause, EvalAborted):
                raise EvalAborted(str(cause)) from None
            return self._failed(job, f"{type(cause or exc).__name__}: {cause or exc}".splitlines()[0])
        except ray.exceptions.RayError as exc:  # the worker died on every try (killed, out of memory, node lost)
            return self._failed(job, (f"its Ray worker died on each of {TRIES} tries: {type(exc).__name__}: "
                                      f"{str(exc).splitlines()[0] if str(exc) else ''}").rstrip(": "))
        for name, content in files.items():
            target = job.journal / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
        known = set(EpisodeResult.__dataclass_fields__)
        result = EpisodeResult(**{k: v for k, v in data.items() if k in known})
        result.journal = str(job.journal)
        return result

    def _failed(self, job: EpisodeJob, error: str) -> EpisodeResult:
        return EpisodeResult(job.spec.id, job.spec.task_type, False, error, journal=str(job.journal), error=error,
                             agent=job.agent if self.plan.multi else "", repeat=job.repeat)
