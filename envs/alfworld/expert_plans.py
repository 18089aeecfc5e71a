"""Measure every ALFWorld game's expert plan and write `expert_lengths.json` (the step limit's check).

    python -m envs.alfworld.expert_plans --table                          # the file's longest plans
    ALFWORLD_DATA=../shared/alfworld nice -n 19 python -m envs.alfworld.expert_plans            # handcoded, ~10 min
    ALFWORLD_DATA=../shared/alfworld nice -n 19 python -m envs.alfworld.expert_plans --planner  # planner, ~15 min

The file holds, per game id:
- "bundled": the bundled games' expert plan, the Fast Downward walkthrough stored in each game
  file (`generator.py` checked that it wins);
- "valid_seen planner": the same planner's plan for each real game (ALFWorld's PLANNER expert: the
  shortest win, knowing where everything is), played to check it wins. A few games take the planner
  minutes (valid_seen/51: 9 min on 2 busy cores); `--planner-timeout` bounds each one;
- "valid_seen trimmed": for the games the planner did not finish, the handcoded expert's win with
  its search cut out (`trimmed_length`), played again to check it wins (`--trim`);
- "valid_seen": the steps ALFWorld's HANDCODED expert (`AlfredExpert`, reading the `traj_data.json`
  beside the game) takes to win, searching receptacles without knowing where the objects are. As
  shipped (alfworld 0.4.2) it only notices it put an object down on `put X in/on Y`, so with today's
  `move X to Y` it fails the "pick two" tasks; here the command it sees is rewritten to the old word
  (../shared/docs/alfworld-offline.md). Its ties are broken by `random`: seeded.

tests/envs/test_alfworld_limits.py fails when a game's expert plan, with the margin, no longer fits
the step limits; the README's "Budgets" table quotes the figures.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from envs.alfworld.catalog import list_games, list_split
from envs.alfworld.env import _import_engine
from envs.alfworld.gamefile import load_game_json

LENGTHS_FILE = Path(__file__).resolve().parent / "expert_lengths.json"
EXPERT_MAX_STEPS = 200  # the expert gives up after this many actions (alfworld's own cap)
SEED = 0


def bundled_lengths() -> dict[str, int]:
    """Each bundled game's stored walkthrough length."""
    return {game.id: len(load_game_json(game.path).get("walkthrough") or []) for game in list_games()}


def _expert_engine():
    """textworld's PddlEnv with alfworld's wrappers and its handcoded expert (the `move` word fixed)."""
    textworld, AlfredDemangler, AlfredInfos = _import_engine()
    from alfworld.agents.environment.alfred_tw_env import AlfredExpert

    class Expert(AlfredExpert):
        def step(self, command):  # as AlfredExpert.step, the expert told `put` where the game says `move`
            self.state, reward, done = textworld.core.Wrapper.step(self, command)
            self.prev_command = "put" + command[len("move"):] if command.startswith("move ") else str(command)
            self._gather_infos()
            return self.state, reward, done

    infos = textworld.EnvInfos(won=True, admissible_commands=True, facts=True, extras=["gamefile"])
    return Expert(AlfredInfos(AlfredDemangler(textworld.envs.PddlEnv(infos))))


def expert_length(path: str) -> int | None:
    """Actions the handcoded expert needs to win the game at `path`; None when it does not win."""
    random.seed(SEED)
    engine = _expert_engine()
    engine.load(path)
    state = engine.reset()
    for step in range(1, EXPERT_MAX_STEPS + 1):
        action = state["extra.expert_plan"][0]
        state, _, _ = engine.step(action)
        if state["won"]:
            engine.close()
            return step
    engine.close()
    return None


def planner_length(path: str) -> int | None:
    """The length of Fast Downward's plan for the game (the shortest win, knowing where everything is),
    checked by playing it; None when there is none or it does not win."""
    from envs.alfworld.generator import _engine, plan_walkthrough

    plan = plan_walkthrough(path)
    if not plan:
        return None
    engine = _engine()
    state = engine.reset()
    for command in plan:
        state, _, _ = engine.step(command)
    return len(plan) if state["won"] else None


def _planned(item: tuple[str, str, float]) -> tuple[str, int | None]:
    """In a thread: one game's planner length, in its own process (Fast Downward can take minutes)."""
    import subprocess

    game_id, path, timeout = item
    try:
        done = subprocess.run([sys.executable, "-m", "envs.alfworld.expert_plans", "--planner-one", path],
                              capture_output=True, text=True, timeout=timeout)
        return game_id, int(done.stdout.strip()) if done.stdout.strip().isdigit() else None
    except subprocess.TimeoutExpired:
        print(f"{game_id}: the planner took over {timeout:g} s", file=sys.stderr)
        return game_id, None


def plan_split(split: str, workers: int, timeout: float) -> dict[str, int | None]:
    from concurrent.futures import ThreadPoolExecutor

    games = [(game.id, str(game.path), timeout) for game in list_split(split)]
    found: dict[str, int | None] = {}
    with ThreadPoolExecutor(workers) as pool:
        for n, (game_id, length) in enumerate(pool.map(_planned, games), 1):
            found[game_id] = length
            print(f"planner {n}/{len(games)} {game_id}: {length}", file=sys.stderr)
    return found


_USED = re.compile(r"(?:take \S+ \d+ from|move \S+ \d+ to|(?:heat|cool|clean) \S+ \d+ with|use) (\S+ \d+)$")
_VISIT = re.compile(r"(?:go to|open) (\S+ \d+)$")
_IDLE = re.compile(r"(?:close|look|help|inventory|examine)\b")


def trimmed_length(path: str) -> int | None:
    """The handcoded expert's win with its search cut out, played again to check it still wins.

    Kept: the actions on the receptacles it took from, put into or used (and going there, opening
    them); dropped: every other visit, `close`, `look`, `help`. A win no longer than the expert's,
    for a game whose planner runs too long (valid_seen/130: over 15 min)."""
    random.seed(SEED)
    engine = _expert_engine()
    engine.load(path)
    state = engine.reset()
    actions: list[str] = []
    while not state["won"] and len(actions) < EXPERT_MAX_STEPS:
        actions.append(state["extra.expert_plan"][0])
        state, _, _ = engine.step(actions[-1])
    used = {m.group(1) for a in actions if (m := _USED.match(a))}
    kept = [a for a in actions if not _IDLE.match(a) and not ((m := _VISIT.match(a)) and m.group(1) not in used)]
    state = engine.reset()
    for action in kept:
        state, _, _ = engine.step(action)
    engine.close()
    return len(kept) if state["won"] else None


def _measure(item: tuple[str, str]) -> tuple[str, int | None]:
    game_id, path = item
    try:
        return game_id, expert_length(path)
    except Exception as exc:  # one game's failure is reported, the sweep goes on
        print(f"{game_id}: {exc.__class__.__name__}: {exc}", file=sys.stderr)
        return game_id, None


def measure_split(split: str, workers: int) -> dict[str, int | None]:
    games = [(game.id, str(game.path)) for game in list_split(split)]
    found: dict[str, int | None] = {}
    with ProcessPoolExecutor(workers) as pool:
        for n, (game_id, length) in enumerate(pool.map(_measure, games), 1):
            found[game_id] = length
            print(f"{n}/{len(games)} {game_id}: {length}", file=sys.stderr)
    return found


def load_lengths() -> dict[str, dict[str, int | None]]:
    return json.loads(LENGTHS_FILE.read_text(encoding="utf-8"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="valid_seen")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--table", action="store_true", help="print the file's longest plans; measure nothing")
    parser.add_argument("--planner", action="store_true", help="measure the planner's plans of the split")
    parser.add_argument("--planner-timeout", type=float, default=180.0)
    parser.add_argument("--planner-one", metavar="GAME", help=argparse.SUPPRESS)
    parser.add_argument("--trim", action="store_true",
                        help="for the games the planner did not finish: the expert's win with its search cut out")
    args = parser.parse_args(argv)
    if args.planner_one:
        print(planner_length(args.planner_one))
        return 0
    data = load_lengths() if LENGTHS_FILE.is_file() else {}
    if args.planner:
        data[f"{args.split} planner"] = plan_split(args.split, args.workers, args.planner_timeout)
    elif args.trim:
        paths = {game.id: str(game.path) for game in list_split(args.split)}
        missing = [g for g, n in data[f"{args.split} planner"].items() if n is None]
        data[f"{args.split} trimmed"] = {g: trimmed_length(paths[g]) for g in missing}
    elif not args.table:
        data["bundled"] = {**bundled_lengths()}
        data[args.split] = measure_split(args.split, args.workers)
    if not args.table:
        LENGTHS_FILE.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    for name, lengths in load_lengths().items():
        known = {k: v for k, v in lengths.items() if v is not None}
        longest = max(known, key=known.__getitem__)
        print(f"{name}: {len(known)} of {len(lengths)} games with an expert plan; longest {known[longest]} "
              f"({longest})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
