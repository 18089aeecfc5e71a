"""The WebShop few-shot examples of the baseline agents, read back as each agent's answers
(the parsers are `agent_examples`, shared with ALFWorld and ScienceWorld)."""

from __future__ import annotations

from .agent_examples import AGENTS, Example, examples_of

EXAMPLES = {agent: (lambda agent=agent: examples_of(agent, "webshop")) for agent in AGENTS}

__all__ = ["EXAMPLES", "Example"]
