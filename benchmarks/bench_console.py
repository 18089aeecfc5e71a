"""How much the console costs per step, as the run grows; and time to first paint.

    .venv/bin/python benchmarks/bench_console.py            # all
    .venv/bin/python benchmarks/bench_console.py --quick    # 1k nodes only, fewer steps

Per-step numbers use an instant environment and an instant LLM, so what is
measured is the engine's own bookkeeping plus the console: a step is one `n`
key (one engine event) from the key press until the console has shown the
stop and is idle again (Pilot's wait-for-idle included, so an upper bound),
and separately the time spent in the console's handlers for that step.
The tree is real: the root expands into G placeholders, each expanded into
99 statements that run, so "10k nodes" means 10k nodes executed and shown;
then 100k lines are written to the environment log, and the steps measured
are the single actions of `run("look")` nodes that follow.

Targets (issue 3): a step costs the same at 10k nodes as at 1k (within 2x) and
under 50 ms; first paint under 0.6 s, with alfworld/openai imported after it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agent.debugger import Breakpoint, BreakpointKind  # noqa: E402
from agent.engine import Engine, Limits  # noqa: E402
from agent.thread_runner import ThreadRunner
from agent.llm import Completion, StubContext, Usage  # noqa: E402
from envs.base import Reset  # noqa: E402


class InstantEnv:
    """An environment that answers at once (the console's cost is what is measured)."""

    name = "alfworld"  # for the prompt set
    task_type = "put"

    def __init__(self, max_steps: int = 10_000) -> None:
        self.max_steps = max_steps
        self._steps = 0

    def reset(self) -> Reset:
        return Reset("put a vase in sidetable.", "You are in the middle of a room.", "")

    def step(self, action: str) -> str:
        self._steps += 1
        return f"You look around ({self._steps})."

    @property
    def done(self) -> bool:
        return self._steps >= self.max_steps

    @property
    def won(self) -> bool:
        return False

    @property
    def steps(self) -> int:
        return self._steps

    def close(self) -> None:
        pass


class TreeLLM:
    """solve -> G placeholders + many looks; each placeholder -> 99 statements."""

    name = "bench"

    def __init__(self, groups: int, looks: int = 400) -> None:
        self.groups, self.looks = groups, looks

    async def complete(self, prompt: str, context: StubContext | None = None) -> Completion:
        assert context is not None
        if context.name == "solve":
            lines = [f"group_{g}()" for g in range(self.groups)]
            lines += [f'obs = run("look {i}")' for i in range(self.looks)]
        else:
            lines = [f"x = {i}" for i in range(99)]
        return Completion("<think>bench</think><execute>\n" + "\n".join(lines) + "\n</execute>", Usage(10, 10), 0.0, "scripted")


async def bench_steps(nodes: int, log_lines: int, steps: int) -> dict[str, float]:
    from textual.widgets import Log

    from recode_tui.console.app import RecodeApp
    from recode_tui.console.debug_screen import DebugScreen

    groups = max(1, nodes // 100)
    engine = Engine(InstantEnv(), TreeLLM(groups), ThreadRunner(), limits=Limits())

    class TimedScreen(DebugScreen):
        def apply_events(self, events):
            t = time.perf_counter()
            super().apply_events(events)
            handler_time.append(time.perf_counter() - t)

        async def on_engine_driver_stopped(self, message):
            t = time.perf_counter()
            await super().on_engine_driver_stopped(message)
            handler_time.append(time.perf_counter() - t)
            shown_at.append(time.perf_counter())

        def action_step(self, mode: str) -> None:
            key_at.append(time.perf_counter())
            super().action_step(mode)

    class TimedApp(RecodeApp):
        run_screen_class = TimedScreen

    app = TimedApp(
        engine,
        episode="bench",
        breakpoints=[Breakpoint(BreakpointKind.ACTION_REGEX, "^look")],
        cursor_blink=False,
    )
    handler_time: list[float] = []
    key_at: list[float] = []
    shown_at: list[float] = []
    async with app.run_test(size=(160, 48)) as pilot:

        async def wait_stop(after: int, timeout: float = 600) -> None:
            deadline = time.monotonic() + timeout
            while not (app.stops > after and not app.driver.busy):
                if time.monotonic() > deadline:
                    raise RuntimeError("timed out")
                await pilot.pause(0.01)

        await wait_stop(0)
        t = time.perf_counter()
        before = app.stops
        await pilot.press("c")  # build the tree: run every group to the first look
        await wait_stop(before)
        build = time.perf_counter() - t
        assert len(engine.tree) >= nodes, len(engine.tree)
        app.debugger.breakpoints.clear()
        log = app.query_one(Log)
        filler = [f"{i:>6} > filler action {i}" for i in range(log_lines)]
        t = time.perf_counter()
        log.write_lines(filler)
        await pilot.pause()
        log_write = time.perf_counter() - t
        screen = app.screen
        paint_time: list[float] = []
        original_paint = screen._compositor_refresh

        def timed_paint() -> None:
            t = time.perf_counter()
            original_paint()
            paint_time.append(time.perf_counter() - t)

        screen._compositor_refresh = timed_paint  # type: ignore[method-assign]
        walls: list[float] = []
        handlers: list[float] = []
        latencies: list[float] = []
        paints: list[float] = []
        for _ in range(steps):
            handler_time.clear()
            paint_time.clear()
            key_at.clear()
            shown_at.clear()
            before = app.stops
            t = time.perf_counter()
            await pilot.press("n")
            await wait_stop(before)
            await pilot.pause()
            walls.append(time.perf_counter() - t)
            handlers.append(sum(handler_time))
            paints.append(sum(paint_time))
            latencies.append(shown_at[-1] - key_at[0] + (paint_time[-1] if paint_time else 0.0))
        result = {
            "nodes": len(engine.tree),
            "log_lines": log.line_count,
            "build_s": build,
            "log_write_s": log_write,
            "step_median_ms": statistics.median(walls) * 1000,
            "step_p90_ms": sorted(walls)[int(len(walls) * 0.9) - 1] * 1000,
            "handlers_median_ms": statistics.median(handlers) * 1000,
            "paint_median_ms": statistics.median(paints) * 1000,
            "latency_median_ms": statistics.median(latencies) * 1000,
            "latency_p90_ms": sorted(latencies)[int(len(latencies) * 0.9) - 1] * 1000,
        }
    await engine.close()
    return result


FIRST_PAINT_CHILD = r"""
import sys, time
t0 = time.perf_counter()
from recode_tui.console.app import RecodeApp, build_app
from recode_tui.console.debug_screen import DebugScreen

class ProbeScreen(DebugScreen):
    def start(self):
        painted = time.perf_counter() - t0
        heavy = sorted(m for m in ("textworld", "alfworld", "openai") if m in sys.modules)
        print(f"PAINT {painted:.4f} {','.join(heavy) or '-'}", flush=True)
        self.app.exit()

class Probe(RecodeApp):
    run_screen_class = ProbeScreen

app = build_app("put-01", "human", cursor_blink=False)
probe = Probe(app.engine, episode=app.episode, cursor_blink=False)
probe.run(headless=True, size=(160, 48))
"""


BASELINE_CHILD = r"""
import time
t0 = time.perf_counter()
from textual.app import App
from textual.widgets import Footer, Static

class Hello(App):
    def compose(self):
        yield Static("hello")
        yield Footer()

    def on_mount(self):
        self.call_after_refresh(self.done)

    def done(self):
        print(f"PAINT {time.perf_counter() - t0:.4f} -", flush=True)
        self.exit()

Hello().run(headless=True, size=(160, 48))
"""


def _paint_times(child: str, runs: int) -> tuple[list[float], str]:
    times, heavy = [], ""
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", child], cwd=ROOT, capture_output=True, text=True, timeout=60)
        line = next((ln for ln in out.stdout.splitlines() if ln.startswith("PAINT")), None)
        if line is None:
            raise RuntimeError(out.stderr[-2000:])
        _, seconds, heavy = line.split()
        times.append(float(seconds))
    return times, heavy


def bench_first_paint(runs: int = 5) -> dict[str, float | str]:
    """Process start to the first refresh after mount, in a fresh interpreter each time."""
    times, heavy = _paint_times(FIRST_PAINT_CHILD, runs)
    baseline, _ = _paint_times(BASELINE_CHILD, runs)
    # interpreter start-up is measured separately and added
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    python_start = time.perf_counter() - t
    return {
        "first_paint_after_imports_s": statistics.median(times),
        "python_startup_s": python_start,
        "first_paint_total_s": statistics.median(times) + python_start,
        "heavy_modules_loaded_at_paint": heavy,
        "hello_world_textual_app_s": statistics.median(baseline) + python_start,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--steps", type=int, default=40)
    args = parser.parse_args()
    paint = bench_first_paint(3 if args.quick else 5)
    print(
        f"first paint: {paint['first_paint_total_s']:.3f} s "
        f"(python start-up {paint['python_startup_s']:.3f} s + imports/build/mount/paint "
        f"{paint['first_paint_after_imports_s']:.3f} s); heavy modules at paint: {paint['heavy_modules_loaded_at_paint']}; "
        f"a hello-world Textual app on this machine now: {paint['hello_world_textual_app_s']:.3f} s; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    sizes = [(1_000, 100_000)] if args.quick else [(1_000, 100_000), (10_000, 100_000)]
    steps = 15 if args.quick else args.steps
    results = []
    for nodes, lines in sizes:
        r = asyncio.run(bench_steps(nodes, lines, steps))
        results.append(r)
        print(
            f"{r['nodes']:>6} nodes, {r['log_lines']:>6} log lines: key -> stop shown and painted: median "
            f"{r['latency_median_ms']:.1f} ms (p90 {r['latency_p90_ms']:.1f} ms); handlers {r['handlers_median_ms']:.2f} ms, "
            f"painting {r['paint_median_ms']:.1f} ms per step; with Pilot's idle waits {r['step_median_ms']:.1f} ms; "
            f"building the tree with `c` took {r['build_s']:.1f} s, writing {lines} log lines {r['log_write_s']:.2f} s"
        )
    if len(results) == 2:
        ratio = results[1]["latency_median_ms"] / results[0]["latency_median_ms"]
        print(f"10k/1k step cost ratio: {ratio:.2f}")


if __name__ == "__main__":
    main()
