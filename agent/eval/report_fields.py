"""What each field of an evaluation report (`report.json`) must hold, checked before anything reads it.

The report's reader (`EvalReport.read`, which `eval --resume`, `export --sft` and eval's journal
index use) and `compare`'s (which also takes other shapes of report) both check a file here first,
so a report that was edited by hand or cut short is refused in one line naming the field, not
met as a TypeError or a wrong number somewhere below. A field that is absent is not checked:
each reader gives a report written by an earlier version its own record's defaults.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

REPORT_VERSION = "recode.eval.v1"

Check = tuple[Callable[[Any], bool], str]


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


TEXT: Check = (lambda v: isinstance(v, str), "text")
WHOLE: Check = (_whole, "a whole number")
NUMBER: Check = (_number, "a number")
FLAG: Check = (lambda v: isinstance(v, bool), "true or false")
OBJECT: Check = (lambda v: isinstance(v, dict), "an object")
LIST: Check = (lambda v: isinstance(v, list), "a list")

# A value of None is accepted where the record's field may be None (`max_steps`, `prompts`, ...).
PLAN_FIELDS: dict[str, tuple[Check, bool]] = {
    "llm": (TEXT, False), "games": (LIST, False), "env": (TEXT, False), "concurrency": (WHOLE, False),
    "max_steps": (WHOLE, True), "limits": (OBJECT, False), "prompts": (TEXT, True), "selection": (OBJECT, False),
    "preset": (TEXT, False), "trusted": (FLAG, False), "node_timeout": (NUMBER, False),
    "episode_timeout": (NUMBER, False), "profiles": (TEXT, True), "agent": (TEXT, False),
    "agent_options": (OBJECT, False), "agents": (LIST, False), "options_by_agent": (OBJECT, False),
    "gold_cannot_win": (OBJECT, True), "cache": (TEXT, False), "cache_ttl": (NUMBER, True),
    "cache_dir": (TEXT, True), "repeat": (WHOLE, False), "env_settings": (OBJECT, False),
}
GAME_FIELDS: dict[str, tuple[Check, bool]] = {"id": (TEXT, False), "task_type": (TEXT, True), "path": (TEXT, False)}
EPISODE_FIELDS: dict[str, tuple[Check, bool]] = {
    "game": (TEXT, False), "task_type": (TEXT, True), "success": (FLAG, False), "reason": (TEXT, False),
    "steps": (WHOLE, False), "llm_calls": (WHOLE, False), "input_tokens": (WHOLE, False),
    "output_tokens": (WHOLE, False), "cost": (NUMBER, False), "seconds": (NUMBER, False),
    "llm_seconds": (NUMBER, False), "person_seconds": (NUMBER, False), "llm_failures": (WHOLE, False),
    "journal": (TEXT, False), "error": (TEXT, False), "score": (NUMBER, True), "failure": (OBJECT, True),
    "agent": (TEXT, False), "roles": (OBJECT, False), "cached_calls": (WHOLE, False), "repeat": (WHOLE, False),
    "seed": (WHOLE, True), "temperature": (NUMBER, True),
}
REPORT_FIELDS: dict[str, tuple[Check, bool]] = {
    "status": (TEXT, False), "note": (TEXT, False), "started": (NUMBER, False), "updated": (NUMBER, False),
    "elapsed": (NUMBER, False), "concurrency_used": (LIST, False), "plan": (OBJECT, False),
    "episodes": (LIST, False),
}
# What the report's own reader cannot do without (`compare` also takes reports naming episodes otherwise).
REQUIRED = {"": ("plan",), "plan.": ("llm",), "game": ("id",), "episode": ("game", "success")}
WHAT_TO_DO = "restore report.json from a copy or start the evaluation again"


def field_problem(where: str, data: Any, fields: Mapping[str, tuple[Check, bool]], required: tuple[str, ...] = ()) -> str:
    """'' when `data` is an object whose fields named in `fields` hold their kinds and that has the `required`
    ones; else what is wrong with the first that does not."""
    if not isinstance(data, dict):
        return f"`{where.rstrip('.')}` is {_shown(data)}, not an object"
    missing = next((n for n in required if n not in data), None)
    if missing:
        return f"`{where}{missing}` is missing"
    for name, ((ok, kind), may_be_none) in fields.items():
        if name not in data or (data[name] is None and may_be_none) or ok(data[name]):
            continue
        return f"`{where}{name}` is {_shown(data[name])}, not {kind}"
    return ""


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def report_problem(data: Any, strict: bool = True) -> str:
    """'' for a report whose fields hold their kinds; else one line saying which does not and what to do.

    `strict`: the fields the report's own reader needs must be there too."""
    def need(part: str) -> tuple[str, ...]:
        return REQUIRED[part] if strict else ()

    problem = field_problem("", data, REPORT_FIELDS, need(""))
    plan = data.get("plan") if not problem else None
    if isinstance(plan, dict):
        problem = field_problem("plan.", plan, PLAN_FIELDS, need("plan."))
        for index, game in enumerate(plan.get("games") or [] if not problem else []):
            if strict or isinstance(game, dict):  # `compare` also reads a plan listing bare ids
                problem = problem or field_problem(f"plan.games[{index}].", game, GAME_FIELDS, need("game"))
    for index, episode in enumerate(data.get("episodes") or [] if not problem else []):
        problem = problem or field_problem(f"episodes[{index}].", episode, EPISODE_FIELDS, need("episode"))
    return f"its {problem}; {WHAT_TO_DO}" if problem else ""
