"""Test-only plug-ins: the `toy` environment and the `one-action` agent.

`register()` adds both through the registries' public `register` functions,
as any plug-in would; `unregister()` takes them away again. A process started
by a test (the command line, eval's environment workers) registers them by
naming `tests.toyenv.plugin` in RECODE_TUI_PLUGINS.
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
ENV = "toy"
AGENT = "one-action"
PLUGIN = "tests.toyenv.plugin"  # the module to put in RECODE_TUI_PLUGINS
SCRIPTS = HERE / "scripts"


def register() -> None:
    from agent import agents
    from envs import registry

    registry.register(ENV, "tests.toyenv.world:ToyProvider")
    agents.register(AGENT, "tests.toyenv.agent:OneActionAgent", "asks the LLM for one action per turn (a test agent)")


def unregister() -> None:
    from agent import agents
    from envs import registry

    registry.unregister(ENV)
    agents.AGENTS.pop(AGENT, None)
