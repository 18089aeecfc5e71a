"""Measure every ScienceWorld gold path's length and write `gold_lengths.json` (the step limits' source).

    nice -n 19 python -m envs.sciworld.derive_limits            # everything not yet measured, 2 JVMs
    python -m envs.sciworld.derive_limits --tasks boil,melt --settings easy
    python -m envs.sciworld.derive_limits --table               # the limits from the file, no JVM
    python -m envs.sciworld.derive_limits --paper-wins          # when gold paths win the reference's 211 episodes

For each setting (easy, none), task and variation of every split, the
simulator generates its gold path (`load(..., generateGoldPath=True)`) and the
length of the action sequence is stored. The file is rewritten after every
chunk of variations, so a stopped sweep loses little and the next run goes on
where it stopped (variations already in the file are skipped). Order: the
reference's 211 paper episodes first, then rounds that each take the next
share of every task (test variations first), so a partial sweep covers all
tasks alike; the two Mendelian-genetics tasks (~8-20 s a gold path) advance
at a third of the others' pace, and the "none" setting at half the pace of
"easy" (the default one).

Cost measured here (2 cores, shared): 0.2-1.5 s a gold path for most tasks,
3-5 s for some boil variations, 8 s for a Mendelian one; ~14,400 in all.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from envs.sciworld import limits
from envs.sciworld.paper import PAPER_SETTING, paper_episodes

CHUNK = 20
ROUNDS = 40
HEAVY = ("mendelian-genetics-known-plant", "mendelian-genetics-unknown-plant")
HEAP_MB = 768

_simulator = None


def _measure(setting: str, task: str, variations: list[int]) -> tuple[str, str, dict[int, int], list[str]]:
    """In a worker process: the gold path length of each variation (its own JVM, kept between chunks)."""
    global _simulator
    from envs.sciworld.simulator import Simulator, SimulatorError
    from envs.sciworld.tasks import find_task, simplifications_for

    if _simulator is None:
        _simulator = Simulator(heap_mb=HEAP_MB, call_timeout=300)
    simplifications = simplifications_for(find_task(task), setting)
    found: dict[int, int] = {}
    errors: list[str] = []
    for variation in variations:
        try:
            _simulator.load(task, variation, simplifications, gold=True)
            found[variation] = len(_simulator.gold_actions())
        except SimulatorError as exc:
            errors.append(f"{setting} {task}/{variation}: {exc}")
    return setting, task, found, errors


def load_file(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def write_file(path: Path, data: dict) -> None:
    """One line per task and setting, so a diff shows which tasks changed."""
    lines = ["{"]
    lines.append(f'  "about": {json.dumps(data["about"])},')
    lines.append(f'  "scienceworld": {json.dumps(data["scienceworld"])},')
    for i, setting in enumerate(limits.SETTINGS):
        lines.append(f'  "{setting}": {{')
        rows = data[setting]
        for j, (task, lengths) in enumerate(rows.items()):
            comma = "," if j < len(rows) - 1 else ""
            lines.append(f"    {json.dumps(task)}: {json.dumps(lengths, separators=(',', ':'))}{comma}")
        lines.append("  }" + ("," if i < len(limits.SETTINGS) - 1 else ""))
    lines.append("}")
    tmp = path.with_suffix(".tmp")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    tmp.replace(path)


def fresh(data: dict, table: dict[str, dict[str, list[int]]]) -> dict:
    """The file's data with a full-length list for every task (variations are numbered 0..n-1)."""
    from envs.sciworld.tasks import task_names
    from envs.sciworld.variations import scienceworld_version

    version = scienceworld_version()
    if data.get("scienceworld") not in (None, version):
        print(f"{limits.LENGTHS_FILE.name} was measured with scienceworld {data['scienceworld']}; "
              f"starting over for {version}", file=sys.stderr)
        data = {}
    out: dict[str, Any] = {"about": "gold path length per variation (null: not measured); see envs/sciworld/limits.py",
           "scienceworld": version}
    for setting in limits.SETTINGS:
        old = data.get(setting, {})
        out[setting] = {}
        for task in task_names():
            count = sum(len(v) for v in table[task].values())
            lengths = list(old.get(task, []))[:count]
            out[setting][task] = lengths + [None] * (count - len(lengths))
    return out


def plan(data: dict, table: dict, tasks: list[str], settings: list[str]) -> list[tuple[str, str, list[int]]]:
    """Chunks still to measure, in order: paper episodes, cheap tasks (test, dev, train), heavy tasks."""
    todo: list[tuple[str, str, int]] = []
    seen: set[tuple[str, str, int]] = set()

    def add(setting: str, task: str, variation: int) -> None:
        key = (setting, task, variation)
        if key not in seen and data[setting][task][variation] is None:
            seen.add(key)
            todo.append(key)

    if PAPER_SETTING in settings:
        for episode in paper_episodes():
            task, _, number = episode.partition("/")
            if task in tasks:
                add(PAPER_SETTING, task, int(number))
    # Then in rounds, each round a 1/ROUNDS share of every task's variations (test, then dev, then train),
    # so a sweep stopped early has covered every task alike; the heavy tasks advance at a third of the pace,
    # and "none" (no simplifications, `--env sciworld-full`) at half the pace of "easy" (the default setting).
    rest: list[tuple[int, bool, str, str, int]] = []  # (round, heavy, setting, task, variation)
    for task in tasks:
        ordered = [v for split in ("test", "dev", "train") for v in table[task][split]]
        for setting in settings:
            pace = (3 if task in HEAVY else 1) * (2 if setting == "none" else 1)
            for i, variation in enumerate(ordered):
                rest.append((int(pace * ROUNDS * i / len(ordered)), task in HEAVY, setting, task, variation))
    for *_, setting, task, variation in sorted(rest, key=lambda r: (r[0], r[1], tasks.index(r[3]), r[2])):
        add(setting, task, variation)
    chunks: list[tuple[str, str, list[int]]] = []
    for setting, task, variation in todo:
        if chunks and chunks[-1][:2] == (setting, task) and len(chunks[-1][2]) < CHUNK:
            chunks[-1][2].append(variation)
        else:
            chunks.append((setting, task, [variation]))
    return chunks


def sweep(path: Path, tasks: list[str], settings: list[str], workers: int) -> int:
    from envs.sciworld.variations import variation_table

    table = variation_table()
    data = fresh(load_file(path), table)
    write_file(path, data)
    chunks = plan(data, table, tasks, settings)
    total = sum(len(c[2]) for c in chunks)
    print(f"{total} gold paths to measure in {len(chunks)} chunks, {workers} JVM(s)", flush=True)
    done, started, errors = 0, time.monotonic(), 0
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
        pending: set[Future[tuple[str, str, dict[int, int], list[str]]]] = set()
        queue = list(reversed(chunks))
        while queue or pending:
            while queue and len(pending) < 2 * workers:
                pending.add(pool.submit(_measure, *queue.pop()))
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                try:
                    setting, task, found, failed = future.result()
                except Exception as exc:  # noqa: BLE001 - a worker that died: its chunk stays unmeasured
                    print(f"error: a worker failed ({type(exc).__name__}: {exc}); rerun to measure its chunk",
                          file=sys.stderr, flush=True)
                    errors += 1
                    continue
                for variation, length in found.items():
                    data[setting][task][variation] = length
                for line in failed:
                    print(f"error: {line}", file=sys.stderr, flush=True)
                errors += len(failed)
                done += len(found) + len(failed)
                write_file(path, data)
                rate = done / max(time.monotonic() - started, 1e-9)
                print(f"{done}/{total} ({rate:.2f}/s) {setting} {task}: longest so far "
                      f"{max((n for n in data[setting][task] if n is not None), default=0)}", flush=True)
    return 1 if errors else 0


def paper_wins(path: Path) -> int:
    """For each of the reference's 211 episodes: its gold path's length, and at which step replaying it
    wins under the reference's rule (done with a score above 0; None: it never does), from one load."""
    from envs.sciworld.env import SciWorldEnv
    from envs.sciworld.simulator import Simulator, SimulatorError
    from envs.sciworld.tasks import find_task, simplifications_for
    from envs.sciworld.variations import scienceworld_version

    data = load_file(path)
    if data.get("scienceworld") != scienceworld_version():
        data = {}
    data["about"] = ("the reference's 211 ScienceWorld episodes (easy): gold path length and the step at which "
                     "replaying it wins under the reference's rule (null: never); python -m "
                     "envs.sciworld.derive_limits --paper-wins")
    data["scienceworld"] = scienceworld_version()
    episodes = data.setdefault("episodes", {})
    simulator = Simulator(heap_mb=HEAP_MB, call_timeout=300)
    errors = 0
    try:
        for n, episode in enumerate(paper_episodes(), 1):
            if episode in episodes:
                continue
            task, _, variation = episode.partition("/")
            try:
                simulator.load(task, int(variation), simplifications_for(find_task(task), "easy"), gold=True)
                gold = simulator.gold_actions()
                env = SciWorldEnv(episode, max_steps=len(gold) + 1, rule="paper", simulator=simulator)
                env.reset()
                won_at = None
                for action in gold:
                    env.step(action)
                    if env.won:
                        won_at = env.steps
                        break
                    if env.done:
                        break
            except SimulatorError as exc:
                print(f"error: {episode}: {exc}", file=sys.stderr, flush=True)
                errors += 1
                continue
            episodes[episode] = {"gold": len(gold), "wins_at": won_at}
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
            tmp.replace(path)
            print(f"{n}/211 {episode}: gold {len(gold)}, wins at {won_at}", flush=True)
    finally:
        simulator.close()
    return 1 if errors else 0


def print_table() -> int:
    from envs.sciworld.tasks import task_names

    limits.gold_lengths.cache_clear()
    print("| task | longest gold (easy) | limit (easy) | covered (easy) | longest gold (none) | limit (none) | covered (none) |")
    print("|---|---|---|---|---|---|---|")
    for task in task_names():
        cells = []
        for setting in limits.SETTINGS:
            done, count = limits.coverage(task, setting)
            cells += [str(limits.longest_gold_path(task, setting) or "-"), str(limits.step_limit(task, setting)),
                      f"{done}/{count}"]
        print(f"| {task} | " + " | ".join(cells) + " |")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m envs.sciworld.derive_limits", description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="", help="comma-separated task names (default: all 30)")
    parser.add_argument("--settings", default="easy,none", help="comma-separated: easy, none (default: both)")
    parser.add_argument("-j", "--workers", type=int, default=2, help="JVMs side by side (default 2)")
    parser.add_argument("--file", type=Path, default=limits.LENGTHS_FILE, help="the lengths file to update")
    parser.add_argument("--table", action="store_true", help="print the limits the file gives, measure nothing")
    parser.add_argument("--paper-wins", action="store_true",
                        help=f"replay the gold paths of the reference's 211 episodes into {limits.PAPER_WINS_FILE.name}")
    args = parser.parse_args(argv)
    if args.table:
        return print_table()
    if args.paper_wins:
        os.environ.setdefault("JAVA_TOOL_OPTIONS", f"-Xmx{HEAP_MB}m")
        return paper_wins(limits.PAPER_WINS_FILE)
    from envs.sciworld.tasks import find_task, task_names

    tasks = [find_task(t).name for t in args.tasks.split(",") if t] or list(task_names())
    settings = [s for s in args.settings.split(",") if s]
    unknown = [s for s in settings if s not in limits.SETTINGS]
    if unknown:
        parser.error(f"unknown setting(s) {', '.join(unknown)}; use easy, none")
    os.environ.setdefault("JAVA_TOOL_OPTIONS", f"-Xmx{HEAP_MB}m")
    return sweep(args.file, tasks, settings, max(1, args.workers))


if __name__ == "__main__":
    raise SystemExit(main())
