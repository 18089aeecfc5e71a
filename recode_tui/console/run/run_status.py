"""The status line's figures of one run, read from its engine: steps, score, depth, calls, tokens, cost.

Kept apart from the debug screen, which adds where the run stands and why
(`DebugScreen.update_status`), and from the `StatusBar` widget, which only draws.
"""

from __future__ import annotations

import time
from typing import TypedDict

from agent.runtime.stepper import Stepper
from mockllm.review import ReviewLLM
from recode_tui.console.run.hosts import is_trusted


class EngineFigures(TypedDict):
    """`StatusBar.show`'s arguments that come from the engine."""

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
    agent: str


def engine_figures(engine: Stepper) -> EngineFigures:
    current = engine.current
    # A proposal under review has cost its tokens already; the engine counts them once it is decided.
    llm = engine.llm
    waiting = llm.proposal if isinstance(llm, ReviewLLM) and llm.waiting else None
    extra_in, extra_out = (waiting.usage.input_tokens, waiting.usage.output_tokens) if waiting else (0, 0)
    env = engine.env
    return EngineFigures(
        task_type=env.task_type or "?",
        steps=env.steps,
        max_steps=env.max_steps,
        # an env with a reward (WebShop) has it only at the end; one with a score shows it while it runs
        score=None if env.reward is not None else env.score,
        reward=env.reward if env.done else None,
        depth=current.depth if current else 0,
        nodes=len(engine.tree),
        llm_calls=engine.stats.llm_calls,
        tokens=(engine.stats.usage.input_tokens + extra_in, engine.stats.usage.output_tokens + extra_out),
        cost=engine.stats.cost + (waiting.cost if waiting else 0.0),
        llm=llm.name,
        trusted=is_trusted(engine.runner),
        agent=engine.display_name,
    )


def model_clock(engine: Stepper, person_answers: bool, reviewing: bool, asked_again_at: float | None = None) -> str:
    """While a model (not the person) answers: who answers which node, and for how long so far ('' else).

    `asked_again_at`: when the person last had the model asked again (review mode's regenerate): the
    engine's call began before the first proposal, but this answer's time starts there.
    """
    since = engine.answering_since
    if since is None or person_answers or reviewing:
        return ""
    if asked_again_at is not None and asked_again_at > since:
        since = asked_again_at
    node = engine.current.id if engine.current is not None else "?"
    return f"{engine.llm.name} is answering {node}… {time.monotonic() - since:.0f} s"
