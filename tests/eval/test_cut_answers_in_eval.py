"""A model whose answers are cut at max_tokens fails its own episode (refused, re-asked, then the
rewrite limit), and the evaluation goes on with the others: a cut answer is no server outage.

Real parts: `recode-tui eval` as a process, ALFWorld in worker processes, the real openai client
against the local OpenAI-compatible server on 127.0.0.1.
"""

from __future__ import annotations

import re

import pytest

from envs.alfworld.catalog import list_games
from mockllm.openai_server import OpenAICompatibleServer, Reply, script_responder
from recode_tui.setup.build import DEMO_SCRIPT

from .helpers import instruction_when, profiles_file, read_report, recode

GAMES = ("put-01", "clean-01", "heat-02")
CUT_GAME = "clean-01"


@pytest.mark.heavy  # eval starts ALFWorld engines in worker processes
def test_answers_cut_at_max_tokens_fail_their_episode_and_the_evaluation_goes_on(tmp_path):
    demo = script_responder(str(DEMO_SCRIPT))
    task = next(g.task for g in list_games() if g.id == CUT_GAME)
    rambles = re.compile(instruction_when(task))

    def respond(prompt: str):
        answer = demo(prompt)
        text = answer.text if isinstance(answer, Reply) else answer
        # this game's model rambles: every answer is cut before its code ends
        return Reply(text[: len(text) // 2], "length") if rambles.search(prompt) else answer

    out = tmp_path / "cut"
    with OpenAICompatibleServer(respond) as server:
        result = recode(tmp_path, "eval", "--llm", "profile:local", "--profiles",
                        str(profiles_file(tmp_path, server.base_url)), "--games", ",".join(GAMES), "-c", "1",
                        "--out", str(out), "--no-progress")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "evaluation stopped" not in result.stdout + result.stderr
    report = read_report(out)
    assert report["status"] == "complete" and len(report["episodes"]) == len(GAMES)
    by_game = {e["game"]: e for e in report["episodes"]}
    assert all(by_game[g]["success"] for g in GAMES if g != CUT_GAME)
    cut = by_game[CUT_GAME]
    assert not cut["success"] and cut["reason"].startswith("rewrite limit") and not cut["error"]
    assert cut["llm_failures"] == 0 and cut["llm_calls"] == 6  # each cut answer refused, and counted
    served = [c for c in server.calls if c.status == 200]
    assert sum(e["llm_calls"] for e in report["episodes"]) == len(served)
    assert report["summary"]["overall"]["total_tokens"] == sum(c.prompt_tokens + c.completion_tokens for c in served)
