"""The old `agent.codeblocks`: the shared helpers are `agent.runtime.code`, ReCode's rules
`agent.agents.recode.codeblocks`."""

from agent.agents.recode.codeblocks import *  # noqa: F401,F403
from agent.runtime.code import *  # noqa: F401,F403
