"""Typed settings for tests, built the way the command line's edge builds them.

Tests pass what they change and take the rest from the defaults a user gets, so a
new setting is one keyword here, not an edit of every call.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from agent.runtime.limits import Limits
from agent.runtime.presets import RunSettings
from recode_tui.setup.build import agent_settings, parse_episode
from recode_tui.setup.settings import EpisodeRef


def run_settings(
    *,
    agent: str | None = None,
    preset: str | None = None,
    max_steps: int | None = None,
    limits: Limits | None = None,
    prompts: str | Path | None = None,
    agent_options: dict[str, Any] | None = None,
    trusted: bool = False,
    node_timeout: float | None = None,
) -> RunSettings:
    """The settings `run`/`tui` would build from these flags (`limits` and `agent_options` as objects)."""
    settings = agent_settings(preset, agent, max_steps=max_steps, prompts=prompts, trusted=trusted,
                              node_timeout=node_timeout)
    if limits is not None:
        settings = replace(settings, limits=limits)
    if agent_options is not None:
        settings = replace(settings, agent_options=dict(agent_options))
    return settings


def episode_named(ref: str | Path) -> EpisodeRef:
    """An episode as `--game` names it (`put-01`, `sciworld:boil/0`, `toy:coin-1`, a `.tw-pddl` path)."""
    return parse_episode(None, str(ref))

