"""What an evaluation plans (`EvalPlan`, its `EpisodeSpec`s) and what each episode yields (`EpisodeResult`): plain data.

Apart from `agent.eval.batch`, which schedules and runs the episodes: the
summaries, the report file and the comparisons read these types without
running anything.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from agent.run.spec import EnvChoice, RunSpec
from agent.sandbox.settings import NOT_A_SETTING
from agent.runtime.typed_record import read_record, upgraded, written
from envs.registry import default_env


@dataclass(frozen=True)
class EpisodeSpec:
    """One episode of the plan: its id within the plan's environment (`put-01`, `boil/21`).

    `path` is only in reports written before the environment seam (ALFWorld's game file).
    """

    id: str
    task_type: str | None = None
    path: str = ""


@dataclass
class EpisodeResult:
    game: str
    task_type: str | None
    success: bool
    reason: str
    steps: int = 0
    llm_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    seconds: float = 0.0
    llm_seconds: float = 0.0  # of `seconds`, waiting for the LLM's answers
    person_seconds: float = 0.0  # a person's time (never in an eval's own runs; kept apart from llm_seconds)
    llm_failures: int = 0  # model calls that failed (journaled as `llm_failed` records)
    journal: str = ""
    error: str = ""  # set when the episode crashed rather than just failed the task
    score: float | None = None  # the env's own score at the end, when it has one (ScienceWorld: 0-100)
    failure: dict[str, Any] | None = None  # why it failed: last steps, deepest stub, ending node (agent.eval.failure)
    agent: str = ""  # set in a multi-agent evaluation: which agent played it ("" is the plan's one agent)
    roles: dict[str, dict[str, Any]] = field(default_factory=dict)  # per LLM role (agents with several): calls, tokens, cost
    cached_calls: int = 0  # of `llm_calls`, answered from the response cache (no cost)
    repeat: int = 1  # which play of the game this is (eval --repeat), from 1
    seed: int | None = None  # the seed its model calls carried (a repeat's own), when the model takes one
    temperature: float | None = None  # its model's sampling temperature, when a model answered

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens


PLAN_VERSION = "recode.eval-plan.v2"  # the plan's own format, written in the report beside the report's version

DEFAULT_EPISODE_TIMEOUT = 1800.0  # eval --episode-timeout: half an hour, far beyond an episode's normal length


def wall_clock_reason(seconds: float) -> str:
    """Why an episode over its wall clock failed, as the report and the table say it."""
    return f"episode wall clock {seconds:g} s exceeded"


@dataclass
class EvalPlan:
    """What an evaluation runs; stored in the report so `--resume` needs nothing else.

    `run` is the run's one record (`agent.run.spec.RunSpec`: the first agent, its options, preset, step limit
    (None: each episode's own), limits, prompts, model, runner, sandbox, environment), beside what only an
    evaluation has: its episodes, the agents compared, how many at once, the clock, cache and repeats.
    """

    # which episodes and how they were picked (compared episode by episode), how many ran at once: not settings
    games: list[EpisodeSpec] = field(metadata=NOT_A_SETTING)
    run: RunSpec = field(default_factory=lambda: RunSpec(env=EnvChoice(default_env())))
    concurrency: int = field(default=4, metadata=NOT_A_SETTING)
    selection: dict[str, Any] = field(default_factory=dict, metadata=NOT_A_SETTING)  # the filter, for the record
    # wall-clock seconds an episode may take, everything included (0: no limit); one that hangs is ended
    episode_timeout: float = DEFAULT_EPISODE_TIMEOUT
    # a comparison: every game is played by each of these agents in turn (empty: `run.agent` alone);
    # `options_by_agent` holds each one's own `--agent-option` values
    agents: list[str] = field(default_factory=list, metadata=NOT_A_SETTING)
    options_by_agent: dict[str, dict[str, Any]] = field(default_factory=dict, metadata=NOT_A_SETTING)
    # episode -> why its own gold path cannot win within its step limit (ScienceWorld's paper set; None: not computed)
    gold_cannot_win: dict[str, str] | None = field(default=None, metadata=NOT_A_SETTING)
    # the response cache (agent.llm.cache): "on" (--cache), "off" (--no-cache), "profile" (each profile's `cache`)
    cache: str = "profile"
    cache_ttl: float | None = None  # seconds (--cache-ttl); None: the profile's, else a week
    cache_dir: str | None = field(default=None, metadata=NOT_A_SETTING)  # None: $RECODE_TUI_CACHE or the user cache dir
    # eval --repeat N: every (agent, game) is played N times; tables show a 95 % interval (compare says it apart)
    repeat: int = field(default=1, metadata=NOT_A_SETTING)
    version: str = field(default=PLAN_VERSION, metadata=NOT_A_SETTING)

    @property
    def compared(self) -> list[str]:
        """The agents that play every game: several for a comparison, else the one agent."""
        return list(self.agents) if len(self.agents) > 1 else [self.run.agent.name]

    @property
    def multi(self) -> bool:
        return len(self.agents) > 1

    def options_for(self, agent_name: str) -> dict[str, Any]:
        return dict(self.options_by_agent.get(agent_name, {})) if self.multi else dict(self.run.agent.options)

    def to_dict(self) -> dict[str, Any]:
        """The plan as written: every field, whatever its value."""
        return written(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "EvalPlan":
        """A plan checked by `report_problem` (which upgraded an older version's first, `plan_upgraded`)."""
        return read_record(cls, plan_upgraded(data))


# ---------------------------------------------------------------------- older versions
# v1 (and plans written before plans had a version): the run's settings flat beside the evaluation's.
_V1_RUN = {"agent": ("agent", "name"), "agent_options": ("agent", "options"), "preset": ("preset",),
           "max_steps": ("max_steps",), "limits": ("limits",), "prompts": ("prompts", "path"),
           "llm": ("model", "llm"), "profiles": ("model", "profiles"), "trusted": ("runner", "trusted"),
           "node_timeout": ("runner", "node_timeout"), "sandbox": ("sandbox",), "env": ("env", "name"),
           "env_settings": ("env", "options")}
_V1_DEFAULTS = {"max_steps": 80}  # v1's own default step limit (an absent one), unlike the record's None


def plan_v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    """A v1 plan: its flat settings moved into `run`'s parts; what it left out takes v1's default."""
    out = {k: v for k, v in data.items() if k not in _V1_RUN}
    run: dict[str, Any] = {"env": {"name": default_env()}}
    for old, path in _V1_RUN.items():
        if old not in data and old not in _V1_DEFAULTS:
            continue
        part = run
        for key in path[:-1]:
            part = part.setdefault(key, {})
        part[path[-1]] = data.get(old, _V1_DEFAULTS.get(old))
    if isinstance(out.get("games"), list):  # v1 wrote a game's `path` only when set
        out["games"] = [{"path": "", **g} if isinstance(g, dict) else g for g in out["games"]]
    out["run"], out["version"] = run, PLAN_VERSION
    return out


PLAN_UPGRADES = {None: plan_v1_to_v2, "recode.eval-plan.v1": plan_v1_to_v2}


def plan_upgraded(data: dict[str, Any]) -> dict[str, Any]:
    """A plan as this version writes it (`PLAN_UPGRADES`); UnknownVersion for one no release wrote."""
    return upgraded(data, PLAN_UPGRADES, PLAN_VERSION)
