"""Scene sampling for generated ALFWorld games: rooms, receptacles, objects, tasks.

Rooms start from ALFRED's real floor plans shipped in the alfworld package
(`alfworld/gen/layouts/FloorPlan<N>-objects.json` lists the classes a room has,
`FloorPlan<N>-openable.json` the receptacle instances with their interaction
poses) and ALFWorld's constants (which receptacle class may hold which object
class, which objects can be heated/cooled/cleaned, which receptacles open).
Everything is driven by one `random.Random`, so a seed fixes the scene.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from envs.alfworld.gamefile import keep_alfworld_data_env

ROOM_PLANS = {
    "kitchen": range(1, 31),
    "living room": range(201, 231),
    "bedroom": range(301, 331),
    "bathroom": range(401, 431),
}

# Which rooms each task may be set in (ALFRED's own GOALS_VALID, with lamps for examine).
TASK_ROOMS = {
    "put": ("kitchen", "living room", "bedroom", "bathroom"),
    "puttwo": ("kitchen", "living room", "bedroom", "bathroom"),
    "clean": ("kitchen", "bathroom"),
    "heat": ("kitchen",),
    "cool": ("kitchen",),
    "examine": ("living room", "bedroom"),
}

# The appliance a task needs (receptacle class), and that it must not be the target.
TASK_APPLIANCE = {"clean": "SinkBasin", "heat": "Microwave", "cool": "Fridge"}

# Per-class caps so scenes stay readable and the planner stays fast.
CLASS_CAP = {"Cabinet": (3, 6), "Drawer": (2, 4), "Shelf": (1, 3), "CounterTop": (1, 2), "StoveBurner": (2, 4)}
DEFAULT_CAP = 2
# Targets that would undo the task (a hot thing into the fridge, a cool one into the microwave).
TASK_BAD_TARGETS = {"heat": {"Fridge"}, "cool": {"Microwave"}}
# Receptacle classes that make poor task targets.
NON_TARGET_RECEPTACLES = {"Toaster", "CoffeeMachine", "StoveBurner", "HandTowelHolder", "TowelHolder",
                          "ToiletPaperHanger", "LaundryHamper", "TVStand"}
LAMP_HOLDERS = ("Desk", "SideTable", "Dresser", "Shelf", "CoffeeTable", "DiningTable")


def _alfworld_gen_dir() -> Path:
    with keep_alfworld_data_env():
        import alfworld

    return Path(alfworld.__file__).resolve().parent / "gen"


@lru_cache(maxsize=1)
def knowledge():
    """ALFWorld constants the generator relies on."""
    with keep_alfworld_data_env():
        import alfworld.gen.constants as C

    recep_objects = {
        r: sorted(o for o in objs if "Sliced" not in o)
        for r, objs in C.VAL_RECEPTACLE_OBJECTS.items()
    }
    movable = set(C.MOVABLE_RECEPTACLES)
    static_receptacles = sorted(set(recep_objects) - movable)
    pickupable = sorted({o for objs in recep_objects.values() for o in objs} - set(static_receptacles))
    act = {k: {o for o in v if "Sliced" not in o} for k, v in C.VAL_ACTION_OBJECTS.items()}
    return {
        "recep_objects": recep_objects,
        "static_receptacles": set(static_receptacles),
        "pickupable": set(pickupable),
        "movable": movable,
        "openable": set(C.OPENABLE_CLASS_LIST),
        "heatable": act["Heatable"],
        "coolable": act["Coolable"],
        "cleanable": act["Cleanable"],
        "sliceable": act["Sliceable"],
        "toggleable": act["Toggleable"],
    }


@lru_cache(maxsize=256)
def floor_plan(n: int) -> tuple[tuple[str, ...], dict]:
    d = _alfworld_gen_dir() / "layouts"
    objects = tuple(sorted(json.loads((d / f"FloorPlan{n}-objects.json").read_text())))
    openable = json.loads((d / f"FloorPlan{n}-openable.json").read_text())
    return objects, openable


# ------------------------------------------------------------------ naming
def encode_coord(v: float) -> str:
    s = f"{v:+06.2f}"
    return s.replace("+", "_plus_").replace("-", "_minus_").replace(".", "_dot_")


def encode_id(cls: str, coords: tuple[float, float, float], suffix: str = "") -> str:
    out = cls + "".join("_bar_" + encode_coord(c) for c in coords)
    return out + (f"_bar_{suffix}" if suffix else "")


def encode_loc(parts: tuple[int, int, int, int]) -> str:
    return "loc" + "".join("_bar_" + (f"_minus_{-p}" if p < 0 else str(p)) for p in parts)


@dataclass
class Receptacle:
    id: str
    cls: str
    loc: str
    coords: tuple[float, float, float]


@dataclass
class Obj:
    id: str
    cls: str
    recep: str  # receptacle id


@dataclass
class Scene:
    room: str
    plan: int
    task_type: str
    obj_cls: str
    recep_cls: str
    toggle_cls: str
    start_loc: str
    receptacles: list[Receptacle] = field(default_factory=list)
    objects: list[Obj] = field(default_factory=list)
    hidden_target: bool = False


class SceneError(Exception):
    """This floor plan cannot host the requested task; try another."""


def _parse_key(key: str) -> tuple[str, tuple[float, float, float], str]:
    parts = key.split("|")
    cls = parts[0]
    x, y, z = (float(p) for p in parts[1:4])
    suffix = parts[4] if len(parts) > 4 else ""
    return cls, (x, y, z), suffix


def _receptacles(rng: random.Random, plan: int, must_have: set[str]) -> list[Receptacle]:
    K = knowledge()
    objects, openable = floor_plan(plan)
    by_cls: dict[str, list[tuple[str, tuple, tuple]]] = {}
    for key in sorted(openable):
        cls, coords, suffix = _parse_key(key)
        rcls = suffix or cls  # Sink|...|SinkBasin -> SinkBasin
        if rcls not in K["static_receptacles"]:
            continue
        pose = openable[key]
        loc = (round(pose[0] / 0.25), round(pose[1] / 0.25), int(pose[2]) // 90 % 4, int(pose[3]))
        by_cls.setdefault(rcls, []).append((encode_id(cls, coords, suffix), coords, loc))
    # classes the room has but without recorded poses (garbage cans, burners, toilets ...)
    for cls in objects:
        if cls in K["static_receptacles"] and cls not in by_cls and cls not in ("SinkBasin", "BathtubBasin"):
            n = rng.randint(2, 4) if cls == "StoveBurner" else 1
            items = []
            for _ in range(n):
                coords = (round(rng.uniform(-3, 3), 2), round(rng.uniform(0, 1.2), 2), round(rng.uniform(-3, 3), 2))
                loc = (rng.randint(-12, 12), rng.randint(-12, 12), rng.randint(0, 3), rng.choice((0, 15, 30, 45, 60)))
                items.append((encode_id(cls, coords), coords, loc))
            by_cls[cls] = items
    missing = must_have - set(by_cls)
    if missing:
        raise SceneError(f"FloorPlan{plan} lacks {sorted(missing)}")
    out: list[Receptacle] = []
    used_locs: set[str] = set()
    for cls in sorted(by_cls):
        items = by_cls[cls]
        lo, hi = CLASS_CAP.get(cls, (1, DEFAULT_CAP))
        keep = min(len(items), rng.randint(lo, hi))
        chosen = sorted(rng.sample(items, keep))
        for rid, coords, loc in chosen:
            name = encode_loc(loc)
            while name in used_locs:  # one location per receptacle keeps `go to` unambiguous
                loc = (loc[0], loc[1], loc[2], loc[3] + 15)
                name = encode_loc(loc)
            used_locs.add(name)
            out.append(Receptacle(rid, cls, name, coords))
    return out


def _new_obj_id(rng: random.Random, cls: str, near: tuple[float, float, float], taken: set[str]) -> str:
    while True:
        x, y, z = (round(v + rng.uniform(-0.45, 0.45), 2) for v in near)
        oid = encode_id(cls, (x, y, z))
        if oid not in taken:
            taken.add(oid)
            return oid


def _can_hold(recep_cls: str, obj_cls: str) -> bool:
    return obj_cls in knowledge()["recep_objects"].get(recep_cls, ())


def build_scene(rng: random.Random, task_type: str) -> Scene:
    """Sample a room and a solvable-looking task of `task_type` (raises SceneError to retry)."""
    K = knowledge()
    room = rng.choice(TASK_ROOMS[task_type])
    plan = rng.choice(list(ROOM_PLANS[room]))
    room_objects, _ = floor_plan(plan)
    appliance = TASK_APPLIANCE.get(task_type)
    must = {appliance} if appliance else set()
    if task_type == "examine" and "DeskLamp" not in room_objects:
        raise SceneError(f"FloorPlan{plan} has no desk lamp")
    receps = _receptacles(rng, plan, must)
    rclasses = sorted({r.cls for r in receps})
    if len(receps) < 4:
        raise SceneError("too few receptacles")

    # object classes this room has that can be put somewhere here
    candidates = sorted(
        c for c in room_objects if c in K["pickupable"] and any(_can_hold(rc, c) for rc in rclasses)
    )
    if task_type == "heat":
        pool = [c for c in candidates if c in K["heatable"]]
    elif task_type == "cool":
        pool = [c for c in candidates if c in K["coolable"]]
    elif task_type == "clean":
        pool = [c for c in candidates if c in K["cleanable"]]
    else:
        pool = list(candidates)
    if not pool:
        raise SceneError("no suitable target object")
    obj_cls = rng.choice(pool)

    # target receptacle class: can hold the object, is not the task's appliance, and
    # there is somewhere else to start the object from.
    targets = [
        rc for rc in rclasses
        if _can_hold(rc, obj_cls) and rc != appliance and rc not in NON_TARGET_RECEPTACLES
        and rc not in TASK_BAD_TARGETS.get(task_type, ())
    ]
    rng.shuffle(targets)
    start_options: list[Receptacle] = []
    recep_cls = ""
    for rc in targets:
        start_options = [r for r in receps if r.cls != rc and _can_hold(r.cls, obj_cls)]
        if start_options:
            recep_cls = rc
            break
    if not recep_cls:
        raise SceneError("no target receptacle")

    taken: set[str] = set()
    objects: list[Obj] = []
    by_id = {r.id: r for r in receps}

    def place(cls: str, options: list[Receptacle]) -> None:
        r = rng.choice(options)
        objects.append(Obj(_new_obj_id(rng, cls, r.coords, taken), cls, r.id))

    # target instances
    n_target = rng.randint(2, 3) if task_type == "puttwo" else rng.randint(1, 3)
    closed = [r for r in start_options if r.cls in K["openable"]]
    hidden = bool(closed) and rng.random() < 0.45
    for i in range(n_target):
        place(obj_cls, closed if (hidden and i == 0) else start_options)

    # the lamp for examine tasks
    toggle_cls = ""
    if task_type == "examine":
        holders = [r for r in receps if r.cls in LAMP_HOLDERS]
        if not holders:
            raise SceneError("nowhere to put the desk lamp")
        toggle_cls = "DeskLamp"
        place("DeskLamp", holders)
    elif "DeskLamp" in room_objects:
        holders = [r for r in receps if r.cls in LAMP_HOLDERS]
        if holders and rng.random() < 0.7:
            place("DeskLamp", holders)

    # distractors: other classes from the same room
    others = [c for c in candidates if c != obj_cls]
    rng.shuffle(others)
    n_distract = rng.randint(6, 12)
    for i in range(n_distract):
        if not others:
            break
        cls = others[i % len(others)]
        options = [r for r in receps if _can_hold(r.cls, cls)]
        if options:
            place(cls, options)

    # the agent starts away from every receptacle ("in the middle of a room")
    used = {r.loc for r in receps}
    while True:
        start = encode_loc((rng.randint(-6, 6), rng.randint(-6, 6), rng.randint(0, 3), 30))
        if start not in used:
            break

    objects.sort(key=lambda o: o.id)
    assert all(o.recep in by_id for o in objects)
    return Scene(
        room=room, plan=plan, task_type=task_type, obj_cls=obj_cls, recep_cls=recep_cls,
        toggle_cls=toggle_cls, start_loc=start, receptacles=receps, objects=objects, hidden_target=hidden,
    )
