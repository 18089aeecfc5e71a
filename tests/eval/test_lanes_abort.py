"""Episodes that lose the model at the same moment: the evaluation stops with its one line, and no lane's
error is left for asyncio to print as a traceback after it (seen under load: `recode-tui eval` printed the
one-line error, then "Task exception was never retrieved" and a traceback through `lane`)."""

from __future__ import annotations

import asyncio
import gc
import logging

import pytest

from agent.eval.batch import Evaluation
from agent.eval.executor import EpisodeJob, EvalAborted
from agent.eval.report import EvalReport
from agent.eval.results import EpisodeResult, EpisodeSpec
from tests.plans import eval_plan


class ModelGoneExecutor:
    """A fake `EpisodeExecutor` (named so): every episode meets a model that has gone away, at once. The real
    outage reaches two lanes in the same turn of the loop only by chance; this makes the chance certain."""

    async def open(self, lanes: int) -> None:
        pass

    async def play(self, job: EpisodeJob) -> EpisodeResult:
        raise EvalAborted("the LLM failed 3 times in a row: cannot connect")

    async def close(self) -> None:
        pass


def test_lanes_that_lose_the_model_together_leave_no_traceback_behind(tmp_path, caplog) -> None:
    games = [EpisodeSpec("put-01", "put"), EpisodeSpec("put-02", "put"), EpisodeSpec("put-03", "put")]
    report = EvalReport(eval_plan(llm="scripted:test", games=games, concurrency=3))
    with caplog.at_level(logging.ERROR, logger="asyncio"):
        gc.disable()  # no collection moves this test's objects out of the young generation before the one below
        try:
            with pytest.raises(EvalAborted, match="cannot connect"):
                asyncio.run(Evaluation(report, tmp_path, ModelGoneExecutor()).run())
            # a task whose error nobody read reports it when it is collected; the young generation holds this
            # test's objects: a full collection walked all a worker's earlier tests left alive too (~1 CPU-s)
            gc.collect(0)
        finally:
            gc.enable()
    assert report.status == "aborted" and report.episodes == []
    assert "never retrieved" not in caplog.text, caplog.text
