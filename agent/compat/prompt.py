"""The old `agent.prompt`: the shared half is `agent.runtime.prompts`, ReCode's `agent.agents.recode.prompt`."""

from agent.agents.recode.prompt import *  # noqa: F401,F403
from agent.runtime.prompts import *  # noqa: F401,F403
