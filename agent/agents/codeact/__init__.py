"""The CodeAct baseline: `--agent codeact` (see `agent.agents.codeact.agent`)."""

from agent.agents.codeact.agent import CodeActAgent

__all__ = ["CodeActAgent"]
