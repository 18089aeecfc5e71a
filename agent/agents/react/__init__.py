"""The ReAct baseline: `--agent react` (see `agent.agents.react.agent`)."""

from agent.agents.react.agent import ReActAgent

__all__ = ["ReActAgent"]
