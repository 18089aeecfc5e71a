"""Profile settings a real endpoint needs: stop sequences, a key read from a named environment
variable, and one deadline for a whole call (every retry within it, the evaluation's included).

The real openai client against the local OpenAI-compatible server on 127.0.0.1, profiles read
from YAML files as a user writes them.
"""

from __future__ import annotations

import os
import time

import pytest

from agent.llm import LLMError
from agent.llm.openai_client import OpenAILLM
from agent.llm.profiles import ProfileError, load_profiles, resolve_profile
from mockllm.openai_server import OpenAICompatibleServer

from tests.eval.helpers import read_report, recode

RAMBLE = "Thought: the vase is on the table.\nAction: go to diningtable 1\nObservation: You arrive at diningtable 1."


def profile_from(tmp_path, settings: str, name: str = "local"):
    path = tmp_path / "profiles.yaml"
    path.write_text(f"models:\n  {name}:\n" + "".join(f"    {line}\n" for line in settings.strip().splitlines()))
    return resolve_profile(name, load_profiles(path), os.environ)


@pytest.mark.parametrize("stop", ['stop: "Observation:"', 'stop: ["Observation:", "\\nThought:"]'])
async def test_stop_sequences_are_sent_and_the_answer_ends_before_them(tmp_path, stop):
    with OpenAICompatibleServer(lambda prompt: RAMBLE) as server:
        profile = profile_from(tmp_path, f"base_url: {server.base_url}\nmodel: m\nmax_retries: 0\n{stop}")
        completion = await OpenAILLM(profile).complete("next turn")
    assert "Observation:" in server.calls[-1].stop
    assert completion.text == "Thought: the vase is on the table.\nAction: go to diningtable 1\n"
    assert completion.cut_at is None


async def test_a_named_profile_takes_its_key_from_the_environment_variable_it_names(tmp_path, monkeypatch):
    monkeypatch.setenv("SECOND_ENDPOINT_KEY", "sk-from-the-environment")
    remote = profile_from(tmp_path, "base_url: https://api.example.test/v1\nmodel: m\napi_key_env: SECOND_ENDPOINT_KEY",
                          name="second")
    assert remote.api_key == "sk-from-the-environment"
    assert "sk-from" not in (tmp_path / "profiles.yaml").read_text()
    with OpenAICompatibleServer(lambda prompt: RAMBLE) as server:
        profile = profile_from(tmp_path, f"base_url: {server.base_url}\nmodel: m\napi_key_env: SECOND_ENDPOINT_KEY")
        await OpenAILLM(profile).complete("hi")
    assert server.calls[-1].api_key == "sk-from-the-environment"  # the key the request carried
    monkeypatch.delenv("SECOND_ENDPOINT_KEY")
    with pytest.raises(ProfileError, match=r"profile 'second' reads its key from \$SECOND_ENDPOINT_KEY, which is "
                                           r"not set; export SECOND_ENDPOINT_KEY=\.\.\. and run again"):
        profile_from(tmp_path, "base_url: https://api.example.test/v1\nmodel: m\napi_key_env: SECOND_ENDPOINT_KEY",
                     name="second")


@pytest.mark.parametrize(("settings", "message"), [
    ("model: m\nstop: []", "models.local.stop must be a text or a list of texts, none empty (line 5)"),
    ("model: m\nstop: 5", "models.local.stop must be a text or a list of texts (line 5)"),
    ("model: m\napi_key: sk-1\napi_key_env: K", "models.local has both api_key and api_key_env; keep one"),
    ("model: m\ntimeout: 0", "models.local.timeout must be more than 0 seconds (line 5)"),
])
def test_bad_settings_are_one_line_naming_the_field(tmp_path, settings, message):
    with pytest.raises(ProfileError) as caught:
        profile_from(tmp_path, "base_url: http://127.0.0.1:1/v1\n" + settings)
    assert message in str(caught.value) and "\n" not in str(caught.value)


async def test_one_deadline_covers_the_call_and_every_retry_of_the_client(tmp_path):
    with OpenAICompatibleServer(lambda prompt: RAMBLE, timeout_sleep=3.0) as server:
        server.inject("timeout", times=4)
        profile = profile_from(tmp_path, f"base_url: {server.base_url}\nmodel: m\nmax_retries: 3\ntimeout: 0.5")
        with pytest.raises(LLMError) as caught:
            await OpenAILLM(profile).complete("hi")
        received = server.received
    assert received == 1  # the deadline passed during the first attempt: no retry started after it
    assert caught.value.retry is False
    assert "gave no answer within 0.5 s (one deadline over the call and its 3 retries)" in str(caught.value)


@pytest.mark.heavy  # eval plays in worker processes, model code in the sandbox worker
def test_an_evaluation_does_not_ask_again_after_a_call_missed_its_deadline(tmp_path, toy_env):
    with OpenAICompatibleServer(lambda prompt: RAMBLE, timeout_sleep=2.0) as server:
        server.inject("timeout", times=20)
        path = tmp_path / "profiles.yaml"
        path.write_text(f"models:\n  local:\n    base_url: {server.base_url}\n    model: m\n"
                        "    max_retries: 2\n    timeout: 1\n")
        began = time.monotonic()
        result = recode(tmp_path, "eval", "--llm", "profile:local", "--profiles", str(path), "--env", "toy",
                        "--games", "vase-1", "-c", "1", "--out", str(tmp_path / "out"), "--no-progress")
        waited = time.monotonic() - began
        received = server.received
    assert result.returncode == 1
    assert "gave no answer within 1 s" in result.stderr and "--resume" in result.stderr
    assert received == 1, (received, waited)  # not 3 client attempts times 3 evaluation tries
    assert read_report(tmp_path / "out")["status"] == "aborted"
