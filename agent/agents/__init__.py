"""The agent registry: a name on the command line (`--agent NAME`) to a stepper class.

Every agent is a `agent.runtime.stepper.Stepper` subclass built the same way, so run,
the console, eval, resume and fork build any of them through `build_agent` from the run's
`agent.run.spec.RunSpec`. A new agent is one package (its stepper and its prompt folder) and one
line in `AGENTS`; a test may `register` a throwaway one.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent.llm import LLM
    from agent.runtime.prompts import PromptSet
    from agent.runtime.runner import CodeRunner
    from agent.runtime.stepper import Stepper
    from agent.run.spec import RunSpec
    from agent.runtime.tree import NodeStatus
    from envs.base import Env

DEFAULT_AGENT = "recode"


@dataclass(frozen=True)
class AgentEntry:
    name: str
    target: str  # "package.module:Class", imported when first used
    summary: str

    def load(self) -> type["Stepper"]:
        module, _, attr = self.target.partition(":")
        return getattr(importlib.import_module(module), attr)  # dynamic: the `module:Class` of the entry


AGENTS: dict[str, AgentEntry] = {
    entry.name: entry
    for entry in (
        AgentEntry("recode", "agent.agents.recode.engine:Engine", "plans as code; undefined calls are expanded recursively"),
        AgentEntry("react", "agent.agents.react.agent:ReActAgent", "think one step, act one step, observe, repeat"),
        AgentEntry("codeact", "agent.agents.codeact.agent:CodeActAgent", "write a code cell, run it, see its output, repeat"),
        AgentEntry("plan-execute", "agent.agents.plan_execute.agent:PlanExecuteAgent",
                   "a planner writes a JSON plan, an executor runs each step, a replanner revises"),
        AgentEntry("recap", "agent.agents.recap.agent:RecapAgent",
                   "recursive plan-ahead subtasks in one windowed conversation; the parent's plan re-injected on return"),
    )
}


class UnknownAgent(ValueError):
    """An agent name nobody registered; the message lists the ones there are."""


def names() -> list[str]:
    return list(AGENTS)


def register(name: str, target: str, summary: str = "") -> None:
    """Add an agent (a test's throwaway one, a plug-in) under `name`."""
    AGENTS[name] = AgentEntry(name, target, summary)


def agent_class(name: str | None) -> type["Stepper"]:
    entry = AGENTS.get(name or DEFAULT_AGENT)
    if entry is None:
        raise UnknownAgent(f"unknown agent {name!r}: choose one of {', '.join(AGENTS)} (--agent NAME)")
    return entry.load()


def status_words(name: str | None, status: "NodeStatus") -> str:
    """How agent `name` reads a node's status in a pane: its own word for one waiting on an LLM call
    (ReCode's `stub`), the generic words otherwise and for an agent not installed here."""
    from agent.runtime.tree import NodeStatus  # light; the registry's import stays free of the runtime

    if status is not NodeStatus.AWAITING_LLM:
        return status.words
    try:
        return agent_class(name).traits.awaiting_llm_word
    except UnknownAgent:
        return status.words


def parse_options(pairs: list[str] | None, name: str | None = None) -> dict[str, Any]:
    """`--agent-option KEY=VALUE` pairs, each value read as the type of the agent's default."""
    defaults = agent_class(name).option_defaults
    options: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key:
            raise ValueError(f"--agent-option {pair!r}: write KEY=VALUE")
        if key not in defaults:
            known = ", ".join(f"{k}={v}" for k, v in defaults.items()) or "none"
            raise ValueError(f"--agent-option {key}: agent {name or DEFAULT_AGENT} has no such option (it has: {known})")
        options[key] = _as_type_of(defaults[key], value.strip(), key)
    return options


def _as_type_of(default: Any, value: str, key: str) -> Any:
    try:
        if isinstance(default, bool):
            if value.lower() not in ("true", "false", "1", "0", "yes", "no", "on", "off"):
                raise ValueError(value)
            return value.lower() in ("true", "1", "yes", "on")
        if isinstance(default, int):
            return int(value)
        if isinstance(default, float):
            return float(value)
    except ValueError:
        kind = {"int": "an integer", "float": "a number", "bool": "true or false"}.get(type(default).__name__,
                                                                                     type(default).__name__)
        raise ValueError(f"--agent-option {key}={value}: expected {kind}") from None
    return value


def build_agent(spec: "RunSpec", env: "Env", llm: "LLM", runner: "CodeRunner | None" = None, *,
                prompts: "PromptSet | None" = None) -> "Stepper":
    """The agent `spec` names, with its options, limits, prompt set and preset, stepping `env` and asking
    `llm`: the one way every front end builds one (run and the console from their flags, eval from its
    plan, a resume from the journal's header).

    Node code runs in a runner made from `spec.runner` (sandboxed; `trusted` only drops the static
    checks); `runner` is one already made from the same settings (eval's pre-started spares). `prompts`
    is the set already read (None: read from `spec.prompts.path`, else the agent's own). A routed
    `llm` (`--llm planner=...,executor=...`) gives each role its own LLM. Raises `UnknownAgent` for a
    name nobody registered and `routing.RoleError` for a routed role the agent does not have (both
    ValueErrors of one line); the caller owns `env` and closes it.
    """
    from pathlib import Path

    from agent.llm.routing import install
    from agent.runtime.prompts import PromptSet, moved_prompt_set

    cls = agent_class(spec.agent.name)
    if prompts is None and spec.prompts.path:
        prompts = PromptSet(moved_prompt_set(Path(spec.prompts.path)))
    stepper = cls(env, llm, runner or spec.runner.make_runner(), limits=spec.limits, prompts=prompts,
                  options=dict(spec.agent.options))
    install(stepper.host, llm, stepper.name, stepper.roles)
    stepper.host.preset = spec.preset
    return stepper


def _load_plugins() -> None:
    """Plug-in agents named in $RECODE_TUI_PLUGINS register themselves (see envs.registry.load_plugins)."""
    from envs.registry import load_plugins

    load_plugins()


_load_plugins()
