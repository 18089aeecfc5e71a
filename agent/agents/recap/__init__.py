"""ReCAP: plan-ahead decomposition, re-injection of the parent's plan, one windowed conversation."""

from agent.agents.recap.agent import RecapAgent

__all__ = ["RecapAgent"]
