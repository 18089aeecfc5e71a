"""Every billed token, second and dollar is counted once: a refused answer and an answer cut at
max_tokens count in the journal's records, its `finished` record and the run's last line, as the
server billed them.

Real parts: the command line's `main` (in this process: what is counted is checked, not the process), the
CodeAct agent on the real ALFWorld engine, the real openai client against the local OpenAI-compatible server
on 127.0.0.1 with a price table.
"""

from __future__ import annotations

import json
import os
import re
import threading

import pytest

from mockllm.demos.served import demo_responder
from mockllm.openai_server import OpenAICompatibleServer, Reply, write_profiles
from tests.eval.helpers import run_main

PRICE_IN, PRICE_OUT = 2.0, 8.0  # USD per million tokens
JUNK = "I would go to the dining table and look for the vase there."  # no code: CodeAct refuses it
CUT = '<think>go to the table first</think>\n<execute>\nrun("go to dining'  # cut before </execute>


def first_refused_then_cut_then_the_demo():
    demo, lock, calls = demo_responder(), threading.Lock(), [0]

    def respond(prompt: str):
        with lock:
            calls[0] += 1
            number = calls[0]
        if number == 1:
            return JUNK
        if number == 2:
            return Reply(CUT, "length")
        return demo(prompt)

    return respond


def cli_env(tmp_path) -> dict[str, str]:
    return dict(os.environ, RECODE_TUI_SESSIONS=str(tmp_path / "sessions"), OPENAI_API_KEY="")


@pytest.mark.heavy  # a whole ALFWorld episode
def test_refused_and_cut_answers_count_in_the_journal_its_finished_record_and_the_run_line(tmp_path):
    with OpenAICompatibleServer(first_refused_then_cut_then_the_demo(), latency=0.05) as server:
        profiles = write_profiles(tmp_path / "profiles.yaml", server.base_url, max_retries=0,
                                  prices=(PRICE_IN, PRICE_OUT))
        result = run_main(["run", "--game", "put-01", "--agent", "codeact", "--llm", "profile:local", "--profiles",
                           str(profiles)], cli_env(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    billed = [c for c in server.calls if c.status == 200]
    tokens_in, tokens_out = sum(c.prompt_tokens for c in billed), sum(c.completion_tokens for c in billed)
    cost = (tokens_in * PRICE_IN + tokens_out * PRICE_OUT) / 1_000_000

    # CodeAct's refusals in its own words: its calls are `act`s, not expansions
    assert "act of n1 rejected: " in result.stdout and "expansion of" not in result.stdout
    assert "rejected: the answer was cut at max_tokens=2048 before </execute>" in result.stdout

    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith("SUCCESS: won")
    assert f"{len(billed)} LLM calls" in last and f"tokens {tokens_in}+{tokens_out}" in last
    assert re.search(r"cost \$(\d+\.\d+)", last).group(1) == f"{cost:.4f}"

    journal = next((tmp_path / "sessions").rglob("journal.jsonl"))
    records = [json.loads(line) for line in journal.read_text().splitlines()]
    answers = [r for r in records if r["type"] == "answer"]
    finished = next(r for r in records if r["type"] == "finished")
    refused = [r for r in answers if not r["accepted"]]
    assert len(refused) == 2 and refused[1].get("cut_at") == 2048
    assert all(r["input_tokens"] > 0 and r["output_tokens"] > 0 and r["cost"] > 0 for r in refused)
    # the journal agrees with its own finished record, and both with what the server billed
    assert len(answers) == finished["llm_calls"] == len(billed)
    assert sum(r["input_tokens"] for r in answers) == finished["input_tokens"] == tokens_in
    assert sum(r["output_tokens"] for r in answers) == finished["output_tokens"] == tokens_out
    assert sum(r["cost"] for r in answers) == pytest.approx(finished["cost"]) == pytest.approx(cost)
    assert sum(r["seconds"] for r in answers) == pytest.approx(finished["llm_seconds"], abs=0.01)
    assert finished["llm_seconds"] >= 0.05 * len(billed)  # every answer's wait, the refused ones too


@pytest.mark.heavy  # a whole ALFWorld episode
def test_a_scripted_roles_estimated_tokens_are_not_added_to_the_models_counted_ones(tmp_path):
    from tests.agents.test_plan_execute_routing import EXECUTOR, write_scripts

    planner, _ = write_scripts(tmp_path)

    def executor(prompt: str) -> str:
        return next(answer for when, answer in EXECUTOR if re.search(when, prompt))

    with OpenAICompatibleServer(executor) as server:
        profiles = write_profiles(tmp_path / "profiles.yaml", server.base_url, max_retries=0)
        result = run_main(["run", "--quiet", "--game", "put-01", "--agent", "plan-execute", "--llm",
                           f"planner=scripted:{planner},executor=profile:local", "--profiles", str(profiles)],
                          cli_env(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    billed = [c for c in server.calls if c.status == 200]
    tokens_in, tokens_out = sum(c.prompt_tokens for c in billed), sum(c.completion_tokens for c in billed)
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith("SUCCESS: won") and f"tokens {tokens_in}+{tokens_out}" in last, last

    journal = next((tmp_path / "sessions").rglob("journal.jsonl"))
    records = [json.loads(line) for line in journal.read_text().splitlines()]
    answers = [r for r in records if r["type"] == "answer"]
    finished = next(r for r in records if r["type"] == "finished")
    planned = [r for r in answers if r.get("role") == "planner"]
    assert planned and all(r.get("estimated") is True for r in planned)  # the script's guess, marked so
    counted = [r for r in answers if not r.get("estimated")]
    assert sum(r["input_tokens"] for r in counted) == finished["input_tokens"] == tokens_in
    assert finished["extra"]["roles"]["planner"]["input_tokens"] > 0  # the role's own line keeps its estimate
