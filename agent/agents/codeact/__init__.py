"""The CodeAct baseline: `--agent codeact` (see `agent.agents.codeact.agent`)."""


