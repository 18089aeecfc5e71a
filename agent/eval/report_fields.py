"""What each field of an evaluation report (`report.json`) must hold, checked before anything reads it.

The report's one loader (`agent.eval.report`, which `eval --resume`, `export --sft`, eval's journal
index and `compare` use) checks a file here first, so a report that was edited by hand or cut short
is refused in one line naming the field, not met as a TypeError or a wrong number somewhere below.
A field that is absent is not checked: the loader gives a report written by an earlier version its
record's defaults.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from agent.eval.results import PLAN_VERSION

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
    "cache_dir": (TEXT, True), "repeat": (WHOLE, False), "env_settings": (OBJECT, False), "version": (TEXT, False),
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
# What the loader cannot do without: every version of recode-tui wrote these.
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


def report_problem(data: Any) -> str:
    """'' for a report that has the fields the loader needs and whose fields hold their kinds; else one
    line saying which does not and what to do."""
    problem = field_problem("", data, REPORT_FIELDS, REQUIRED[""])
    plan = data.get("plan") if not problem else None
    version = plan.get("version", PLAN_VERSION) if isinstance(plan, dict) else PLAN_VERSION
    if version != PLAN_VERSION:
        return (f"its plan is version {version!r}; this recode-tui reads {PLAN_VERSION} plans: "
                "open it with the recode-tui that wrote it")
    if isinstance(plan, dict):
        problem = field_problem("plan.", plan, PLAN_FIELDS, REQUIRED["plan."])
        for index, game in enumerate(plan.get("games") or [] if not problem else []):
            problem = problem or field_problem(f"plan.games[{index}].", game, GAME_FIELDS, REQUIRED["game"])
    for index, episode in enumerate(data.get("episodes") or [] if not problem else []):
        problem = problem or field_problem(f"episodes[{index}].", episode, EPISODE_FIELDS, REQUIRED["episode"])
    return f"its {problem}; {WHAT_TO_DO}" if problem else ""
