"""The old home of the builders (now `recode_tui.setup`), re-exported for plug-ins for one release."""

from __future__ import annotations

import argparse

from recode_tui.setup.build import (DEMO_SCRIPT, DEMOS, check_gold, check_llm_roles, demo_script, episode_ref,
                                    game_path_of, gold_llm_for, load_prompt_set, make_agent, make_engine, make_env,
                                    make_llm, parse_episode, preset_env, step_limit_of)
from recode_tui.setup.settings import RunSettings
from recode_tui.setup.usage import DEFAULT_GAME, UsageError

__all__ = ["DEFAULT_GAME", "DEMOS", "DEMO_SCRIPT", "UsageError", "check_gold", "check_llm_roles", "demo_script",
           "episode_ref", "game_path_of", "gold_llm_for", "load_prompt_set", "make_agent", "make_engine", "make_env",
           "make_llm", "parse_episode", "preset_env", "run_settings", "step_limit"]


def step_limit(ref: str, args: argparse.Namespace, settings: RunSettings) -> int:
    """The old signature of `recode_tui.setup.build.step_limit_of` (`args.max_steps` as given)."""
    return step_limit_of(ref, vars(args).get("max_steps"), settings)


def run_settings(args: argparse.Namespace) -> RunSettings:
    """The old namespace-taking form of `recode_tui.commands.arguments.agent_settings_of`
    (it also points `args.env` at the environment the preset plays)."""
    from recode_tui.commands.arguments import agent_settings_of

    settings = agent_settings_of(args)
    if "env" in vars(args):
        args.env = preset_env(args.env, settings.preset)
    return settings
