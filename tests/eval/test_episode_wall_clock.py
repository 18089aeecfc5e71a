"""An evaluation episode has a wall clock (`--episode-timeout`): one whose LLM never answers is
ended within it, recorded as failed with the reason, its code worker and environment closed, and
the other episodes finish. The LLM is the real openai client against a local server that holds
one episode's request open."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from agent.eval.batch import Evaluation
from agent.eval.report import EvalReport
from agent.eval.results import EpisodeSpec
from agent.eval.executor import LocalExecutor
from agent.llm.openai_client import OpenAILLM
from agent.llm.profiles import PriceTable, Profile
from agent.sandbox import settings
from envs import registry
from recode_tui.setup.env_workers import EnvPool
from mockllm.scripted import ScriptEntry, ScriptedLLM
from mockllm.openai_server import OpenAICompatibleServer
from recode_tui.commands.arguments import eval_options
from recode_tui.commands.parser import build_parser
from recode_tui.setup.usage import UsageError
from tests.plans import eval_plan

pytestmark = pytest.mark.heavy  # starts environment workers in other processes: not in `make quick`

GAMES = [EpisodeSpec("key-1", "put"), EpisodeSpec("coin-1", "take"), EpisodeSpec("vase-1", "put")]
HUNG = "coin-1"
CLOCK = 4.0  # far beyond a toy episode's second, with its environment worker started beforehand (as in
# test_wall_clock_counts.py, whose toy episode also starts its worker within its clock)


@pytest.fixture(autouse=True)
def toy(toy_env):
    return toy_env


def solving(episode_ref: str) -> ScriptedLLM:
    actions = registry.gold_actions(f"toy:{episode_ref}")
    code = "".join(f"run({a!r})\n" for a in actions)
    return ScriptedLLM([ScriptEntry(stub="solve(instruction, observation)",
                                    answer=f"<think>the known way</think><execute>\n{code}</execute>")])


async def test_an_episode_whose_llm_never_answers_ends_at_its_wall_clock_and_the_others_finish(tmp_path, monkeypatch):
    released = threading.Event()  # the server holds the request until the test ends

    def never(prompt: str) -> str:
        released.wait(600)
        return "<execute>\nrun('look')\n</execute>"

    taken: list[object] = []
    take = settings.SpareRunners.take
    monkeypatch.setattr(settings.SpareRunners, "take", lambda self: taken.append(take(self)) or taken[-1])
    report = EvalReport(eval_plan(llm="scripted:test", games=GAMES, env="toy", concurrency=2, episode_timeout=CLOCK))
    pool = EnvPool(2, warm_env="toy")
    await pool.ready()  # the clock is the episodes', not the workers' start
    with OpenAICompatibleServer(never) as server:
        hung = OpenAILLM(Profile(name="local", model="local-test-model", api_key="k", base_url=server.base_url,
                                 timeout=600.0, max_retries=0), PriceTable({}))
        llm_for = lambda game, agent: hung if game.id == HUNG else solving(game.id)  # noqa: E731
        evaluation = Evaluation(report, tmp_path / "out", LocalExecutor(report, llm_for, lambda size: pool))
        began = time.monotonic()
        try:
            await asyncio.wait_for(evaluation.run(), timeout=120)
        finally:
            released.set()
        took = time.monotonic() - began
    assert report.status == "complete"
    by_game = {e.game: e for e in report.episodes}
    assert set(by_game) == {g.id for g in GAMES}
    stuck = by_game[HUNG]
    assert not stuck.success and stuck.error == stuck.reason == f"episode wall clock {CLOCK:g} s exceeded"
    assert CLOCK <= stuck.seconds < 30, stuck.seconds
    assert all(by_game[g].success for g in ("key-1", "vase-1")), report.episodes
    assert all(runner.worker_pid is None for runner in taken)  # every episode's code worker is closed
    assert took < 60


def test_the_flag_takes_seconds_and_refuses_a_negative_clock():
    options = eval_options(build_parser().parse_args(["eval", "--llm", "demo", "--episode-timeout", "90"]))
    assert options.episode_timeout == 90.0
    with pytest.raises(UsageError, match="--episode-timeout must be 0"):
        eval_options(build_parser().parse_args(["eval", "--llm", "demo", "--episode-timeout", "-1"]))
