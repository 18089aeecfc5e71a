"""An episode whose LLM takes long to build (`--llm gold` on ScienceWorld computes a gold path)
must not hold up the episodes already running beside it.

On the toy world (tests/toyenv): what is tested is where eval builds an episode's LLM, not the world.
"""

from __future__ import annotations

import threading

import pytest

from agent.eval.batch import Evaluation
from agent.eval.report import EvalReport
from agent.eval.results import EpisodeSpec
from agent.eval.executor import LocalExecutor
from agent.agents.recode.engine import Engine
from envs import registry
from mockllm.gold import gold_llm
from recode_tui.setup.env_workers import EnvPool
from tests.plans import eval_plan

pytestmark = pytest.mark.heavy  # eval's environment workers and code workers are processes: not in `make quick`


async def test_a_slow_llm_factory_runs_off_the_event_loop(tmp_path, toy_env) -> None:
    second_done = threading.Event()

    def llm_for(episode_spec: EpisodeSpec, agent: str | None):
        if episode_spec.id == "key-1":  # blocks until the other episode has finished: only possible off the loop
            assert second_done.wait(timeout=30), "the other episode never finished while this LLM was built"
        return gold_llm(Engine, registry.gold_actions(f"toy:{episode_spec.id}"))

    def finished(result) -> None:
        if result.game == "coin-1":
            second_done.set()

    report = EvalReport(eval_plan(llm="gold", games=[EpisodeSpec("key-1", "put"), EpisodeSpec("coin-1", "take")],
                                 env="toy", concurrency=2))
    toy_workers = lambda lanes: EnvPool(lanes, warm_env="toy")  # noqa: E731 - not the default world's engine
    await Evaluation(report, tmp_path, LocalExecutor(report, llm_for, toy_workers), on_result=finished).run()
    assert [e.game for e in report.episodes] == ["coin-1", "key-1"] and all(e.success for e in report.episodes)
