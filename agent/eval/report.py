"""The evaluation report (`report.json`, `recode.eval.v1`): the plan, the episodes so far, and what is left to play.

Apart from `agent.eval.batch` (which runs the episodes and rewrites the
report after each) so the file format and its reading are one place.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agent.eval.failure import group_failures
from agent.eval.report_fields import REPORT_VERSION, WHAT_TO_DO, report_problem
from agent.eval.results import EpisodeResult, EvalPlan, EpisodeSpec
from agent.eval.summary import summarize, summarize_agents
from agent.runtime.typed_record import UnknownVersion, Upgrade, upgraded

REPORT_FILE = "report.json"


@dataclass
class EvalReport:
    plan: EvalPlan
    episodes: list[EpisodeResult] = field(default_factory=list)
    status: str = "running"  # running | complete | interrupted | aborted
    note: str = ""
    started: float = field(default_factory=time.time)
    updated: float = 0.0
    elapsed: float = 0.0  # seconds spent running, summed over resumes
    concurrency_used: list[int] = field(default_factory=list)  # episodes really at a time, per run (resumes append)

    @property
    def remaining(self) -> list[EpisodeSpec]:
        """The games some agent has still to play (all of them once, for a one-agent plan)."""
        left = {g.id for _, g, _ in self.pending}
        return [g for g in self.plan.games if g.id in left]

    @property
    def pending(self) -> list[tuple[str, EpisodeSpec, int]]:
        """(agent, game, repeat) still to play: repeat by repeat (an interrupted run keeps whole
        repeats), agent by agent within one (a comparison runs the same games for each)."""
        if self.plan.multi:
            played = {(e.agent, e.game, e.repeat) for e in self.episodes}
        else:
            played = {(self.plan.run.agent.name, e.game, e.repeat) for e in self.episodes}
        return [(a, g, r) for r in range(1, max(1, self.plan.repeat) + 1) for a in self.plan.compared
                for g in self.plan.games if (a, g.id, r) not in played]

    @property
    def total(self) -> int:
        """Episodes the plan holds: games times agents times repeats."""
        return len(self.plan.games) * len(self.plan.compared) * max(1, self.plan.repeat)

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": REPORT_VERSION,
            "status": self.status,
            "note": self.note,
            "started": self.started,
            "updated": self.updated,
            "elapsed": self.elapsed,
            "concurrency_used": self.concurrency_used,
            "plan": self.plan.to_dict(),
            "summary": summarize(self.episodes, self.plan.run.env.name, self.plan.repeat),
            **({"by_agent": summarize_agents(self.episodes, self.plan.agents, self.plan.run.env.name, self.plan.repeat)}
               if self.plan.multi else {}),
            "failures": [
                {"where": g.key, "went_wrong": g.went_wrong, "ended_in": g.ended_in, "task_types": g.task_types,
                 "count": len(g.episodes), "of": g.of_task_type, **({"agent": g.agent} if g.agent else {}),
                 "line": g.line(), "episodes": g.names}
                for g in group_failures(self.episodes)
            ],
            "episodes": [self._episode_dict(e) for e in self.episodes],
        }

    def _episode_dict(self, episode: EpisodeResult) -> dict[str, Any]:
        data = asdict(episode)
        if not self.plan.multi and not episode.agent:
            data.pop("agent")
        if not episode.roles:
            data.pop("roles")
        if not episode.cached_calls and self.plan.cache == "off":
            data.pop("cached_calls")
        if self.plan.repeat == 1:  # a report without repeats stays as it was
            for key in ("repeat", "seed", "temperature"):
                data.pop(key)
        return data

    def write(self, path: Path) -> None:
        """Atomically replace the report file."""
        self.updated = time.time()
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_name(path.name + ".tmp")
        with open(temp, "w", encoding="utf-8") as handle:
            json.dump(self.to_dict(), handle, indent=2)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)

    @classmethod
    def read(cls, path: Path) -> "EvalReport":
        """Read a report; raises ValueError with a one-line reason that says what to do."""
        return cls.checked(read_json(path), path)

    @classmethod
    def checked(cls, data: dict[str, Any], path: Path | str) -> "EvalReport":
        """The record of a report file's JSON; ValueError (one line naming the field and what to do) when a
        field does not hold what the record needs."""
        problem = report_problem(data, cls)
        if problem:
            raise ValueError(f"report {path}: {problem}")
        return cls.from_json(data)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "EvalReport":
        """A report checked by `report_problem`; what an earlier version did not write gets its default here
        (the plan's, in `EvalPlan.from_dict`)."""
        known = set(EpisodeResult.__dataclass_fields__)
        return cls(
            plan=EvalPlan.from_dict(data["plan"]),
            episodes=[EpisodeResult(**{"task_type": None, "reason": "", **{k: v for k, v in e.items() if k in known}})
                      for e in data.get("episodes", [])],
            status=data.get("status", "interrupted"),
            note=data.get("note", ""),
            started=data.get("started", time.time()),
            updated=data.get("updated", 0.0),
            elapsed=data.get("elapsed", 0.0),
            concurrency_used=list(data.get("concurrency_used", [])),
        )


def read_json(path: Path) -> dict[str, Any]:
    """A report file's JSON, of this report version, for `EvalReport.checked`; ValueError with a one-line
    reason that says what to do (a path that is no report, a cut file, a report of another version)."""
    given = "give an eval folder or its report.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"no report at {path}; {given}") from None
    except OSError as exc:
        raise ValueError(f"cannot read report {path}: {exc.strerror}; {given}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not JSON (line {exc.lineno}), so not an evaluation report; {given}, "
                         f"or if it is one: {WHAT_TO_DO}") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not text, so not an evaluation report; {given}") from None
    version = data.get("version") if isinstance(data, dict) else None
    if not isinstance(version, str) or not version.startswith("recode.eval."):
        raise ValueError(f"{path} is not a recode-tui evaluation report ({REPORT_VERSION}); {given}")
    try:
        return upgraded(data, REPORT_UPGRADES, REPORT_VERSION)
    except UnknownVersion:
        raise ValueError(f"{path} is report version {version!r}; this recode-tui reads {REPORT_VERSION}: "
                         "open it with the recode-tui that wrote it") from None


# The report's own format has had one version (its plan has its own, `PLAN_UPGRADES`): a later one adds its
# named step here, as the journal's header and the plan do.
REPORT_UPGRADES: dict[str | None, Upgrade] = {}
