"""Batch evaluation: many episodes, C at a time, one journal each, one report.

UI-free: the command line (`recode_tui.commands.evaluate`) shows progress through the
`on_result` callback and the executor's `on_start` / `on_event`. Each episode is played by an
`EpisodeExecutor` (`agent.eval.executor`): `LocalExecutor` here, with environments from a source the
caller provides (the command line's `recode_tui.setup.env_workers.EnvPool`: worker processes, so C
episodes use C processes for ALFWorld's CPU work while the LLM calls overlap on the event loop), or
the command line's `RayExecutor` on a Ray cluster. This module schedules the episodes, names their
journals and keeps the report.

The plan and result types are in
`agent.eval.results`, the numbers in `agent.eval.summary` and the report file
in `agent.eval.report`.

The report (`report.json`, `recode.eval.v1`) is rewritten atomically after
every finished episode, so an interrupted or aborted evaluation keeps every
finished episode; `Evaluation.resume(report)` runs the ones still missing.

A comparison (`plan.agents`, several agents) plays every game with each agent,
journals under `journals/<agent>/<game>`, and adds `by_agent` to the report:
each agent's summary (overall, per task type, per LLM role), as the paper's
table compares ReCode with its baselines.

Failure policy: see `agent.eval.executor` (a crashed or over-time episode is a failed result; a
remote model's outage raises `EvalAborted`, which marks the report `aborted`).
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Callable

from agent.eval.executor import EpisodeExecutor, EpisodeJob, EvalAborted
from agent.eval.report import REPORT_FILE, EvalReport
from agent.eval.results import EpisodeResult, EpisodeSpec

JOURNALS_DIR = "journals"
REPORT_EVERY = 1.0  # seconds between report.json rewrites while episodes end (a killed run replays at most these)

__all__ = ["JOURNALS_DIR", "Evaluation", "ResultHook"]

ResultHook = Callable[[EpisodeResult], None]


class Evaluation:
    """Run the remaining episodes of a report, `plan.concurrency` at a time, each played by `executor`."""

    def __init__(self, report: EvalReport, folder: Path, executor: EpisodeExecutor, *,
                 on_result: ResultHook | None = None) -> None:
        self.report = report
        self.folder = Path(folder)
        self.report_path = self.folder / REPORT_FILE
        self.journals = self.folder / JOURNALS_DIR
        self.executor = executor
        self.on_result = on_result
        self._taken: set[Path] = set()

    async def run(self) -> EvalReport:
        """Play every remaining game; the report is written after each episode and at the end.

        Cancelling (Ctrl-C) marks the report `interrupted`; an LLM that went
        away marks it `aborted` and raises EvalAborted. Either way the
        finished episodes are in the report.
        """
        plan = self.report.plan
        queue = list(self.report.pending)
        queue.reverse()  # pop() from the end keeps the plan's order
        self.report.status = "running"
        self.report.write(self.report_path)
        if not queue:
            self.report.status = "complete"
            self.report.write(self.report_path)
            return self.report
        size = max(1, min(plan.concurrency, len(queue)))
        self.report.concurrency_used.append(size)
        await self.executor.open(size)
        began = time.monotonic()
        elapsed_before = self.report.elapsed

        written = time.monotonic()

        async def lane() -> None:
            nonlocal written
            while queue:
                agent_name, episode_spec, repeat = queue.pop()
                folder = self.journal_folder(episode_spec, agent_name, repeat)
                result = await self.executor.play(EpisodeJob(episode_spec, agent_name, repeat, folder))
                self.report.episodes.append(result)
                self.report.elapsed = elapsed_before + time.monotonic() - began
                # The report is rewritten whole, so once per episode grew with the square of the episodes
                # (1,819 ScienceWorld episodes); at most once a REPORT_EVERY seconds, and always at the end.
                if time.monotonic() - written >= REPORT_EVERY or not queue:
                    self.report.write(self.report_path)
                    written = time.monotonic()
                if self.on_result is not None:
                    self.on_result(result)

        lanes = [asyncio.ensure_future(lane()) for _ in range(size)]
        try:
            done, pending = await asyncio.wait(lanes, return_when=asyncio.FIRST_EXCEPTION)
            # every finished lane's error is read here: two lanes that lost the model in the same turn of the
            # loop both failed, and an error nobody reads is printed by asyncio as a traceback at exit
            errors = [t for t in lanes if t in done and not t.cancelled() and t.exception() is not None]
            failed = errors[0] if errors else None
            if failed is not None:
                for task in pending:
                    task.cancel()
                await asyncio.gather(*pending, return_exceptions=True)
                exc = failed.exception()
                assert exc is not None  # `failed` was picked for having one
                if isinstance(exc, EvalAborted):
                    self.report.status, self.report.note = "aborted", str(exc)
                else:
                    self.report.status, self.report.note = "aborted", f"{type(exc).__name__}: {exc}"
                raise exc
            self.report.status = "complete"
        except asyncio.CancelledError:
            for task in lanes:
                task.cancel()
            await asyncio.gather(*lanes, return_exceptions=True)
            self.report.status = "interrupted"
            raise
        finally:
            self.report.elapsed = elapsed_before + time.monotonic() - began
            self.report.write(self.report_path)
            await asyncio.shield(self.executor.close())
        return self.report

    def journal_folder(self, episode_spec: EpisodeSpec, agent_name: str, repeat: int = 1) -> Path:
        base = episode_spec.id.replace("/", "_").replace(os.sep, "_")
        if self.report.plan.repeat > 1:  # each play its own journal: journals/<game>@r2
            base = f"{base}@r{repeat}"
        # a comparison keeps each agent's journals apart: journals/<agent>/<game>
        folder = (self.journals / agent_name if self.report.plan.multi else self.journals) / base
        attempt = 1
        while folder.exists() or folder in self._taken:  # an episode cut by an interruption keeps its journal
            attempt += 1
            folder = folder.with_name(f"{base}~{attempt}")
        self._taken.add(folder)  # a lane whose executor writes the journal later (a Ray task) keeps the name
        return folder
