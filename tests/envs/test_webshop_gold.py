"""Every bundled WebShop instruction is winnable within the step limit: its gold path earns reward 1.0."""

from __future__ import annotations

from envs import registry
from tests.envs.webshop_helpers import webshop  # noqa: F401 - the fixture


def test_gold_wins_every_bundled_instruction(webshop):
    episodes = webshop.episodes()
    assert len(episodes) >= 150
    lost = []
    for episode in episodes:
        actions = registry.gold_actions(episode.ref)
        env = registry.make_env(episode.ref)
        env.reset()
        for action in actions:
            env.step(action)
        assert len(actions) <= env.max_steps
        if not (env.won and env.reward == 1.0):
            lost.append((episode.id, env.reward, actions))
    assert lost == []


def test_gold_searches_with_the_instructions_words(webshop):
    actions = registry.gold_actions("webshop:0")
    goal = webshop.catalogue.goal("0")
    assert actions[0].startswith("search[") and "price lower than" not in actions[0]
    assert actions[0][7:-1] in goal.instruction.lower()
    assert actions[-1] == "click[Buy Now]" and f"click[{goal.asin.lower()}]" in actions
