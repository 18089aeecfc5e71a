"""A bundled game solved through the real openai client and a local OpenAI-compatible server."""

from __future__ import annotations

import os
import re

import pytest

from mockllm.openai_server import OpenAICompatibleServer, script_responder, write_profiles
from recode_tui.setup.build import DEMO_SCRIPT
from tests.eval.helpers import run_main

PRICE_IN, PRICE_OUT = 2.0, 8.0  # USD per million tokens, set in the profiles file
LATENCY = 0.05  # the local server's time per answer, shown as the run's LLM time

pytestmark = pytest.mark.heavy  # real ALFWorld games, played by the command line


def profiles_file(tmp_path, base_url: str, max_retries: int = 2):
    return write_profiles(tmp_path / "profiles.yaml", base_url, max_retries=max_retries, prices=(PRICE_IN, PRICE_OUT))


def test_a_bundled_game_is_won_through_a_profile_and_the_cost_matches_the_price_table(tmp_path):
    with OpenAICompatibleServer(script_responder(str(DEMO_SCRIPT)), latency=LATENCY, retry_after=0.001) as server:
        server.inject("500")  # one transient failure: the SDK retries it (after the 1 ms the server asks for)
        result = run_main(["run", "--game", "heat-02", "--llm", "profile:local",
                           "--profiles", str(profiles_file(tmp_path, server.base_url)), "--quiet"],
                          dict(os.environ, RECODE_TUI_SESSIONS=str(tmp_path / "sessions"), OPENAI_API_KEY=""))
    assert result.returncode == 0, result.stdout + result.stderr
    served = [c for c in server.calls if c.status == 200]
    assert server.calls[0].status == 500 and len(served) >= 2
    tokens_in = sum(c.prompt_tokens for c in served)
    tokens_out = sum(c.completion_tokens for c in served)
    expected = (tokens_in * PRICE_IN + tokens_out * PRICE_OUT) / 1_000_000
    summary = result.stdout.strip()
    assert summary.startswith("SUCCESS: won")
    assert f"{len(served)} LLM calls" in summary and f"tokens {tokens_in}+{tokens_out}" in summary
    waited = float(re.search(r"LLM time (\d+\.\d) s", summary).group(1))
    assert waited >= round(LATENCY * len(served), 1)  # the server's latency, every call
    assert re.search(r"cost \$(\d+\.\d+)", summary).group(1) == f"{expected:.4f}"


def test_a_dead_server_ends_a_headless_run_with_one_clear_line(tmp_path, toy_game):
    with OpenAICompatibleServer(lambda prompt: "") as server:
        url = server.base_url
    result = run_main(["run", "--game", toy_game, "--llm", "profile:local", "--profiles",
                       str(profiles_file(tmp_path, url, max_retries=0)), "--quiet"],  # no retry: the SDK's backoff is not what is checked
                      dict(os.environ, RECODE_TUI_SESSIONS=str(tmp_path / "sessions")))
    assert result.returncode == 1
    assert "FAILED: LLM error: cannot connect to http://127.0.0.1:" in result.stdout
    assert "is the server running?" in result.stdout and "Traceback" not in result.stderr
