"""The smaller numbers a researcher reads stay true against a model server: a failed call's seconds are
LLM time, a cut answer the agent took keeps what caused the cut, the refusal sent to the model gives it
no advice meant for the user, and `compare` marks a script's estimated tokens and names real paths.

Real parts: the command line, the toy environment in eval's worker processes, the real openai client
against the local OpenAI-compatible server on 127.0.0.1.
"""

from __future__ import annotations

import json

import pytest

from envs import registry
from mockllm.openai_server import OpenAICompatibleServer, Reply, write_profiles
from recode_tui.commands.compare import _delta

from .helpers import read_report, recode

pytestmark = pytest.mark.heavy  # eval starts environment workers in other processes

STALL = 0.2  # how long the server holds a call it then drops


@pytest.fixture(autouse=True)
def toy(toy_env):
    return toy_env


def solving(game: str) -> str:
    code = "".join(f"run({a!r})\n" for a in registry.gold_actions(f"toy:{game}"))
    return f"<think>the known way</think><execute>\n{code}</execute>"


def test_failed_seconds_cut_rests_refusals_and_compare_marks(tmp_path):
    answer, ramble = solving("key-1"), "\nThen I would also check the drawers and the"
    calls = []

    def respond(prompt: str):
        calls.append(prompt)
        if len(calls) == 1:  # cut before any code: refused
            return Reply("<think>first I will think about every room", "length")
        if len(calls) == 2:  # cut after whole code: taken, and the rest is what ran long
            return Reply(answer + ramble, "length")
        return answer

    out, scripted = tmp_path / "served", tmp_path / "scripted"
    with OpenAICompatibleServer(respond, timeout_sleep=STALL) as server:
        profiles = write_profiles(tmp_path / "profiles.yaml", server.base_url, max_retries=0, timeout=10,
                                  prices=(2.0, 8.0))
        server.inject("timeout")  # the first call is dropped after STALL seconds: a failed call, asked again
        done = recode(tmp_path, "eval", "--env", "toy", "--llm", "profile:local", "--profiles", str(profiles),
                      "--games", "key-1", "-c", "1", "--out", str(out), "--no-progress")
    assert done.returncode == 0, done.stdout + done.stderr
    [episode] = read_report(out)["episodes"]
    assert episode["success"] and episode["llm_failures"] == 1 and episode["llm_calls"] == 2
    assert episode["llm_seconds"] >= STALL  # the dropped call's wait is model time too

    assert "max_tokens in the profile" not in calls[1] and "answer again, shorter" in calls[1]
    records = [json.loads(line) for line in (out / "journals" / "key-1" / "journal.jsonl").read_text().splitlines()]
    taken = next(r for r in records if r.get("type") == "answer" and r["accepted"])
    assert taken["answer"] == answer and taken["cut_rest"] == ramble and taken["cut_at"]
    failed = [r for r in records if r.get("type") == "llm_failed"]
    finished = next(r for r in records if r.get("type") == "finished")
    answered = sum(r["seconds"] for r in records if r.get("type") == "answer")
    assert finished["llm_seconds"] == pytest.approx(answered + failed[0]["seconds"], abs=0.01)

    script = tmp_path / "key.yaml"
    script.write_text(json.dumps({"answers": [{"stub": "solve(instruction, observation)", "answer": answer}]}))
    assert recode(tmp_path, "eval", "--env", "toy", "--llm", f"scripted:{script}", "--games", "key-1",
                  "--out", str(scripted), "--no-progress").returncode == 0
    compared = recode(tmp_path, "compare", str(scripted), str(out))
    assert compared.returncode == 0, compared.stderr
    text = compared.stdout
    assert "tokens: the baseline's are a script's estimate" in text
    tokens = read_report(out)["summary"]["overall"]["total_tokens"]
    assert f"→ {tokens}" in text and "≈" in text
    assert _delta("cost", -0.00000004) == "+$0.0000" and _delta("cost", -0.0001) == "-$0.0001"
