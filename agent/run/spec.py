"""One frozen record of what decides a run (`RunSpec`), in typed parts.

It is resolved once at the edge (the flags over the preset, the profiles file, the environment),
handed down whole to the builders, and recorded whole: a journal's header and an evaluation's plan
each embed it as one object, so a resume, fork, replay, `eval --resume`, `diff` and `compare` read
the same parts. A field added to a part is written, read (`agent.runtime.typed_record`), compared
and tested for survival (tests/test_run_spec_survival.py) with no other code.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, Mapping

from agent.runtime.limits import Limits
from agent.sandbox.settings import NOT_A_SETTING, RunnerSettings
from agent.sandbox.walls import SandboxPolicy


@dataclass(frozen=True)
class RunFlags:
    """The flags a `RunSpec` is resolved from, as typed (None: not given): `--agent`, `--agent-option`,
    `--preset`, the limits, `--prompts`, `--trusted` and `--node-timeout` (`agent.agents.presets.resolve`), and
    the sandbox's policy the edge resolved from `--sandbox` and `RECODE_SANDBOX*`.

    `run` and `tui` resolve them at the edge (`recode_tui.setup.build.settings_of`); `eval` where its plan
    is built (`--agent` may name several agents to compare), and a resumed evaluation reads only the runner's two.
    """

    agent: str | None = None
    agent_option: tuple[str, ...] | None = None
    preset: str | None = None
    max_steps: int | None = None
    max_depth: int | None = None
    max_rewrite: int | None = None
    max_retry: int | None = None
    prompts: str | None = None
    trusted: bool = False
    node_timeout: float | None = None
    sandbox: SandboxPolicy = SandboxPolicy()  # the walls and layers the edge resolved (RECODE_SANDBOX*, --sandbox)


@dataclass(frozen=True)
class AgentChoice:
    """Which agent plays (`--agent`) and its options (`--agent-option`)."""

    name: str = "recode"  # agent.agents.DEFAULT_AGENT (this record sits below the registry)
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class PromptChoice:
    """The prompt set: where it was found (None: the agent's bundled set) and what it held."""

    path: str | None = field(default=None, metadata=NOT_A_SETTING)  # where it was found: its hash is the setting
    hash: str | None = None  # PromptSet.content_hash; None until the set is read (the agent is built)
    # each file's hash, so `diff` names the file that differs (it says so apart from the settings)
    files: Mapping[str, str] | None = field(default=None, metadata=NOT_A_SETTING)


@dataclass(frozen=True)
class ModelChoice:
    """Who answers: `--llm` as typed and, for a profile, where its requests went (never the key itself)."""

    llm: str = "human"
    profile: str | None = None  # profile:NAME's NAME
    profiles: str | None = None  # the profiles file (absolute) the profile came from: a resume needs no --profiles
    model: str | None = None  # what the profile called (read when the run started, never later)
    base_url: str | None = None  # where the profile's requests (and key) went
    key_env: str | None = None  # the environment variable the key was read from
    review: bool = False  # the console's --review: the model's answers were proposals a person accepted


@dataclass(frozen=True)
class EnvChoice:
    """The environment and how it scores and shows its episodes (`EnvProvider.env_settings`: WebShop's)."""

    name: str = "alfworld"
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class RunSpec:
    """Everything that decides what a run does but its episode: the agent, the preset and what it filled in
    (step limit, limits, prompt set), the model, the runner and the sandbox it had, the environment."""

    agent: AgentChoice = field(default_factory=AgentChoice)
    preset: str = "default"
    max_steps: int | None = None  # None: the environment's own limit; a journal records the limit played
    max_steps_given: bool = False  # `--max-steps` was typed: it wins over an episode's own limit, a preset's does not
    limits: Limits = field(default_factory=Limits)
    prompts: PromptChoice = field(default_factory=PromptChoice)
    model: ModelChoice = field(default_factory=ModelChoice)
    runner: RunnerSettings = field(default_factory=RunnerSettings)
    # the sandbox node code had (agent.sandbox.walls.in_force: layers, walls raised, strict or weak); None: not recorded
    sandbox: str | None = None
    env: EnvChoice = field(default_factory=EnvChoice)

    def differences(self, other: "RunSpec") -> list[tuple[str, Any, Any]]:
        """(dotted name, this value, the other's) for every leaf that differs, in field order, read from the
        fields themselves through every part: a field added anywhere is compared with no new code."""
        return differences(self, other)


def leaves(record: Any, prefix: str = "", settings_only: bool = False) -> list[tuple[str, Any]]:
    """(dotted name, value) of every leaf of a record, its nested records opened (`model.base_url`);
    `settings_only`: without the fields marked `NOT_A_SETTING` (where a set was found, a run's own seed)."""
    out: list[tuple[str, Any]] = []
    for spec in fields(record):
        if settings_only and spec.metadata.get("setting", True) is False:
            continue
        value = getattr(record, spec.name)  # dynamic: every field
        if is_dataclass(value) and not isinstance(value, type):
            out += leaves(value, f"{prefix}{spec.name}.", settings_only)
        else:
            out.append((prefix + spec.name, value))
    return out


def differences(mine: Any, theirs: Any) -> list[tuple[str, Any, Any]]:
    """Every setting of two records of one type that differs (see `RunSpec.differences`)."""
    return [(name, a, b) for (name, a), (_, b) in zip(leaves(mine, settings_only=True),
                                                      leaves(theirs, settings_only=True)) if a != b]
