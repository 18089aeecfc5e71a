"""Generate ALFWorld games (`.tw-pddl`) for ALFWorld's own `alfred` PDDL domain.

Each game is a room sampled from ALFRED's real floor plans (see scenes.py),
a task of one of the six ALFWorld types, and the stock domain and grammar
shipped in the alfworld package. A game is kept only when Fast Downward finds
a plan (textworld's `extras=["walkthrough"]`) and that plan, played on the
real engine, wins; the plan is stored as the game's "walkthrough".

    python -m envs.alfworld.generator --out DIR --per-type N --seed S [--types put,heat]

writes DIR/<type>-NN.tw-pddl and DIR/index.json (task type, task sentence,
room, floor plan, seed of every game). Same arguments, same bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from envs.alfworld.gamefile import SHORT_TO_ALFRED, TASK_TYPES, keep_alfworld_data_env
from envs.alfworld.scenes import Scene, SceneError, build_scene, knowledge

INDEX_VERSION = 1
MAX_ATTEMPTS = 60
MAX_WALKTHROUGH = 40  # keeps every game comfortably inside an 80-step budget
# Types the domain's actions mention: they must be declared even when unused.
ALWAYS_TYPES = {"otype": {"KnifeType", "ButterKnifeType"}, "rtype": {"SinkBasinType", "MicrowaveType", "FridgeType"}}


@dataclass
class GeneratedGame:
    task_type: str
    task: str
    room: str
    floor_plan: int
    seed: int
    hidden_target: bool
    data: dict

    def to_bytes(self) -> bytes:
        return (json.dumps(self.data, indent=None, separators=(",", ":")) + "\n").encode("utf-8")


def derive_seed(*parts: object) -> int:
    h = hashlib.sha256(":".join(str(p) for p in parts).encode()).hexdigest()
    return int(h[:12], 16)


# ------------------------------------------------------------------ text
def _domain_and_grammar() -> tuple[str, str]:
    with keep_alfworld_data_env():
        from alfworld.info import ALFRED_PDDL_PATH, ALFRED_TWL2_PATH

    return Path(ALFRED_PDDL_PATH).read_text(), Path(ALFRED_TWL2_PATH).read_text()


def task_sentence(scene: Scene, rng: random.Random) -> str:
    with keep_alfworld_data_env():
        import alfworld.gen.goal_library as glib

    templates = glib.gdict[SHORT_TO_ALFRED[scene.task_type]]["templates"]
    text = rng.choice(templates).format(
        obj=scene.obj_cls.lower(), recep=scene.recep_cls.lower(), toggle=scene.toggle_cls.lower(), mrecep=""
    )
    return text


def goal_pddl(scene: Scene) -> str:
    with keep_alfworld_data_env():
        import alfworld.gen.goal_library as glib

    tmpl = glib.gdict[SHORT_TO_ALFRED[scene.task_type]]["pddl"]
    return tmpl.replace("#", "-").format(obj=scene.obj_cls, recep=scene.recep_cls, toggle=scene.toggle_cls, mrecep="")


def problem_text(scene: Scene, name: str) -> str:
    K = knowledge()
    otypes = set(ALWAYS_TYPES["otype"]) | {o.cls + "Type" for o in scene.objects}
    rtypes = set(ALWAYS_TYPES["rtype"]) | {r.cls + "Type" for r in scene.receptacles}
    if scene.toggle_cls:
        otypes.add(scene.toggle_cls + "Type")
    otypes.add(scene.obj_cls + "Type")
    rtypes.add(scene.recep_cls + "Type")
    locs = sorted({r.loc for r in scene.receptacles} | {scene.start_loc})

    ind = "        "
    lines = [f"(define (problem {name})", "(:domain alfred)", "(:objects", "agent1 - agent"]
    lines += [f"{ind}{t} - otype" for t in sorted(otypes)]
    lines += [f"{ind}{t} - rtype" for t in sorted(rtypes)]
    lines += [f"{ind}{o.id} - object" for o in scene.objects]
    lines += [f"{ind}{r.id} - receptacle" for r in scene.receptacles]
    lines += [f"{ind}{loc} - location" for loc in locs]
    lines += [f"{ind})", "", "(:init", ""]

    facts: list[str] = [f"(atLocation agent1 {scene.start_loc})"]
    r_by_id = {r.id: r for r in scene.receptacles}
    for r in scene.receptacles:
        facts.append(f"(receptacleType {r.id} {r.cls}Type)")
        facts.append(f"(receptacleAtLocation {r.id} {r.loc})")
        if r.cls in K["openable"]:
            facts.append(f"(openable {r.id})")
    present_objs = sorted({o.cls for o in scene.objects})
    for rc in sorted({r.cls for r in scene.receptacles}):
        for oc in present_objs:
            if oc in K["recep_objects"].get(rc, ()):
                facts.append(f"(canContain {rc}Type {oc}Type)")
    for o in scene.objects:
        facts.append(f"(objectType {o.id} {o.cls}Type)")
        facts.append(f"(inReceptacle {o.id} {o.recep})")
        facts.append(f"(objectAtLocation {o.id} {r_by_id[o.recep].loc})")
        if o.cls in K["pickupable"]:
            facts.append(f"(pickupable {o.id})")
        if o.cls in K["movable"]:
            facts.append(f"(isReceptacleObject {o.id})")
        for prop, key in (("heatable", "heatable"), ("coolable", "coolable"), ("cleanable", "cleanable"),
                          ("sliceable", "sliceable"), ("toggleable", "toggleable")):
            if o.cls in K[key]:
                facts.append(f"({prop} {o.id})")
    lines += [f"{ind}{f}" for f in facts]
    lines += [f"{ind})", "", goal_pddl(scene).strip("\n")]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ checking
_ENGINE = None


def _engine():
    global _ENGINE
    if _ENGINE is None:
        from envs.alfworld.env import _import_engine

        textworld, AlfredDemangler, AlfredInfos = _import_engine()
        infos = textworld.EnvInfos(won=True, admissible_commands=True, extras=["walkthrough"])
        _ENGINE = AlfredInfos(AlfredDemangler(textworld.envs.PddlEnv(infos)))
    return _ENGINE


def plan_and_verify(data: dict) -> list[str] | None:
    """Fast Downward walkthrough for a game, or None unless playing it wins (and not before its end)."""
    env = _engine()
    game = {k: v for k, v in data.items() if k != "walkthrough"}
    env.load(game)
    state = env.reset()
    if state["won"]:
        return None  # already solved at the start: useless task
    walkthrough = list(state.get("extra.walkthrough") or [])
    if not walkthrough or len(walkthrough) > MAX_WALKTHROUGH:
        return None
    # Play it on a fresh episode.
    state = env.reset()
    for i, cmd in enumerate(walkthrough):
        if cmd not in state["admissible_commands"]:
            return None
        state, _, _ = env.step(cmd)
        if state["won"] and i < len(walkthrough) - 1:
            return None
    return walkthrough if state["won"] else None


def plan_walkthrough(game: str | Path | dict) -> list[str]:
    """Fast Downward's plan for a game file or game dict ([] when the planner finds none).

    Takes ~0.2-5 s on real ALFWorld games, minutes on a few: compute it offline.
    """
    if not isinstance(game, dict):
        from envs.alfworld.gamefile import load_game_json

        game = load_game_json(game)
    env = _engine()
    env.load({k: v for k, v in game.items() if k != "walkthrough"})
    return list(env.reset().get("extra.walkthrough") or [])


# ------------------------------------------------------------------ generation
def make_game(task_type: str, seed: int, check: bool = True) -> GeneratedGame:
    """One game of `task_type` from `seed` (retries internally with derived seeds)."""
    if task_type not in TASK_TYPES:
        raise ValueError(f"unknown task type {task_type!r}; use one of {', '.join(TASK_TYPES)}")
    domain, grammar = _domain_and_grammar()
    last_error = ""
    for attempt in range(MAX_ATTEMPTS):
        game_seed = derive_seed(seed, task_type, attempt)
        rng = random.Random(game_seed)
        try:
            scene = build_scene(rng, task_type)
        except SceneError as exc:
            last_error = str(exc)
            continue
        task = task_sentence(scene, rng)
        data = {
            "pddl_domain": domain,
            "grammar": grammar.replace("UNKNOWN GOAL", task),
            "pddl_problem": problem_text(scene, f"recode_{task_type}_{game_seed}"),
            "solvable": False,
        }
        if check:
            walkthrough = plan_and_verify(data)
            if walkthrough is None:
                last_error = "no winning walkthrough"
                continue
            data["solvable"] = True
            data["walkthrough"] = walkthrough
        return GeneratedGame(
            task_type=task_type, task=task + ".", room=scene.room, floor_plan=scene.plan,
            seed=game_seed, hidden_target=scene.hidden_target, data=data,
        )
    raise RuntimeError(f"could not generate a {task_type} game from seed {seed}: {last_error}")


def generate(out: str | Path, per_type: int, seed: int = 0, task_types: list[str] | None = None,
             log=None) -> list[dict]:
    """Write per_type games of each type to `out` plus `out/index.json`; return the index entries."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    types = list(task_types or TASK_TYPES)
    entries: list[dict] = []
    for tt in types:
        for i in range(1, per_type + 1):
            t0 = time.perf_counter()
            g = make_game(tt, derive_seed(seed, tt, "game", i))
            gid = f"{tt}-{i:02d}"
            fname = f"{gid}.tw-pddl"
            (out / fname).write_bytes(g.to_bytes())
            entries.append({
                "id": gid, "file": fname, "task_type": tt, "alfred_task_type": SHORT_TO_ALFRED[tt],
                "task": g.task, "room": g.room, "floor_plan": f"FloorPlan{g.floor_plan}",
                "seed": seed, "game_seed": g.seed, "target_hidden": g.hidden_target,
                "walkthrough_len": len(g.data.get("walkthrough", [])),
            })
            if log:
                log(f"{gid:11s} {time.perf_counter() - t0:5.1f}s  {g.room:11s} {g.task}")
    index = {"version": INDEX_VERSION, "generator": "envs.alfworld.generator", "seed": seed,
             "per_type": per_type, "games": entries}
    (out / "index.json").write_text(json.dumps(index, indent=1) + "\n", encoding="utf-8")
    return entries


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m envs.alfworld.generator", description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--per-type", type=int, default=10, help="games per task type (default 10)")
    ap.add_argument("--seed", type=int, default=0, help="base seed (default 0)")
    ap.add_argument("--types", default=",".join(TASK_TYPES), help="comma-separated task types")
    args = ap.parse_args(argv)
    types = [t.strip() for t in args.types.split(",") if t.strip()]
    bad = [t for t in types if t not in TASK_TYPES]
    if bad:
        ap.error(f"unknown task type(s) {bad}; use {', '.join(TASK_TYPES)}")
    t0 = time.perf_counter()
    entries = generate(args.out, args.per_type, args.seed, types, log=lambda s: print(s, flush=True))
    print(f"wrote {len(entries)} games to {args.out} in {time.perf_counter() - t0:.1f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
