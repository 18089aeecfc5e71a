"""The failure summary of an evaluation of several agents: each agent's failures grouped apart and named,
one denominator per agent, a missing action claimed only of the episodes of its task type, a ReCode
rewrite-limit failure filed under the node whose answers were refused (never `?`), and a baseline's
failure under the turn where it stopped getting anywhere (never its root).

Real parts: `recode-tui eval` with two agents, ALFWorld in worker processes, the real openai client
against the local OpenAI-compatible server on 127.0.0.1.
"""

from __future__ import annotations

import re

import pytest

from envs.alfworld.catalog import list_games
from mockllm.demos.served import agent_of, demo_responder
from mockllm.openai_server import OpenAICompatibleServer

from .helpers import instruction_when, profiles_file, read_report, recode

pytestmark = pytest.mark.heavy  # eval starts ALFWorld engines in worker processes

GAMES = ("put-01", "clean-01")


def test_several_agents_failures_are_named_counted_and_placed(tmp_path):
    demo = demo_responder()
    clean = re.compile(instruction_when(next(g.task for g in list_games() if g.id == "clean-01")))

    def respond(prompt: str):
        if agent_of(prompt) == "react":  # goes to one place, then again and again: "Nothing happens."
            return "Thought: the table first.\nAction: go to diningtable 1"
        if clean.search(prompt):  # ReCode on clean-01: never an answer it can take
            return "I would clean the object at the sink."
        return demo(prompt)

    out = tmp_path / "two"
    with OpenAICompatibleServer(respond) as server:
        result = recode(tmp_path, "eval", "--agent", "recode,react", "--llm", "profile:local", "--profiles",
                        str(profiles_file(tmp_path, server.base_url)), "--games", ",".join(GAMES),
                        "--max-steps", "6", "-c", "1", "--out", str(out), "--no-progress")
    assert result.returncode == 0, result.stdout + result.stderr
    report = read_report(out)
    failed = {(e["agent"], e["game"]): e for e in report["episodes"] if not e["success"]}
    failed = {(e["agent"], e["game"]): e for e in report["episodes"] if not e["success"]}
    assert set(failed) == {(agent, game) for agent in ("recode", "react") for game in GAMES}  # 6 steps: none won
    assert all(g["agent"] in ("recode", "react") for g in report["failures"])
    for group in report["failures"]:
        assert group["of"] == 2 and group["line"].startswith(group["agent"] + ": ")  # one denominator per agent
        assert all(name.startswith(group["agent"] + "/") for name in group["episodes"])
        assert group["went_wrong"]

    for game in GAMES:  # the baseline went wrong at the turn its last steps began changing nothing
        culprit = failed[("react", game)]["failure"]["went_wrong"]
        assert culprit["node"] != "n0" and culprit["name"].startswith("turn "), culprit
        assert culprit["why"].startswith("`go to diningtable 1` → `Nothing happens.`")
    put = failed[("react", "put-01")]["failure"]["went_wrong"]
    assert put["name"] == "turn 2"  # turn 1 arrived at the table; from turn 2 on nothing happened

    refused = failed[("recode", "clean-01")]["failure"]["went_wrong"]
    assert refused["name"] == "solve(instruction, observation)" and refused["why"].startswith("answers refused: ")

    table = result.stdout.split("Failures, by the node whose code went wrong")[1].split("concurrency used")[0]
    lines = [line for line in table.splitlines() if "tui --resume" not in line]
    assert not any(line.strip().startswith("?") or ": ?" in line for line in lines), table
    assert any(line.strip().startswith("react: turn 2 (put)") and "1/2 failures of react" in line for line in lines)
    assert any(line.strip().startswith("recode: solve(instruction, observation) (clean)") and
               "1/2 failures of recode" in line for line in lines), table
