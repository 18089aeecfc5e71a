"""`eval --repeat` and `compare` call an episode's plays "one result repeated" only when the recorded
plays are the same, never because every call ran at temperature 0: a hosted API or a batched server
can answer the same request differently at temperature 0.

Real parts: the command line, the toy environment in eval's worker processes, the real openai client
against the local OpenAI-compatible server on 127.0.0.1, which answers a prompt asked before differently.
"""

from __future__ import annotations

import pytest

from envs import registry
from mockllm.openai_server import OpenAICompatibleServer

from .helpers import profiles_file, read_report, recode

GAME = "key-1"
LOOK = "<think>just look</think><execute>\nrun('look')\n</execute>"


@pytest.fixture(autouse=True)
def toy(toy_env):
    return toy_env


def solving() -> str:
    code = "".join(f"run({a!r})\n" for a in registry.gold_actions(f"toy:{GAME}"))
    return f"<think>the known way</think><execute>\n{code}</execute>"


def evaluate(tmp_path, name: str, server: OpenAICompatibleServer):
    out = tmp_path / name
    result = recode(tmp_path, "eval", "--env", "toy", "--llm", "profile:local", "--profiles",
                    str(profiles_file(tmp_path, server.base_url)), "--games", GAME, "--repeat", "2", "-c", "1",
                    "--out", str(out), "--no-progress")
    assert result.returncode == 0, result.stdout + result.stderr
    return out, result.stdout


@pytest.mark.heavy  # eval starts environment workers in other processes
def test_plays_that_differed_at_temperature_0_are_not_called_one_result_repeated(tmp_path):
    answer = solving()
    with OpenAICompatibleServer(lambda prompt: answer) as steady:
        same, said = evaluate(tmp_path, "steady", steady)
    assert "identical plays (recorded the same; temperature 0)" in said

    with OpenAICompatibleServer(lambda prompt: answer, again=lambda prompt: LOOK) as varying:
        differed, said = evaluate(tmp_path, "varying", varying)
    plays = read_report(differed)["episodes"]
    assert all(e["temperature"] == 0 for e in plays) and {e["success"] for e in plays} == {True, False}
    assert "identical plays" not in said and "one result repeated" not in said

    compared = recode(tmp_path, "compare", str(same), str(differed))
    assert compared.returncode == 0, compared.stderr
    assert "identical plays" not in compared.stdout and "not noise" not in compared.stdout
