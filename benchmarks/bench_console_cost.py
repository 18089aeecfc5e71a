"""What the console itself costs in CPU: a boot to its first stop, a step, an answer submitted.

    .venv/bin/python benchmarks/bench_console_cost.py            # 3 rounds, the median of each figure
    .venv/bin/python benchmarks/bench_console_cost.py --rounds 1

User path: `recode-tui tui` on a small game, a person pressing `n` and typing an
expansion. Measured on the toy world (tests/toyenv) with node code run in-process
(tests/console/page.py `toy_app`), so what is left is the console: Textual's
styling, layout and frames for the panes, and the console's own handlers. That
is also most of what a console test costs (tests/console boot it hundreds of
times), which is why it is measured in CPU (`time.process_time`, every thread of
this process) and not in wall time: on a machine shared with other work the
wall time is mostly waiting.

One round: the console booted under Pilot (160x48) to its first stop shown;
`c` to the root's expansion (the editor opens); a plan of twelve actions typed
and submitted with ctrl+s (the answer); then ten `n` steps, each awaited until
its stop is shown in every pane (the screen's `stop_shown` signal, as the tests'
page object awaits it) and checked on the status line; then the console left idle
for a second (a person reading), its CPU per wall second.

Targets: measured here (2 cores shared with other work, load ~6, median of 3 rounds, three
runs alternating with main's code): main before the console-speed work: boot 0.31-0.37 s, a step
46-48 ms, an answer 0.15-0.25 s; after it: boot 0.21-0.24 s, a step 33-37 ms, an answer ~0.17 s
(the footer as one widget, CSS parsed once a process, no restyle at the first show, no scrollbar
redraw at a layout that leaves the pane's sizes alone). Then (load ~8, two runs alternating with
the code before): Python's highlight query compiled once a process, not at each editor's first
open: boot 0.20-0.21 s (0.215-0.235 s before); the driver's flush timed only while events wait,
not every 50 ms: idle 1.0-1.1 ms per wall second (5.6-5.9 ms before); a step and an answer
unchanged (34-36 ms, 0.17-0.18 s). The boot, step and idle limits sit between the before and after
figures or just above the after ones, so losing one of those cuts misses; the answer's is a guard.
Then (load ~5, two runs alternating with the code before): the node pane draws its own lines, the
tree's cursor moves at the stop, the status line says `running` only after 0.1 s, the screen is laid
out at a Resize only for a new size: a step 28.2-28.3 ms (31.8-32.1 before), a boot 0.154-0.159 s
(0.159-0.173 s), an answer 0.07-0.14 s (0.13-0.17 s), and the screen's full layouts per step 1 (2
before: a node with more or fewer lines resized the pane's body, which asked for a second layout). The
layouts' limit, 1, is the after figure: a count, not a time, so it holds on a loaded machine.
Then: the node pane's scrollable height is at least its own, so a node whose lines fit shown after
another that fit lays nothing out: the screen's full layouts over the ten steps 6 (10 before: one a
step), the steps without one ~2.5 ms cheaper (17.6-18.4 ms against 20.0-21.1 ms, median of 48, two
runs alternating); the layouts' figure is now the ten steps' total, its limit the after figure. Then
(load ~4, two runs alternating with s7-idle's code, 5 rounds): the environment log's scrollable height
is at least its own too, so a line written while the log fits lays nothing out: 3 full layouts over the
ten steps, a step 15.3-16.9 ms (22.8-23.2 before either of the two), an answer 0.061-0.062 s (0.071 s).
Then: an observation that takes as many lines as the last lays nothing out while its tab is on show
(here the editor's tab is, so these figures stay; with the Observation tab on show, 2 full layouts over
the ten steps, 3 before, 10 at s7-idle: a step 16.0-16.5 ms against 24.2 ms there).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.targets import Target, Verdicts  # noqa: E402

BOOT = Target("boot to the first stop shown (CPU)", 0.25, "s",
              "measured 0.20-0.21 s here, 0.215-0.235 s with a highlight query per editor (see the docstring)")
STEP = Target("`n` to its stop shown (CPU, median of 10)", 42, "ms",
              "measured 33-37 ms here, 46-48 ms before the console-speed work (see the docstring)")
ANSWER = Target("answer submitted to its stop shown (CPU)", 0.25, "s",
                "measured 0.17-0.18 s here, 0.15-0.25 s before: a guard")

LAYOUTS = Target("full layouts of the screen over the 10 `n`", 3, "",
                 "measured 3 here, 10 when every node shown and every log line laid the screen out (see the docstring)")

IDLE = Target("an idle console, CPU per wall second", 3, "ms",
              "measured 1.0-1.1 ms here, 5.6-5.9 ms with the driver's flush every 50 ms (see the docstring)")

PLAN = "\n".join(f'run("go to {place}")' for place in ("coffeetable 1", "diningtable 1", "sidetable 1") * 4)
STEPS = 10
IDLE_SECONDS = 1.0


async def one_round() -> dict[str, float]:
    """CPU seconds of each phase of one console session (see the module docstring)."""
    from tests.console.helpers import drawn, type_text
    from tests.console.page import ConsolePage, toy_app

    cpu = time.process_time
    gc.collect()  # the previous round's garbage is not this round's cost
    t = cpu()
    app = toy_app(breakpoints=[])
    async with app.run_test(size=(160, 48)) as pilot:
        page = ConsolePage(pilot)
        await page.started()
        boot = cpu() - t
        await page.step("continue")  # to the root's expansion: the editor opens
        assert page.screen.debugger.awaiting_human, page.reason
        await type_text(pilot, PLAN)  # typing is the person's; the submit and its stop are the console's
        t = cpu()
        await page.command("ctrl+s")
        answer = cpu() - t
        steps, layouts, laid_out = [], [], [0]
        screen = page.screen  # the screen says when it has laid itself out (Textual's public signal)
        screen.screen_layout_refresh_signal.subscribe(screen, lambda _: laid_out.append(1), immediate=True)
        for _ in range(STEPS):
            t, before = cpu(), len(laid_out)
            await page.step("next")
            steps.append(cpu() - t)
            layouts.append(len(laid_out) - before)
            assert f"steps {page.agent.env.steps}/" in page.status(), page.status()  # what the person sees
        assert page.agent.env.steps >= 2, page.agent.env.steps  # the steps ran the plan's actions
        # A stop that switched tabs slides the tab's underline for 0.3 s: part of showing it, not idle (with
        # frames cheaper since 2026-12-07, its tail reached into the idle second in about half the rounds).
        await app.animator.wait_until_complete()
        await drawn(app)
        t, wall = cpu(), time.monotonic()
        await asyncio.sleep(IDLE_SECONDS)  # a person reading the stop: nothing should run
        idle = (cpu() - t) / (time.monotonic() - wall)
    return {"boot_s": boot, "answer_s": answer, "step_ms": statistics.median(steps) * 1000, "idle_ms": idle * 1000,
            "layouts": sum(layouts)}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    from tests import toyenv

    toyenv.register()
    asyncio.run(one_round())  # not counted: imports, CSS caches, compiled modules
    rounds = [asyncio.run(one_round()) for _ in range(args.rounds)]
    toyenv.unregister()
    figure = {key: statistics.median(r[key] for r in rounds) for key in rounds[0]}
    verdicts = Verdicts("bench_console_cost")
    print(f"| phase (CPU, median of {args.rounds} rounds) | measured | verdict |\n|---|---|---|")
    print(f"| boot to the first stop | {figure['boot_s']:.3f} s | {verdicts.check(BOOT, figure['boot_s'])} |")
    print(f"| `n` to its stop (median of {STEPS}) | {figure['step_ms']:.1f} ms | "
          f"{verdicts.check(STEP, figure['step_ms'])} |")
    print(f"| answer submitted to its stop | {figure['answer_s']:.3f} s | "
          f"{verdicts.check(ANSWER, figure['answer_s'])} |")
    print(f"| full layouts over the {STEPS} `n` | {figure['layouts']:g} | "
          f"{verdicts.check(LAYOUTS, figure['layouts'])} |")
    print(f"| idle, per wall second | {figure['idle_ms']:.1f} ms | {verdicts.check(IDLE, figure['idle_ms'])} |")
    return verdicts.finish()


if __name__ == "__main__":
    raise SystemExit(main())
