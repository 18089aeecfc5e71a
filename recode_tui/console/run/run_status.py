"""The status line's figures of one run, read from its agent: steps, score, depth, calls, tokens, cost.

Kept apart from the debug screen, which adds where the run stands and why
(`DebugScreen.update_status`), and from the `StatusBar` widget, which only draws.
"""

from __future__ import annotations

import time
from typing import TypedDict

from agent.runtime.stepper import Stepper
from mockllm.review import ReviewLLM
from recode_tui.console.run.hosts import is_trusted


class AgentFigures(TypedDict):
    """`StatusBar.show`'s arguments that come from the agent."""

    task_type: str
    steps: int
    max_steps: int
    score: float | None
    reward: float | None
    depth: int
    nodes: int
    llm_calls: int
    tokens: tuple[int, int]
    cost: float
    llm: str
    trusted: bool
    agent_name: str


def agent_figures(agent: Stepper) -> AgentFigures:
    current = agent.current
    # A proposal under review has cost its tokens already; the agent counts them once it is decided.
    llm = agent.host.llm
    waiting = llm.proposal if isinstance(llm, ReviewLLM) and llm.waiting else None
    extra_in, extra_out = (waiting.usage.input_tokens, waiting.usage.output_tokens) if waiting else (0, 0)
    env = agent.env
    return AgentFigures(
        task_type=env.task_type or "?",
        steps=env.steps,
        max_steps=env.max_steps,
        # an env with a reward (WebShop) has it only at the end; one with a score shows it while it runs
        score=None if env.reward is not None else env.score,
        reward=env.reward if env.done else None,
        depth=current.depth if current else 0,
        nodes=len(agent.tree),
        llm_calls=agent.stats.llm_calls,
        tokens=(agent.stats.usage.input_tokens + extra_in, agent.stats.usage.output_tokens + extra_out),
        cost=agent.stats.cost + (waiting.cost if waiting else 0.0),
        llm=llm.name,
        trusted=is_trusted(agent.runner),
        agent_name=agent.traits.display_name,
    )


def model_clock(agent: Stepper, person_answers: bool, reviewing: bool, asked_again_at: float | None = None) -> str:
    """While a model (not the person) answers: who answers which node, and for how long so far ('' else).

    `asked_again_at`: when the person last had the model asked again (review mode's regenerate): the
    agent's call began before the first proposal, but this answer's time starts there.
    """
    since = agent.host.answering_since
    if since is None or person_answers or reviewing:
        return ""
    if asked_again_at is not None and asked_again_at > since:
        since = asked_again_at
    node = agent.current.id if agent.current is not None else "?"
    return f"{agent.host.llm.name} is answering {node}… {time.monotonic() - since:.0f} s"
