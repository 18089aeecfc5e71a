"""Command-line options shared by several commands (run, tui, eval, games list)."""

from __future__ import annotations

import argparse

from agent.runtime.limits import Limits
from agent.agents.presets import preset_names


def add_env_option(parser: argparse.ArgumentParser) -> None:
    """`--env NAME`: any registered environment (see envs.registry)."""
    from envs import registry

    parser.add_argument("--env", default=None, choices=registry.names(),
                        help=f"environment (default {registry.default_env()}); see `recode-tui games list --env NAME`")


def add_preset_options(parser: argparse.ArgumentParser) -> None:
    """`--agent`, `--preset` and the flags that override its values (shared by run, tui and eval)."""
    from agent import agents

    parser.add_argument("--agent", default=None, metavar="|".join(agents.names()),
                        help=f"the agent (default {agents.DEFAULT_AGENT}): "
                             + "; ".join(f"{e.name}: {e.summary}" for e in agents.AGENTS.values()))
    parser.add_argument("--agent-option", action="append", default=None, metavar="KEY=VALUE",
                        help="an option of the agent, e.g. window=10 for react (repeatable)")
    parser.add_argument("--preset", default=None, metavar="|".join(preset_names()),
                        help="named settings: default, or paper (the reference code's: 50 steps, "
                             "end at the first node error, depth 10, rewrites 5, the paper's prompts)")
    parser.add_argument("--max-steps", type=int, default=None, help="environment step limit (default 80)")
    parser.add_argument("--max-depth", type=int, default=None, help=f"default {Limits.max_depth}")
    parser.add_argument("--max-rewrite", type=int, default=None, help=f"default {Limits.max_rewrite}")
    parser.add_argument("--max-retry", type=int, default=None,
                        help=f"repairs of a node that raised (default {Limits.max_retry})")
    parser.add_argument("--prompts", default=None, help="prompt set folder (default: the bundled one)")
