"""What each field of an evaluation report (`report.json`) must hold, checked before anything reads it.

The report's one loader (`agent.eval.report`, which `eval --resume`, `export --sft`, eval's journal
index and `compare` use) checks a file here first, so a report that was edited by hand or cut short
is refused in one line naming the field, not met as a TypeError or a wrong number somewhere below.
A field that is absent is not checked: the loader gives a report written by an earlier version its
record's defaults.
"""

from __future__ import annotations

from typing import Any

from agent.eval.results import PLAN_UPGRADES, PLAN_VERSION, plan_upgraded
from agent.runtime.typed_record import RecordFieldError, UnknownVersion, check_record

REPORT_VERSION = "recode.eval.v1"

# What the loader cannot do without, though the records give them defaults or lists of them: every version wrote these.
REQUIRED = {"": ("plan",), "game": ("id",), "episode": ("game", "success")}
WHAT_TO_DO = "restore report.json from a copy or start the evaluation again"


def report_problem(data: Any, record: type) -> str:
    """'' for a report that has the fields the loader needs and whose fields hold their kinds; else one
    line saying which does not and what to do. The kinds are the annotations of `record` (the report's
    dataclass, `EvalReport`) and of the records in it (`EvalPlan`, `EpisodeSpec`, `EpisodeResult`), checked
    by `agent.runtime.typed_record`."""
    problem = _missing("", data, REQUIRED[""])
    plan = data.get("plan") if not problem else None
    if isinstance(plan, dict):
        try:
            plan = plan_upgraded(plan)  # an older version's plan, as this version writes it
        except UnknownVersion as exc:
            return (f"its plan is version {exc.version!r}; this recode-tui reads {PLAN_VERSION} plans and "
                    f"{', '.join(str(v) for v in PLAN_UPGRADES if v)}: open it with the recode-tui that wrote it")
        data = {**data, "plan": plan}
    if not problem and isinstance(plan, dict):
        games = plan.get("games")
        for index, game in enumerate(games if isinstance(games, list) else []):
            problem = problem or _missing(f"plan.games[{index}].", game, REQUIRED["game"])
    episodes = data.get("episodes") if not problem else None
    for index, episode in enumerate(episodes if isinstance(episodes, list) else []):
        problem = problem or _missing(f"episodes[{index}].", episode, REQUIRED["episode"])
    if not problem:
        try:
            check_record(record, data, strict_none=True)
        except RecordFieldError as exc:
            problem = str(exc)
    return f"its {problem}; {WHAT_TO_DO}" if problem else ""


def _missing(where: str, data: Any, required: tuple[str, ...]) -> str:
    """'' when `data` is an object with the `required` fields; else what is wrong with it."""
    if not isinstance(data, dict):
        shown = repr(data) if len(repr(data)) <= 40 else repr(data)[:37] + "..."
        return f"`{where.rstrip('.')}` is {shown}, not an object"
    missing = next((n for n in required if n not in data), None)
    return f"`{where}{missing}` is missing" if missing else ""
