"""What an evaluation plans (`EvalPlan`, its `EpisodeSpec`s) and what each episode yields (`EpisodeResult`): plain data.

Apart from `agent.eval.batch`, which schedules and runs the episodes: the
summaries, the report file and the comparisons read these types without
running anything.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from agent.runtime.limits import Limits
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


PLAN_VERSION = "recode.eval-plan.v1"  # the plan's own format, written in the report beside the report's version

DEFAULT_EPISODE_TIMEOUT = 1800.0  # eval --episode-timeout: half an hour, far beyond an episode's normal length


def wall_clock_reason(seconds: float) -> str:
    """Why an episode over its wall clock failed, as the report and the table say it."""
    return f"episode wall clock {seconds:g} s exceeded"


@dataclass
class EvalPlan:
    """What an evaluation runs; stored in the report so `--resume` needs nothing else."""

    llm: str
    games: list[EpisodeSpec]
    env: str = field(default_factory=default_env)  # a report written before environments: the default one
    concurrency: int = 4
    max_steps: int | None = 80  # None: each episode's own limit (ScienceWorld's per-task ones)
    limits: dict[str, Any] = field(default_factory=lambda: asdict(Limits()))  # Limits' fields (ints and a bool)
    prompts: str | None = None
    selection: dict[str, Any] = field(default_factory=dict)  # the filter, for the record
    preset: str = "default"  # agent.agents.presets: which named settings the limits came from
    trusted: bool = False  # the sandbox without its static checks (agent.sandbox.settings)
    node_timeout: float = 5.0
    # wall-clock seconds an episode may take, everything included (0: no limit); one that hangs is ended
    episode_timeout: float = DEFAULT_EPISODE_TIMEOUT
    # the sandbox node code had (agent.sandbox.walls.in_force: layers, walls raised, strict or weak); None: not recorded
    sandbox: str | None = None
    profiles: str | None = None  # the profiles file (absolute) a profile:NAME came from: `--resume` needs no --profiles
    agent: str = "recode"  # agent.agents: which agent ran every episode (the first one, with `agents`)
    agent_options: dict[str, Any] = field(default_factory=dict)
    # a comparison: every game is played by each of these agents in turn (empty: `agent` alone);
    # `options_by_agent` holds each one's own `--agent-option` values
    agents: list[str] = field(default_factory=list)
    options_by_agent: dict[str, dict[str, Any]] = field(default_factory=dict)
    # episode -> why its own gold path cannot win within its step limit (ScienceWorld's paper set; None: not computed)
    gold_cannot_win: dict[str, str] | None = None
    # the response cache (agent.llm.cache): "on" (--cache), "off" (--no-cache), "profile" (each profile's `cache`)
    cache: str = "profile"
    cache_ttl: float | None = None  # seconds (--cache-ttl); None: the profile's, else a week
    cache_dir: str | None = None  # None: $RECODE_TUI_CACHE or the user cache dir
    repeat: int = 1  # eval --repeat N: every (agent, game) is played N times; tables show a 95 % interval
    env_settings: dict[str, str] = field(default_factory=dict)  # how the env scored and showed (WebShop's nouns)
    version: str = PLAN_VERSION

    @property
    def compared(self) -> list[str]:
        """The agents that play every game: several for a comparison, else the one agent."""
        return list(self.agents) if len(self.agents) > 1 else [self.agent]

    @property
    def multi(self) -> bool:
        return len(self.agents) > 1

    def options_for(self, agent_name: str) -> dict[str, Any]:
        return dict(self.options_by_agent.get(agent_name, {})) if self.multi else dict(self.agent_options)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        if not self.multi:  # a one-agent report stays as it always was
            data.pop("agents"), data.pop("options_by_agent")
        if self.gold_cannot_win is None:
            data.pop("gold_cannot_win")
        if self.repeat == 1:
            data.pop("repeat")
        if self.episode_timeout == DEFAULT_EPISODE_TIMEOUT:  # the default: a report stays as it was
            data.pop("episode_timeout")
        if self.sandbox is None:  # a report from before it was recorded stays as it was
            data.pop("sandbox")
        if not self.env_settings:
            data.pop("env_settings")
        if self.cache == "profile" and self.cache_ttl is None and self.cache_dir is None:
            for key in ("cache", "cache_ttl", "cache_dir"):  # the default: a report stays as it was
                data.pop(key)
        data["games"] = [{k: v for k, v in asdict(g).items() if k != "path" or v} for g in self.games]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "EvalPlan":
        """A plan checked by `report_problem`. One without a version was written before plans had one:
        the same fields, those it lacks taking their defaults here, and read as this version."""
        data = {**data, "version": PLAN_VERSION}
        known_game = set(EpisodeSpec.__dataclass_fields__)
        data["games"] = [EpisodeSpec(**{k: v for k, v in g.items() if k in known_game}) for g in data.get("games", [])]
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in known})
