"""Each ALFWorld task type solved end to end through `step()`, the sandboxed worker
and the real engine, with the bundled demo script answering every expansion."""

from __future__ import annotations

import pytest

from agent.runtime import events as ev
from agent.runtime.tree import NodeStatus
from envs.alfworld.catalog import list_games
from recode_tui.setup.build import make_agent, make_llm
from tests.settings import episode_named, run_settings

pytestmark = pytest.mark.heavy  # real ALFWorld games


TASK_TYPES = ["put", "clean", "heat", "cool", "examine", "puttwo"]


def first_index(events: list[ev.Event], kind: type[ev.Event], **fields) -> int:
    for index, event in enumerate(events):
        if isinstance(event, kind) and all(getattr(event, k) == v for k, v in fields.items()):
            return index
    raise AssertionError(f"no {kind.__name__} with {fields}")


@pytest.mark.parametrize("task_type", TASK_TYPES)
async def test_demo_solves_a_bundled_game_of_each_task_type(task_type):
    game = list_games([task_type])[0].id
    agent = make_agent(run_settings(), episode_named(game), make_llm("demo"))
    events: list[ev.Event] = []
    while not events or not isinstance(events[-1], ev.RunFinished):
        events.append(await agent.step())
    await agent.close()
    finished = events[-1]
    assert finished.success and finished.reason == "won", finished.reason
    assert agent.env.won and agent.env.task_type == task_type

    # stub found -> expansion requested -> children -> actions -> won, in that order
    root = agent.tree.root.id
    stub = first_index(events, ev.StubFound, node_id=root)
    requested = first_index(events, ev.LLMRequested, node_id=root)
    received = first_index(events, ev.LLMAnswered, node_id=root)
    first_child = first_index(events, ev.NodeStarted, node_id=events[received].child_ids[0])
    first_action = first_index(events, ev.ActionSent)
    won = first_index(events, ev.ObservationReceived, won=True)
    assert 0 < stub < requested < received < first_child < first_action < won < len(events) - 1

    # every action is its own pair of events, numbered by environment step
    sent = [e.step for e in events if isinstance(e, ev.ActionSent)]
    observed = [e.step for e in events if isinstance(e, ev.ObservationReceived)]
    assert sent == observed == list(range(1, finished.steps + 1))
    # the tree went deeper than the root: placeholders were expanded recursively
    assert max(n.depth for n in agent.tree.walk()) >= 2
    assert agent.tree.root.status is NodeStatus.AWAITING_LLM and agent.tree.root.children
