"""How much the console costs per step, as the run grows; and time to first paint.

    .venv/bin/python benchmarks/bench_console.py            # all
    .venv/bin/python benchmarks/bench_console.py --quick    # 1k nodes only, fewer steps

User path: `recode-tui tui`, pressing `n` (next) on a long run: the console with
the sandboxed runner `tui` builds (agent.sandbox.settings; its worker started before the
first key, as a user's is) and the journal every `tui` run writes.

Per-step numbers use an instant environment and an instant LLM, so what is
measured is the agent's own bookkeeping, the sandbox round trips, the journal
and the console. The figure is key -> painted stop: from `pilot.press("n")` to
the moment the frame showing the stop has been painted (a `call_after_refresh`
callback scheduled when the stop is shown: Textual runs it once the screen has
repainted). Waiting uses an event, not `pilot.pause()` (which forces a repaint
itself); after each step the status line must show the new step count (the check
on the rendered output). The console's own handlers are timed apart.
The tree is real: the root expands into G placeholders, each expanded into
99 statements that run, so "10k nodes" means 10k nodes executed and shown;
then 100k lines are written to the environment log, and the steps measured
are the single actions of `run("look")` nodes that follow.

First paint and ready are measured as a user sees them: `recode-tui` started in
a pseudo-terminal, the time until its first frame (the status line's "loading")
and until the run is ready to step (the status line's "paused"), beside a
hello-world Textual app started the same way.

Targets: key -> painted stop under 50 ms, and the same at 10k nodes as at 1k
(within 2x) (issue 3; the README promises no figure); alfworld/openai imported
after the first paint (issue 3); first paint at most 1.5x the hello-world app's
and ready within 1.0 s of the process start (issue 24).
"""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import os
import pty
import re
import select
import signal
import struct
import statistics
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agent.agents.recode.engine import Engine  # noqa: E402
from agent.runtime.limits import Limits  # noqa: E402
from agent.llm import CallContext, Completion, Usage  # noqa: E402
from agent.runtime.breakpoints import Breakpoint, BreakpointKind  # noqa: E402
from agent.sandbox.settings import RunnerSettings  # noqa: E402
from benchmarks.targets import Target, Verdicts  # noqa: E402
from envs.base import Env, Reset  # noqa: E402
from envs.registry import EpisodeRef  # noqa: E402


KEY = Target("key -> painted stop (median)", 50, "ms", "issue 3")
FLAT = Target("key -> painted stop, 10k nodes / 1k nodes", 2.0, "x", "issue 3")
FIRST_PAINT = Target("first paint / hello-world Textual app's, process start to frame", 1.5, "x", "issue 24")
READY = Target("ready to step, process start to status \"paused\"", 1.0, "s", "issue 24")
HEAVY = Target("heavy modules (alfworld, textworld, openai) loaded at first paint", 0, "", "issue 3")


class InstantEnv(Env):
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

    async def complete(self, prompt: str, context: CallContext | None = None) -> Completion:
        assert context is not None
        if context.label.startswith("solve("):
            lines = [f"group_{g}()" for g in range(self.groups)]
            lines += [f'obs = run("look {i}")' for i in range(self.looks)]
        else:
            lines = [f"x = {i}" for i in range(99)]
        return Completion("<think>bench</think><execute>\n" + "\n".join(lines) + "\n</execute>", Usage(10, 10), 0.0, "scripted")


async def bench_steps(nodes: int, log_lines: int, steps: int) -> dict[str, float]:
    from textual.widgets import Log

    from agent.sessions.session import start_session
    from recode_tui.console.app import RecodeApp
    from recode_tui.console.screens.debug_screen import DebugScreen
    from recode_tui.console.widgets.status_bar import StatusBar

    groups = max(1, nodes // 100)
    runner = RunnerSettings().make_runner()  # the console's runner: the sandbox worker (agent.sandbox.settings)
    await runner.ensure_started()  # a user pays its start once, before the first key
    env = InstantEnv()
    agent = Engine(env, TreeLLM(groups), runner, limits=Limits())
    sessions = tempfile.TemporaryDirectory()
    session = start_session(agent, Path(sessions.name), EpisodeRef.parse("put-01"), "bench")  # `tui` journals every run
    painted = asyncio.Event()
    painted_at: list[float] = []
    stop_reason: list[str] = []

    class TimedScreen(DebugScreen):
        def apply_events(self, events):
            t = time.perf_counter()
            super().apply_events(events)
            handler_time.append(time.perf_counter() - t)

        async def on_agent_driver_stopped(self, message):
            t = time.perf_counter()
            await super().on_agent_driver_stopped(message)
            handler_time.append(time.perf_counter() - t)

        def on_stop_shown(self, message):  # every pane has been handed the stop
            super().on_stop_shown(message)
            stop_reason[:] = [self.reason]
            self.call_after_refresh(frame_painted)  # public API: runs once the screen has been repainted

    def frame_painted() -> None:
        painted_at.append(time.perf_counter())
        painted.set()

    class TimedApp(RecodeApp):
        run_screen_class = TimedScreen

    app = TimedApp(
        agent,
        episode="bench",
        breakpoints=[Breakpoint(BreakpointKind.ACTION_REGEX, "^look")],
        cursor_blink=False,
    )
    handler_time: list[float] = []

    async def key_to_painted_stop(pilot, key: str, timeout: float = 1200) -> float:
        """Seconds from pressing `key` to the frame that shows the stop it caused having been painted."""
        painted.clear()
        painted_at.clear()
        t = time.perf_counter()
        await pilot.press(key)
        try:
            await asyncio.wait_for(painted.wait(), timeout)  # not pilot.pause(): that forces a repaint itself
        except TimeoutError:
            raise RuntimeError(f"no painted stop {timeout} s after {key!r} (stops {app.debug_screen.stops}, "
                               f"busy {app.debug_screen.driver.busy}, events {len(agent.tree)} nodes)") from None
        latency = painted_at[0] - t
        await pilot.wait_for_scheduled_animations()  # settle before the next key (outside the figure)
        while app.debug_screen.driver.busy:  # the driver finishes its stop after showing it; a key before that is ignored
            await asyncio.sleep(0.005)
        return latency

    async with app.run_test(size=(160, 48)) as pilot:
        status = app.query_one(StatusBar)
        while app.debug_screen.stops < 1:  # the first stop (before the root runs)
            await asyncio.sleep(0.01)
        build = await key_to_painted_stop(pilot, "c")  # build the tree: run every group to the first look
        assert len(agent.tree) >= nodes, len(agent.tree)
        app.debug_screen.debugger.breakpoints.clear()
        log = app.query_one(Log)
        filler = [f"{i:>6} > filler action {i}" for i in range(log_lines)]
        t = time.perf_counter()
        log.write_lines(filler)
        await pilot.wait_for_scheduled_animations()
        log_write = time.perf_counter() - t
        handlers: list[float] = []
        latencies: list[float] = []
        for _ in range(steps):
            handler_time.clear()
            stop_reason.clear()
            latencies.append(await key_to_painted_stop(pilot, "n", timeout=60))
            handlers.append(sum(handler_time))
            shown = str(status.render())
            # the check on the rendered output: the status line shows this stop (its reason, the step count)
            assert stop_reason and stop_reason[0][:30] in shown and f"steps {env.steps}/" in shown, (stop_reason, shown)
        result = {
            "nodes": len(agent.tree),
            "log_lines": log.line_count,
            "build_s": build,
            "log_write_s": log_write,
            "handlers_median_ms": statistics.median(handlers) * 1000,
            "latency_median_ms": statistics.median(latencies) * 1000,
            "latency_p90_ms": sorted(latencies)[int(len(latencies) * 0.9) - 1] * 1000,
        }
    await agent.close()
    session.writer.close()
    sessions.cleanup()
    return result


HEAVY_CHILD = r"""
import sys
from recode_tui.console.app import RecodeApp, build_app
from recode_tui.setup.build import parse_episode, settings_of
from recode_tui.setup.settings import ConsoleOptions, LLMSettings, RunOptions
from agent.run.spec import RunFlags
from recode_tui.console.screens.debug_screen import DebugScreen

class ProbeScreen(DebugScreen):
    def start(self):
        heavy = sorted(m for m in ("textworld", "alfworld", "openai") if m in sys.modules)
        print(f"HEAVY {','.join(heavy) or '-'}", flush=True)
        self.app.exit()

class Probe(RecodeApp):
    run_screen_class = ProbeScreen

app = build_app(ConsoleOptions(RunOptions("tui", parse_episode(None, "put-01"), LLMSettings("human"),
                                          settings_of(RunFlags())), journaled=False, cursor_blink=False))
Probe(app.debug_screen.agent, episode=app.episode, cursor_blink=False).run(headless=True, size=(160, 48))
"""


HELLO_CHILD = r"""
from textual.app import App
from textual.widgets import Footer, Static

class Hello(App):
    BINDINGS = [("q", "quit", "Quit")]  # quits on the key the console quits on

    def compose(self):
        yield Static("hello")
        yield Footer()

Hello().run()
"""

_ESCAPES = re.compile(rb"\x1b(\[[0-9;?<>=$]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")


def _on_screen(argv: list[str], marks: list[str], env: dict[str, str], timeout: float = 30.0) -> dict[str, float]:
    """Seconds from spawning `argv` in a 160x48 pseudo-terminal to each mark's first appearance in its output.

    What a user sees: the text reaches the terminal (escape sequences stripped).
    The program is then asked to quit with `q` and, failing that, killed.
    """
    t0 = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: the command, as a user's shell would start it
        os.execve(argv[0], argv, env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 48, 160, 0, 0))
    seen: dict[str, float] = {}
    raw, text = b"", ""
    try:
        while len(seen) < len(marks) and time.perf_counter() - t0 < timeout:
            if not select.select([fd], [], [], 0.02)[0]:
                continue
            try:
                raw += os.read(fd, 1 << 16)
            except OSError:
                break
            now = time.perf_counter() - t0
            text = _ESCAPES.sub(b"", raw).decode("utf-8", "replace")
            for mark in marks:
                if mark not in seen and mark in text:
                    seen[mark] = now
        os.write(fd, b"q")
        deadline = time.perf_counter() + 5
        while time.perf_counter() < deadline:
            if os.waitpid(pid, os.WNOHANG)[0]:
                break
            if select.select([fd], [], [], 0.05)[0]:
                try:
                    os.read(fd, 1 << 16)
                except OSError:
                    pass
        else:
            os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    finally:
        os.close(fd)
    missing = [m for m in marks if m not in seen]
    if missing:
        raise RuntimeError(f"{missing} never appeared on screen within {timeout:g} s of {argv[1:]}; "
                           f"the screen ended with: {text[-500:]!r}")
    return seen


def bench_first_paint(runs: int = 5) -> dict[str, float | str]:
    """`recode-tui` (no arguments) and a hello-world Textual app, each started in a pseudo-terminal `runs` times.

    First paint: process start to the first frame (the status line's "loading" of
    the console; the hello-world app's text). Ready: to the status line's "paused"
    (the game loaded, the run at its first stop, keys that step it act).
    """
    env = dict(os.environ, TERM="xterm-256color", COLUMNS="160", LINES="48")
    env.pop("TEXTUAL", None)
    # A user's Python keeps compiled modules (pip writes them; an editable install's are written at first
    # import); a machine that sets PYTHONDONTWRITEBYTECODE would compile ours at every start (about 0.2 s).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    paint, ready, hello = [], [], []
    with tempfile.TemporaryDirectory() as sessions:
        env["RECODE_TUI_SESSIONS"] = sessions  # the run's journal goes here, not into the user's sessions
        _on_screen([sys.executable, "-m", "recode_tui"], ["paused"], env)  # not counted: writes the compiled modules
        for _ in range(runs):
            seen = _on_screen([sys.executable, "-m", "recode_tui"], ["loading", "paused"], env)
            paint.append(seen["loading"])
            ready.append(seen["paused"])
            hello.append(_on_screen([sys.executable, "-c", HELLO_CHILD], ["hello"], env)["hello"])
    out = subprocess.run([sys.executable, "-c", HEAVY_CHILD], cwd=ROOT, capture_output=True, text=True, timeout=60)
    line = next((ln for ln in out.stdout.splitlines() if ln.startswith("HEAVY")), None)
    if line is None:
        raise RuntimeError(out.stderr[-2000:])
    return {
        "first_paint_s": statistics.median(paint),
        "ready_s": statistics.median(ready),
        "hello_world_textual_app_s": statistics.median(hello),
        "heavy_modules_loaded_at_paint": line.split()[1],
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--steps", type=int, default=40)
    args = parser.parse_args()
    verdicts = Verdicts("bench_console")
    paint = bench_first_paint(3 if args.quick else 5)
    heavy = paint["heavy_modules_loaded_at_paint"]
    hello = paint["hello_world_textual_app_s"]
    ratio = paint["first_paint_s"] / hello
    print(
        f"first paint (process start to the first frame, in a pseudo-terminal): {paint['first_paint_s']:.3f} s, "
        f"{ratio:.2f}x a hello-world Textual app ({hello:.3f} s) {verdicts.check(FIRST_PAINT, ratio)} "
        f"{FIRST_PAINT.describe()}; heavy modules at paint: {heavy} "
        f"{verdicts.check(HEAVY, 0 if heavy == '-' else len(heavy.split(',')))}"
    )
    print(
        f"ready to step (process start to the status line's \"paused\"): {paint['ready_s']:.3f} s "
        f"{verdicts.check(READY, paint['ready_s'])} {READY.describe()}; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    sizes = [(1_000, 100_000)] if args.quick else [(1_000, 100_000), (10_000, 100_000)]
    steps = 15 if args.quick else args.steps
    results = []
    for nodes, lines in sizes:
        r = asyncio.run(bench_steps(nodes, lines, steps))
        results.append(r)
        key = Target(f"{KEY.figure}, {r['nodes']} nodes", KEY.limit, KEY.unit, KEY.source)
        print(
            f"{r['nodes']:>6} nodes, {r['log_lines']:>6} log lines: key -> painted stop: median "
            f"{r['latency_median_ms']:.1f} ms {verdicts.check(key, r['latency_median_ms'])} {key.describe()} "
            f"(p90 {r['latency_p90_ms']:.1f} ms); console handlers {r['handlers_median_ms']:.2f} ms per step; "
            f"building the tree with `c` took {r['build_s']:.1f} s, writing {lines} log lines {r['log_write_s']:.2f} s"
        )
    if len(results) == 2:
        ratio = results[1]["latency_median_ms"] / results[0]["latency_median_ms"]
        print(f"10k/1k step cost ratio: {ratio:.2f} {verdicts.check(FLAT, ratio)} {FLAT.describe()}")
    return verdicts.finish()


if __name__ == "__main__":
    raise SystemExit(main())
