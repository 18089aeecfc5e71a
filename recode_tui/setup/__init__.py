"""The setup layer below both front ends: typed settings parsed once, and what is built from them.

`settings` holds the frozen types (`RunOptions`, `EpisodeRef`, `LLMSettings`, `EvalOptions`, ...),
`build` the builders (`make_llm`, `make_env`, `checked_prompts`, `make_agent`), `run_session` the
session a headless run works on, `usage` the `UsageError` every command reports in one line. Every
front end (the command line and its `eval`, the console, the plain terminal, the web server) builds
on this package; it imports none of them, and none reaches it through another
(tests/test_layers.py).

Names load on first use (PEP 562), so `recode-tui --help`, which needs only `usage`, imports no
agent (tests/test_help_imports.py).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from recode_tui.setup.build import (DEMO_SCRIPT, DEMOS, cached_llm, check_gold,
                                        check_llm_roles, demo_script, agent_for, episode_of, episode_ref,
                                        gold_llm_for, llm_for, load_prompt_set, checked_prompts,
                                        make_agent, make_env, make_llm, parse_episode, preset_env, settings_of,
                                        step_limit_of)
    from recode_tui.setup.sessions import find_resume, recorded_llm, session_game
    from recode_tui.setup.settings import (CacheSettings, ConsoleOptions, EpisodeRef, EvalOptions, ExportOptions,
                                           LLMSettings, RunFlags, RunOptions, RunSpec, Selection)
    from recode_tui.setup.usage import DEFAULT_GAME, UsageError

_HOMES = {
    "build": ("DEMO_SCRIPT", "DEMOS", "cached_llm", "check_gold", "check_llm_roles", "demo_script",
              "agent_for", "episode_of", "episode_ref", "gold_llm_for", "llm_for", "load_prompt_set",
              "checked_prompts", "make_agent", "make_env", "make_llm", "parse_episode", "preset_env", "settings_of",
              "step_limit_of"),
    "sessions": ("find_resume", "recorded_llm", "session_game"),
    "settings": ("CacheSettings", "ConsoleOptions", "EpisodeRef", "EvalOptions", "ExportOptions", "LLMSettings",
                 "RunFlags", "RunOptions", "RunSpec", "Selection"),
    "usage": ("DEFAULT_GAME", "UsageError"),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = sorted(_HOME_OF)


def __getattr__(name: str) -> Any:
    """A name of the layer, imported from its module the first time it is asked for."""
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)  # dynamic: PEP 562 lazy export
    globals()[name] = value
    return value
