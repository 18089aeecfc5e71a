"""An episode its wall clock ended still counts what it was billed for: its answered calls' tokens and the
seconds of the call it was waiting on are in report.json, in its journal's end record and in the trace
export, all equal to the server's own count.

Real parts: `recode-tui eval --episode-timeout` and `export --trace`, the toy environment in eval's worker
processes, the real openai client against the local OpenAI-compatible server on 127.0.0.1, which answers
coin-1's first call with something the agent refuses and holds its second past the wall clock.
"""

from __future__ import annotations

import json
import threading

import pytest

from envs import registry
from mockllm.openai_server import OpenAICompatibleServer, write_profiles

from .helpers import read_report, recode

pytestmark = pytest.mark.heavy  # eval starts environment workers in other processes

CLOCK = 4.0


@pytest.fixture(autouse=True)
def toy(toy_env):
    return toy_env


def test_an_episode_ended_by_its_wall_clock_reports_what_it_was_billed(tmp_path):
    code = "".join(f"run({a!r})\n" for a in registry.gold_actions("toy:key-1"))
    solved = f"<think>the known way</think><execute>\n{code}</execute>"
    released = threading.Event()
    asked = []

    def respond(prompt: str) -> str:
        if "take a coin." not in prompt:
            return solved
        asked.append(prompt)
        if len(asked) == 1:
            return "I am not sure what to do here."  # refused: billed all the same
        released.wait(60)  # held past the episode's wall clock
        return solved

    out = tmp_path / "clocked"
    with OpenAICompatibleServer(respond) as server:
        profiles = write_profiles(tmp_path / "profiles.yaml", server.base_url, max_retries=0, timeout=60)
        try:
            done = recode(tmp_path, "eval", "--env", "toy", "--llm", "profile:local", "--profiles", str(profiles),
                          "--games", "key-1,coin-1", "-c", "1", "--episode-timeout", f"{CLOCK:g}", "--out", str(out),
                          "--no-progress")
        finally:
            released.set()
        coin_calls = [c for c in server.calls if c.status == 200 and "take a coin." in c.prompt]
    assert done.returncode == 0, done.stdout + done.stderr
    by_game = {e["game"]: e for e in read_report(out)["episodes"]}
    coin = by_game["coin-1"]
    assert coin["reason"] == coin["error"] == f"episode wall clock {CLOCK:g} s exceeded"
    billed = coin_calls[0]  # the answered one (the held one ended after the client gave it up)
    assert coin["llm_calls"] == 1 and coin["llm_failures"] == 1
    assert (coin["input_tokens"], coin["output_tokens"]) == (billed.prompt_tokens, billed.completion_tokens)
    assert coin["llm_seconds"] >= CLOCK * 0.8  # the wait on the held call is model time

    journal = [json.loads(line) for line in (out / "journals" / "coin-1" / "journal.jsonl").read_text().splitlines()]
    finished = next(r for r in journal if r.get("type") == "finished")
    assert (finished["input_tokens"], finished["llm_calls"], finished["llm_failures"]) == (
        coin["input_tokens"], 1, 1)
    assert finished["llm_seconds"] == pytest.approx(coin["llm_seconds"], abs=0.01)
    exported = recode(tmp_path, "export", str(out / "journals" / "coin-1"), "--trace")
    meta = json.loads(exported.stdout)["meta"]
    assert (meta["input_tokens"], meta["output_tokens"]) == (coin["input_tokens"], coin["output_tokens"])
    assert meta["llm_seconds"] == pytest.approx(coin["llm_seconds"], abs=0.01)
