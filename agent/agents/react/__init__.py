"""The ReAct baseline: `--agent react` (see `agent.agents.react.agent`)."""


