"""An empty answer (finish_reason stop, no content) is the model's answer: the agent refuses it with
its reason and asks again, its tokens count, and an evaluation never stops on it.

Real parts: the command line (`run`, `eval`), ALFWorld, the real openai client against the local
OpenAI-compatible server on 127.0.0.1, which answers empty where the test says.
"""

from __future__ import annotations

import json
import re

import pytest

from envs.alfworld.catalog import list_games
from mockllm.openai_server import OpenAICompatibleServer, Reply, script_responder
from recode_tui.setup.build import DEMO_SCRIPT
from tests.eval.helpers import instruction_when, profiles_file, read_report, recode

pytestmark = pytest.mark.heavy  # real ALFWorld games, played by the command line


REFUSAL = "the answer was empty"


def served_tokens(server: OpenAICompatibleServer) -> tuple[int, int]:
    served = [c for c in server.calls if c.status == 200]
    return sum(c.prompt_tokens for c in served), sum(c.completion_tokens for c in served)


def test_an_empty_answer_is_refused_with_its_reason_re_asked_and_its_tokens_counted(tmp_path):
    demo = script_responder(str(DEMO_SCRIPT))
    with OpenAICompatibleServer(demo) as server:
        server.inject("empty")  # the first answer: the model ended at once
        result = recode(tmp_path, "run", "--game", "heat-02", "--llm", "profile:local",
                        "--profiles", str(profiles_file(tmp_path, server.base_url)), "--quiet")
    assert result.returncode == 0, result.stdout + result.stderr
    served = [c for c in server.calls if c.status == 200]
    assert served[0].answer == "" and served[0].prompt_tokens > 0
    tokens_in, tokens_out = served_tokens(server)
    summary = result.stdout.strip()
    assert summary.startswith("SUCCESS: won"), summary
    assert f"{len(served)} LLM calls" in summary and f"tokens {tokens_in}+{tokens_out}" in summary, summary
    journal = next((tmp_path / "sessions").rglob("journal.jsonl"))
    answers = [json.loads(line) for line in journal.read_text().splitlines() if '"type": "answer"' in line]
    refused = answers[0]
    assert not refused["accepted"] and refused["answer"] == "" and refused["input_tokens"] == served[0].prompt_tokens
    assert REFUSAL in refused["reason"]
    assert REFUSAL in served[1].prompt  # the model is told why, and asked again


@pytest.mark.heavy  # eval starts ALFWorld engines in worker processes
def test_a_model_that_always_answers_empty_fails_its_episode_and_the_evaluation_goes_on(tmp_path):
    demo = script_responder(str(DEMO_SCRIPT))
    mute_game = "clean-01"
    task = next(g.task for g in list_games() if g.id == mute_game)
    mute = re.compile(instruction_when(task))

    def respond(prompt: str):
        return Reply("") if mute.search(prompt) else demo(prompt)

    out = tmp_path / "empty"
    with OpenAICompatibleServer(respond) as server:
        result = recode(tmp_path, "eval", "--llm", "profile:local", "--profiles",
                        str(profiles_file(tmp_path, server.base_url)), "--games", f"heat-02,{mute_game}", "-c", "1",
                        "--out", str(out), "--no-progress")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "evaluation stopped" not in result.stdout + result.stderr
    report = read_report(out)
    assert report["status"] == "complete" and len(report["episodes"]) == 2
    by_game = {e["game"]: e for e in report["episodes"]}
    assert by_game["heat-02"]["success"]
    silent = by_game[mute_game]
    assert not silent["success"] and silent["reason"].startswith("rewrite limit") and not silent["error"]
    assert silent["llm_failures"] == 0 and silent["llm_calls"] == 6
    tokens_in, tokens_out = served_tokens(server)
    assert report["summary"]["overall"]["total_tokens"] == tokens_in + tokens_out
