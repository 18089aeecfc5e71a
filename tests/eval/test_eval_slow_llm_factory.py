"""An episode whose LLM takes long to build (`--llm gold` on ScienceWorld computes a gold path)
must not hold up the episodes already running beside it."""

from __future__ import annotations

import threading

from agent.eval.batch import Evaluation
from agent.eval.report import EvalReport
from agent.eval.results import EpisodeSpec
from agent.eval.executor import LocalExecutor
from recode_tui.setup.env_workers import EnvPool
from mockllm.scripted import ScriptedLLM, load_script
from recode_tui.setup.build import DEMO_SCRIPT
from tests.plans import eval_plan


async def test_a_slow_llm_factory_runs_off_the_event_loop(tmp_path) -> None:
    second_done = threading.Event()

    def llm_for(episode_spec: EpisodeSpec, agent: str | None):
        if episode_spec.id == "put-01":  # blocks until the other episode has finished: only possible off the loop
            assert second_done.wait(timeout=30), "the other episode never finished while this LLM was built"
        return ScriptedLLM(load_script(str(DEMO_SCRIPT)))

    def finished(result) -> None:
        if result.game == "cool-01":
            second_done.set()

    report = EvalReport(eval_plan(llm="demo", games=[EpisodeSpec("put-01", "put"), EpisodeSpec("cool-01", "cool")],
                                 concurrency=2))
    await Evaluation(report, tmp_path, LocalExecutor(report, llm_for, EnvPool), on_result=finished).run()
    assert [e.game for e in report.episodes] == ["cool-01", "put-01"] and all(e.success for e in report.episodes)
