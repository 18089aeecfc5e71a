"""Evaluation plans for tests: the run's record filled in from the few settings a test names."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from agent.eval.results import EpisodeSpec, EvalPlan
from agent.run.spec import AgentChoice, EnvChoice, ModelChoice
from agent.runtime.limits import Limits


def eval_plan(llm: str, games: list[EpisodeSpec], *, env: str | None = None, agent: str | None = None,
              max_steps: int | None = 80, limits: Limits | None = None, **fields: Any) -> EvalPlan:
    """An `EvalPlan` whose record has `llm` (and the environment, agent, step limit (80, the previous
    release's default) and limits given);
    `fields`: the plan's own (concurrency, episode_timeout, repeat, agents, ...)."""
    plan = EvalPlan(games=games, **fields)
    run = replace(plan.run, model=ModelChoice(llm), max_steps=max_steps, limits=limits or Limits())
    if env is not None:
        run = replace(run, env=EnvChoice(env))
    if agent is not None:
        run = replace(run, agent=AgentChoice(agent))
    plan.run = run
    return plan


__all__ = ["eval_plan"]
