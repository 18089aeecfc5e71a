"""Time the ALFWorld environment: engine import, game load, reset, step.

    python benchmarks/bench_env.py [--per-type 2] [--steps 12] [--speedups both|on|off]

Bundled games always; real valid_seen games too when ALFWORLD_DATA is set or
../shared/alfworld exists. Steps are the stored walkthrough (bundled) or a
fixed walk over admissible `go to` / `open` / `examine` commands (real games),
plus one junk command per game. Each mode of the engine speedups
(`envs/alfworld/speedups.py`) runs in its own process, since they patch the
engine process-wide; "CPU/game" is the process CPU time of load + reset +
steps per game, and "RSS/game" how much the process's resident memory grew per
game played (what a long evaluation worker accumulates).

User path: every ALFWorld `env.step` of `run`, `tui` and `eval` (with the speedups,
the default; `RECODE_ALFWORLD_SPEEDUPS=0` is the stock engine).

Targets (README: "a step costs about 3 ms instead of 40"): with the speedups, the
median step at most 6 ms (2x margin for a loaded machine), and at least 5x faster
than without them (the README's ~13x with a wide margin: the stock step is the
noisier one). Checked per source (bundled, valid_seen).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import subprocess  # noqa: E402

from benchmarks.targets import Target, Verdicts  # noqa: E402
from envs.alfworld.catalog import list_games, list_split  # noqa: E402
from envs.alfworld.env import AlfworldEnv  # noqa: E402
from envs.alfworld.gamefile import TASK_TYPES  # noqa: E402

STEP = Target("median step with the speedups", 6, "ms", "README: about 3 ms; 2x margin")
SPEEDUP = Target("median step without / with the speedups", 5, "x", "README: 40 ms vs 3 ms (~13x); wide margin",
                 at_least=True)

# alfworld sets ALFWORLD_DATA to ~/.cache/alfworld when it is imported: decide first.
if not os.environ.get("ALFWORLD_DATA") and (ROOT.parent / "shared" / "alfworld").is_dir():
    os.environ["ALFWORLD_DATA"] = str(ROOT.parent / "shared" / "alfworld")


def _pick(games, per_type):
    out = []
    for t in TASK_TYPES:
        of_type = [g for g in games if g.task_type == t]
        if not of_type:
            continue
        stride = max(1, len(of_type) // per_type)
        out += of_type[::stride][:per_type]
    return out


def _real_commands(env: AlfworldEnv, n: int) -> list[str]:
    """A deterministic walk: visit receptacles, open what is closed, examine."""
    cmds = []
    gotos = [c for c in env.admissible_commands if c.startswith("go to ")]
    for c in gotos[: max(1, n // 2)]:
        cmds.append(c)
        cmds.append("examine " + c[len("go to "):])
    return cmds[:n]


def bench(games, steps: int, real: bool) -> dict:
    loads, resets, step_times, walk_wins = [], [], [], 0
    cpu_start, rss_start = time.process_time(), _rss_mb()
    for g in games:
        t0 = time.perf_counter()
        env = AlfworldEnv(g.path)
        env._ensure_loaded()
        loads.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        env.reset()
        resets.append(time.perf_counter() - t0)
        plan = _real_commands(env, steps) if real else list(env.walkthrough or [])[:steps]
        plan = plan + ["dance with the fridge"]
        for cmd in plan:
            t0 = time.perf_counter()
            env.step(cmd)
            step_times.append(time.perf_counter() - t0)
            if real and env.admissible_commands and cmd.startswith("go to "):
                # open the receptacle if it is closed, as an agent would
                opener = "open " + cmd[len("go to "):]
                if opener in env.admissible_commands:
                    t0 = time.perf_counter()
                    env.step(opener)
                    step_times.append(time.perf_counter() - t0)
        walk_wins += int(env.won)
        env.close()
    cpu = (time.process_time() - cpu_start) / max(1, len(games))
    rss = (_rss_mb() - rss_start) / max(1, len(games))
    return {"games": len(games), "load": loads, "reset": resets, "step": step_times, "wins": walk_wins, "cpu": cpu,
            "rss": rss}


def _rss_mb() -> float:
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6
    except (OSError, ValueError):
        return float("nan")


def _ms(xs):
    return f"{1000 * statistics.median(xs):7.0f}" if xs else "      -"


def _p90(xs):
    if not xs:
        return "      -"
    xs = sorted(xs)
    return f"{1000 * xs[min(len(xs) - 1, int(0.9 * len(xs)))]:7.0f}"


def measure(per_type: int, steps: int) -> dict:
    """Everything for one speedups mode, in this process."""
    code = "import time; t = time.perf_counter(); import envs.alfworld; print(time.perf_counter() - t)"
    t_pkg = min(
        float(subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout)
        for _ in range(3)
    )
    t0 = time.perf_counter()
    import textworld.envs  # noqa: F401
    from alfworld.agents.environment import alfred_tw_env  # noqa: F401

    t_engine = time.perf_counter() - t0
    rows = [("bundled", bench(_pick(list_games(), per_type), steps, real=False))]
    real_games = list_split("valid_seen")
    if real_games:
        rows.append(("valid_seen", bench(_pick(real_games, per_type), steps, real=True)))
    return {"import_pkg": t_pkg, "import_engine": t_engine, "rows": rows}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--per-type", type=int, default=2, help="games per task type and source (default 2)")
    ap.add_argument("--steps", type=int, default=12, help="steps per game (default 12)")
    ap.add_argument("--speedups", choices=("both", "on", "off"), default="both",
                    help="engine speedups to measure (default both, each in its own process)")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # one mode's raw result
    args = ap.parse_args(argv)
    if args.json:
        print(json.dumps(measure(args.per_type, args.steps)))
        return 0

    verdicts = Verdicts("bench_env")
    modes = ("off", "on") if args.speedups == "both" else (args.speedups,)
    results = {}
    for mode in modes:
        env = dict(os.environ, RECODE_ALFWORLD_SPEEDUPS="1" if mode == "on" else "0")
        out = subprocess.run([sys.executable, __file__, "--json", "--per-type", str(args.per_type),
                              "--steps", str(args.steps)], env=env, capture_output=True, text=True, check=True)
        results[mode] = json.loads(out.stdout.strip().splitlines()[-1])

    first = results[modes[0]]
    print(f"import envs.alfworld: {1000 * first['import_pkg']:.0f} ms; "
          f"import textworld + alfworld engine: {1000 * first['import_engine']:.0f} ms")
    print(f"{'source':11s} {'speedups':>8s} {'games':>5s} {'load ms':>8s} {'reset ms':>8s} {'step ms':>8s} "
          f"{'step p90':>8s} {'steps':>6s} {'CPU/game ms':>11s} {'RSS/game MB':>11s}  vs target")
    for name_index in range(len(first["rows"])):
        for mode in modes:
            name, r = results[mode]["rows"][name_index]
            verdict = ""
            if mode == "on":
                step = statistics.median(r["step"]) * 1000
                target = Target(f"{name}: {STEP.figure}", STEP.limit, STEP.unit, STEP.source)
                verdict = f"  {verdicts.check(target, step)} {target.describe()}"
                if "off" in results:
                    ratio = statistics.median(results["off"]["rows"][name_index][1]["step"]) * 1000 / step
                    target = Target(f"{name}: {SPEEDUP.figure}", SPEEDUP.limit, SPEEDUP.unit, SPEEDUP.source,
                                    at_least=True)
                    verdict += f"; {ratio:.1f}x faster {verdicts.check(target, ratio)} {target.describe()}"
            print(f"{name:11s} {mode:>8s} {r['games']:5d} {_ms(r['load']):>8s} {_ms(r['reset']):>8s} "
                  f"{_ms(r['step']):>8s} {_p90(r['step']):>8s} {len(r['step']):6d} {1000 * r['cpu']:11.0f} "
                  f"{r['rss']:11.1f}{verdict}")
    print("(medians; load = parse game + build engine, reset = new episode, step = one command)")
    return verdicts.finish()


if __name__ == "__main__":
    raise SystemExit(main())
