"""An evaluation starts each episode's sandbox worker during the episode before (`SpareRunners`).

What must not change for that speed: every episode's code runs in a worker of its own (nothing
one episode's code did is in the next one's process), and no worker outlives the evaluation.
"""

from __future__ import annotations

import os

import pytest

from agent.eval.batch import Evaluation
from agent.eval.report import EvalReport
from agent.eval.results import EpisodeSpec
from agent.eval.executor import LocalExecutor
from agent.sandbox import settings
from recode_tui.setup.env_workers import EnvPool
from mockllm.scripted import ScriptedLLM, load_script

from .helpers import toy_script
from tests.plans import eval_plan

pytestmark = pytest.mark.heavy  # starts sandbox and environment workers in other processes: not in `make quick`


# The runners are the subject: the toy world plays the episodes (tests/toyenv), its four, each won.
GAMES = [EpisodeSpec("vase-1", "put"), EpisodeSpec("key-1", "put"), EpisodeSpec("coin-1", "take"),
         EpisodeSpec("coin-2", "take")]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("concurrency", [1, 2])
async def test_every_episode_has_a_fresh_worker_and_none_outlives_the_evaluation(tmp_path, monkeypatch, concurrency,
                                                                                 toy_env):
    games = GAMES
    script = toy_script(tmp_path)
    made: list[object] = []  # every runner the evaluation built, the spares included
    taken: list[object] = []  # the runners episodes ran with
    build, take = settings.RunnerSettings.make_runner, settings.SpareRunners.take
    monkeypatch.setattr(settings.RunnerSettings, "make_runner", lambda self: made.append(build(self)) or made[-1])
    monkeypatch.setattr(settings.SpareRunners, "take", lambda self: taken.append(take(self)) or taken[-1])
    pids: dict[int, set[int]] = {}  # each taken runner's worker pids, seen while its episode ran

    def watch(game, event) -> None:
        for index, runner in enumerate(taken):
            if runner.worker_pid is not None:
                pids.setdefault(index, set()).add(runner.worker_pid)

    report = EvalReport(eval_plan(llm=f"scripted:{script}", games=games, env="toy", concurrency=concurrency))
    evaluation = Evaluation(report, tmp_path / "out", LocalExecutor(
        report, lambda game, agent: ScriptedLLM(load_script(str(script))),
        lambda lanes: EnvPool(lanes, warm_env="toy"), on_event=watch))
    await evaluation.run()
    assert report.status == "complete" and all(e.success for e in report.episodes)
    assert len(taken) == len(games) and len(set(map(id, taken))) == len(games)
    seen = [pid for index in range(len(games)) for pid in pids.get(index, ())]
    assert len(seen) == len(games) and len(set(seen)) == len(games)  # one worker per episode, never shared
    assert len(made) > len(games)  # spares were started ahead of their episodes
    assert all(runner.worker_pid is None for runner in made)
    assert not any(_alive(pid) for pid in seen)
