"""ALFWorld's step limits (ours 80, the paper's 50) leave room for every game's expert plan.

The expert plan is the shortest win: Fast Downward's walkthrough, which the bundled games carry and
`python -m envs.alfworld.expert_plans --planner` measured for the real valid_seen games
(`envs/alfworld/expert_lengths.json`); where the planner ran out of time (8 of 140 games) the handcoded
expert's win with its search cut out stands in (`--trim`: a win checked on the engine, so never shorter). The rule: each limit is at least MARGIN times the
longest, so an agent has the expert's path plus half again. The file also holds the steps ALFWorld's
handcoded expert takes searching blind; the README states them.
"""

from __future__ import annotations

import datetime
import math
import random

import pytest

from agent.agents.presets import preset
from envs.alfworld.catalog import list_games, list_split
from envs.alfworld.expert_plans import expert_length, load_lengths
from envs.alfworld.gamefile import load_game_json
from envs.alfworld.provider import DEFAULT_MAX_STEPS

MARGIN = 1.5
# The default preset names no limit (the environment's `default_max_steps` applies); the paper's does.
LIMITS = {**{name: preset(name).max_steps or DEFAULT_MAX_STEPS for name in ("default", "paper")},
          "provider": DEFAULT_MAX_STEPS}


def test_every_bundled_games_expert_plan_fits_each_step_limit_with_the_margin():
    lengths = {g.id: len(load_game_json(g.path).get("walkthrough") or []) for g in list_games()}
    assert len(lengths) == 60 and min(lengths.values()) > 0
    longest = max(lengths, key=lengths.__getitem__)
    for name, limit in LIMITS.items():
        assert math.ceil(lengths[longest] * MARGIN) <= limit, f"{longest}: {lengths[longest]} steps, {name} {limit}"
    assert load_lengths()["bundled"] == lengths  # the file the README quotes is current


def shortest_wins() -> dict[str, int]:
    """Per valid_seen game, the shortest win known: the planner's, the trimmed expert's, the expert's."""
    data = load_lengths()
    sources = [data["valid_seen planner"], data.get("valid_seen trimmed", {}), data["valid_seen"]]
    return {game: min(n for n in (source.get(game) for source in sources) if n) for game in data["valid_seen"]}


def test_every_valid_seen_games_expert_plan_fits_each_step_limit_with_the_margin():
    planned = shortest_wins()
    assert len(planned) == 140
    longest = max(planned, key=planned.__getitem__)
    for name, limit in LIMITS.items():
        assert math.ceil(planned[longest] * MARGIN) <= limit, f"{longest}: {planned[longest]} steps, {name} {limit}"


def test_the_handcoded_experts_searches_are_all_measured():
    searched = load_lengths()["valid_seen"]
    assert len(searched) == 140 and all(searched.values())
    planned = load_lengths()["valid_seen planner"]
    assert all(searched[g] >= n for g, n in planned.items() if n)  # a shortest win is never longer


@pytest.mark.heavy  # ALFWorld's engine with its handcoded expert, on the real data: not in `make quick`
def test_a_sample_of_valid_seen_games_plays_to_the_recorded_expert_length(shared_data):
    """Two games a day (seeded by the date), played by the handcoded expert on the real engine."""
    games = list_split("valid_seen")
    searched = load_lengths()["valid_seen"]
    picked = [g for g in random.Random(datetime.date.today().toordinal()).sample(games, 8)
              if searched[g.id] <= 30][:2]  # short ones: a few seconds each
    assert picked
    for game in picked:
        assert expert_length(str(game.path)) == searched[game.id], game.id
