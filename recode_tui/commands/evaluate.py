"""`recode-tui eval`: many episodes at once, a progress bar, a results table.

A thin layer over the Python API (`recode_tui.api`): the flags typed once
(`arguments.eval_options`), the API's `plan_evaluation` (`recode_tui.setup.eval_plan`
chooses the games, checks the settings and builds the LLMs) and `run_evaluation`
(`agent.eval.batch`, no UI); `eval_report` shows progress with rich and prints the
tables.

Exit codes: 0 the evaluation completed (whatever the success rate), 1 it was
aborted (the LLM went away), 2 bad usage, 130 interrupted (Ctrl-C). In every
case but bad usage the report holds every finished episode and
`--resume REPORT` carries on.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from agent.eval.report import REPORT_FILE, EvalReport
from agent.eval.executor import EpisodeExecutor, EvalAborted
from agent.runtime.safe_text import for_terminal
from recode_tui.api import PlannedEvaluation, local_executor, plan_evaluation, run_evaluation
from recode_tui.setup.eval_plan import llm_factory, new_report, resumed_report
from recode_tui.commands.eval_report import (Display, cache_lines, comparison_table,  # noqa: F401
                                             failure_lines, gold_lines, line_widths, repeat_lines, result_line,
                                             results_table, role_lines)
from recode_tui.commands.fit import print_layout
from recode_tui.setup.settings import EvalOptions

if TYPE_CHECKING:
    from recode_tui.setup.env_host import EnvHost


def _new_report(args: argparse.Namespace) -> tuple[EvalReport, Path]:
    """`new_report` from the parsed arguments (tests build a plan this way)."""
    from recode_tui.commands.arguments import eval_options

    return new_report(eval_options(args))


def _resumed_report(args: argparse.Namespace) -> tuple[EvalReport, Path]:
    """`resumed_report` from the parsed arguments (tests resume a plan this way)."""
    from recode_tui.commands.arguments import eval_options

    return resumed_report(eval_options(args), args.resume)


def run_eval(args: argparse.Namespace, early: EnvHost | None = None) -> int:
    """The `eval` command (synchronous: it owns the event loop so Ctrl-C can be reported).

    `early`: the environment worker the command line started first (`cli.eval_worker`); the pool takes
    it when it plays that environment, else it is closed.
    """
    try:
        return _run_eval(args, early)
    finally:
        if early is not None:
            early.close()  # nothing left to do when the pool took it (and closed it)


def _run_eval(args: argparse.Namespace, early: EnvHost | None) -> int:
    from recode_tui.commands.arguments import eval_options

    options = eval_options(args)  # the one place eval reads the namespace
    planned = plan_evaluation(options)
    ray_address = options.ray
    if ray_address is not None:
        from recode_tui.commands.ray_eval import start_cluster

        cpus = start_cluster(ray_address)
        if not options.concurrency:
            planned.report.plan.concurrency = cpus
    try:
        return _evaluate(options, planned, ray_address, early)
    finally:
        if ray_address is not None:
            from recode_tui.commands.ray_eval import stop_cluster

            stop_cluster()


def _evaluate(options: EvalOptions, planned: PlannedEvaluation, ray_address: str | None,
              early: EnvHost | None = None) -> int:
    """Run the plan through the API (here, or as Ray tasks), then print the table, the failures and where
    things are."""
    report, folder = planned.report, planned.folder
    earlier = list(report.concurrency_used)
    display = Display(report.total, report.episodes, live=not options.no_progress,
                      widths=line_widths(report.plan.games))
    executor: EpisodeExecutor
    if ray_address is not None:
        from recode_tui.commands.ray_eval import RayExecutor

        executor = RayExecutor(report, profiles=planned.profiles, llm_factory=llm_factory, sandbox=planned.sandbox,
                               cache_folder=planned.cache_folder)
    else:
        executor = local_executor(planned, on_event=display.on_event, early=early)
    out = display.console
    for line in gold_lines(report):
        out.print(for_terminal(line), markup=False, highlight=False, soft_wrap=True)
    remaining = len(report.pending)
    before = f" (earlier runs: {', '.join(map(str, earlier))} at a time)" if earlier else ""
    on_ray = f" as Ray tasks ({ray_address})" if ray_address is not None else ""
    episodes = len(report.plan.games) * len(report.plan.compared)
    unit = "episodes" if report.plan.repeat <= 1 else f"plays ({episodes} episodes x {report.plan.repeat})"
    out.print(for_terminal(  # a resumed report's agents and LLM are data
        f"evaluating {remaining} of {report.total} {unit}: {', '.join(report.plan.compared)} with {report.plan.run.model.llm}, "
        f"{max(1, min(report.plan.concurrency, max(remaining, 1)))} at a time{on_ray}{before}; "
        f"report: {folder / REPORT_FILE}"), markup=False, highlight=False, soft_wrap=True)

    async def go() -> None:
        with display:
            await run_evaluation(planned, executor, on_result=display.on_result)

    code = 0
    message = ""
    try:
        asyncio.run(go())
    except KeyboardInterrupt:
        code = 130
        message = "interrupted"
    except EvalAborted as exc:
        code = 1
        message = f"evaluation stopped: {exc}"
    if report.plan.multi and not out.is_terminal and not os.environ.get("COLUMNS"):  # room for the agent column too
        out.width = max(out.width, 170)
    print_layout(out, comparison_table(report) if report.plan.multi else results_table(report))
    for line in [*repeat_lines(report), *cache_lines(report), *role_lines(report)]:
        out.print(for_terminal(line), markup=False, highlight=False, soft_wrap=True)
    for line in failure_lines(report):
        out.print(for_terminal(line), markup=False, highlight=False, soft_wrap=True)
    if len(report.concurrency_used) > len(earlier):
        out.print(f"concurrency used: {report.concurrency_used[-1]} episodes at a time"
                  + (f" (earlier runs: {', '.join(map(str, earlier))})" if earlier else ""),
                  markup=False, highlight=False, soft_wrap=True)
    out.print(f"report: {folder / REPORT_FILE}", markup=False, highlight=False, soft_wrap=True)
    game_dir = "<agent>/<game>" if report.plan.multi else "<game>"
    out.print(f"journals: {folder / 'journals'}  (open one: recode-tui tui --resume {folder / 'journals' / game_dir})",
              markup=False, highlight=False, soft_wrap=True)
    if code:
        left = len(report.pending)
        unit = "episodes" if report.plan.repeat <= 1 else "plays"
        print(f"recode-tui: {message}; {len(report.episodes)} of {report.total} {unit} finished, "
              f"{left} left: continue with `recode-tui eval --resume {folder}`", file=sys.stderr)
    return code
