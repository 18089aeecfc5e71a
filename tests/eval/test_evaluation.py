"""The UI-free batch runner: crashes, report files, summaries.

The runner is the subject, not the game's engine: its episodes play the toy world (`toy_env`) in
worker processes, a worker's start a tenth of an ALFWorld one's."""

from __future__ import annotations

import pytest

from agent.eval.batch import Evaluation
from agent.eval.summary import summarize
from agent.eval.report import EvalReport
from agent.eval.results import EpisodeResult, EpisodeSpec
from agent.eval.executor import LocalExecutor
from envs.alfworld.catalog import list_games
from recode_tui.setup.env_workers import EnvPool
from mockllm.scripted import ScriptedLLM, load_script

from tests.plans import eval_plan

from .helpers import toy_script

pytestmark = pytest.mark.heavy  # starts environment workers and the sandbox: not in `make quick`

CRASHY = '''
import os
from envs.registry import make_env as real


class Crashy:
    def __init__(self, env):
        self._env = env

    def __getattr__(self, name):
        return getattr(self._env, name)

    def step(self, action):
        if action == "crash now":
            os._exit(3)
        return self._env.step(action)


def make_env(game, max_steps):
    return Crashy(real(game, max_steps))
'''


def _games(*ids: str) -> list[EpisodeSpec]:
    infos = {g.id: g for g in list_games()}
    return [EpisodeSpec(i, infos[i].task_type, str(infos[i].path)) for i in ids]


def _toy_games(*ids: str) -> list[EpisodeSpec]:
    from tests.toyenv.world import EPISODES

    return [EpisodeSpec(i, EPISODES[i].task_type) for i in ids]


async def test_an_episode_whose_worker_dies_is_recorded_as_failed_and_the_others_go_on(tmp_path, toy_env):
    (tmp_path / "crashy.py").write_text(CRASHY)
    script = toy_script(tmp_path, crash={"vase-1"})
    entries_path = str(script)
    report = EvalReport(eval_plan(llm=f"scripted:{script}", games=_toy_games("vase-1", "key-1", "coin-1", "coin-2"),
                                 env="toy", concurrency=2))
    results: list[EpisodeResult] = []
    pools: list[EnvPool] = []

    def pool(size: int) -> EnvPool:
        pools.append(EnvPool(size, factory="crashy:make_env", extra_path=[str(tmp_path)], warm_env="toy"))
        return pools[-1]

    evaluation = Evaluation(report, tmp_path / "out",
                            LocalExecutor(report, lambda game, agent: ScriptedLLM(load_script(entries_path)), pool),
                            on_result=results.append)
    await evaluation.run()
    assert report.status == "complete" and len(results) == 4
    by_game = {r.game: r for r in report.episodes}
    crashed = by_game["vase-1"]
    assert not crashed.success and "worker process died (exit code 3)" in crashed.error
    assert all(by_game[g].success and not by_game[g].error for g in ("key-1", "coin-1", "coin-2"))
    saved = EvalReport.read(tmp_path / "out" / "report.json")
    assert saved.status == "complete" and {e.game for e in saved.episodes} == set(by_game)
    assert saved.to_dict()["summary"]["overall"]["errors"] == 1


async def test_a_scripted_llm_without_an_answer_fails_only_its_episode(tmp_path, toy_env):
    empty = ScriptedLLM([])
    report = EvalReport(eval_plan(llm="scripted:none", games=_toy_games("vase-1"), env="toy", concurrency=1))
    toy_workers = lambda size: EnvPool(size, warm_env="toy")  # noqa: E731
    await Evaluation(report, tmp_path, LocalExecutor(report, lambda game, agent: empty, toy_workers)).run()
    (result,) = report.episodes
    assert not result.success and result.reason.startswith("LLM error: the script has no answer")
    assert report.status == "complete"


def test_summary_per_task_type():
    episodes = [
        EpisodeResult("a", "put", True, "won", steps=4, llm_calls=2, input_tokens=100, output_tokens=10, cost=0.5),
        EpisodeResult("b", "put", False, "x", steps=8, llm_calls=4, input_tokens=300, output_tokens=30, cost=1.5),
        EpisodeResult("c", "cool", False, "boom", error="boom"),
    ]
    summary = summarize(episodes)
    put = summary["by_task_type"]["put"]
    assert (put["episodes"], put["successes"], put["success_rate"]) == (2, 1, 0.5)
    assert (put["mean_steps"], put["mean_llm_calls"], put["mean_tokens"], put["mean_cost"]) == (6, 3, 220, 1.0)
    assert summary["overall"]["errors"] == 1 and summary["overall"]["success_rate"] == pytest.approx(1 / 3)


def test_a_report_round_trips(tmp_path):
    report = EvalReport(eval_plan(llm="demo", games=_games("put-01", "put-02")),
                        [EpisodeResult("put-01", "put", True, "won", steps=3)], status="interrupted")
    report.write(tmp_path / "report.json")
    again = EvalReport.read(tmp_path / "report.json")
    assert again.plan == report.plan and again.episodes == report.episodes
    assert [g.id for g in again.remaining] == ["put-02"]


def test_success_rates_with_no_wins_all_wins_and_no_episodes():
    """A rate is wins over the episodes played: 0 when none won, 1 when all did, 0 (not an error) with none played."""
    episodes = [
        EpisodeResult("a", "cool", False, "step limit", steps=50),
        EpisodeResult("b", "cool", False, "step limit", steps=30),
        EpisodeResult("c", "heat", True, "won", steps=7),
    ]
    summary = summarize(episodes)
    cool, heat = summary["by_task_type"]["cool"], summary["by_task_type"]["heat"]
    assert (cool["episodes"], cool["successes"], cool["success_rate"], cool["mean_steps"]) == (2, 0, 0.0, 40)
    assert (heat["episodes"], heat["successes"], heat["success_rate"]) == (1, 1, 1.0)
    assert summary["overall"]["success_rate"] == pytest.approx(1 / 3)
    nothing = summarize([])["overall"]
    assert (nothing["episodes"], nothing["successes"], nothing["success_rate"]) == (0, 0, 0.0)
