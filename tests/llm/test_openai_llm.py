"""The real `openai` client against an OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import socket

import pytest

from agent.llm import LLMError
from agent.llm.openai_client import OpenAILLM
from agent.llm.profiles import PriceTable, Profile
from mockllm.openai_server import OpenAICompatibleServer, count_tokens

ANSWER = "<think>look first</think>\n<execute>\nrun('look')\n</execute>"


@pytest.fixture
def server():
    # a retried fault asks for a 1 ms wait (as OpenAI's retry-after-ms does): the SDK's own backoff is 0.5 s and up
    with OpenAICompatibleServer(lambda prompt: ANSWER, retry_after=0.001) as running:
        yield running


def llm_for(server: OpenAICompatibleServer, **overrides) -> OpenAILLM:
    settings = dict(name="local", model="local-test-model", api_key="k", base_url=server.base_url, timeout=5.0, max_retries=0)
    settings.update(overrides)
    return OpenAILLM(Profile(**settings), PriceTable({"local-test-model": (3.0, 15.0)}))


async def test_answer_usage_and_cost_come_from_the_server(server):
    completion = await llm_for(server).complete("expand solve(instruction, observation) please")
    assert completion.text == ANSWER and completion.source == "model"
    call = server.calls[-1]
    assert call.prompt == "expand solve(instruction, observation) please" and call.model == "local-test-model"
    assert completion.usage.input_tokens == count_tokens(call.prompt) == 4
    assert completion.usage.output_tokens == count_tokens(ANSWER)
    expected = (completion.usage.input_tokens * 3.0 + completion.usage.output_tokens * 15.0) / 1_000_000
    assert completion.cost == pytest.approx(expected)


async def test_the_sdk_retries_429_and_500_then_succeeds(server):
    server.inject("429")
    server.inject("500")
    completion = await llm_for(server, max_retries=2).complete("hi")
    assert completion.text == ANSWER
    assert [c.status for c in server.calls] == [429, 500, 200]


def test_a_retried_fault_says_how_long_to_wait_as_openais_api_does(server):
    """`retry_after` reaches the client as OpenAI's `retry-after-ms` header, on the faults a client retries only."""
    import http.client
    from urllib.parse import urlsplit

    server.retry_after = 0.25
    where = urlsplit(server.base_url)
    headers = []
    for fault in ("429", "500", "401"):
        server.inject(fault)
        connection = http.client.HTTPConnection(where.hostname, where.port)
        connection.request("POST", f"{where.path}/chat/completions", body=b"{}")
        answered = connection.getresponse()
        answered.read()
        connection.close()
        headers.append((answered.status, answered.getheader("retry-after-ms")))
    assert headers == [(429, "250"), (500, "250"), (401, None)]


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ("429", "is rate limiting (429) after 1 retries; wait, then retry"),
        ("500", "answered HTTP 500 after 1 retries; retry later"),
        ("401", "refused the API key (401); check api_key or OPENAI_API_KEY"),
        ("404", "has no model 'local-test-model' (404); check the profile's model"),
        ("malformed", "sent a malformed response"),
    ],
)
async def test_failures_become_one_line_errors_that_say_what_to_do(server, fault, message):
    server.inject(fault, times=2)
    with pytest.raises(LLMError) as caught:
        await llm_for(server, max_retries=1).complete("hi")
    assert message in str(caught.value) and "\n" not in str(caught.value)


async def test_an_answer_cut_at_max_tokens_is_the_models_answer_with_its_counts_not_an_error(server):
    server.inject("truncated")
    completion = await llm_for(server, max_tokens=64).complete("hi")
    call = server.calls[-1]
    assert completion.cut_at == 64 and completion.text == call.answer and len(completion.text) < len(ANSWER)
    assert completion.usage.input_tokens == call.prompt_tokens and completion.usage.output_tokens == call.completion_tokens
    assert completion.cost > 0  # billed like any answer


async def test_an_empty_answer_is_the_models_answer_with_its_counts_not_an_error(server):
    server.inject("empty")
    completion = await llm_for(server).complete("expand solve(instruction, observation) please")
    call = server.calls[-1]
    assert completion.text == "" and completion.cut_at is None and completion.source == "model"
    assert completion.usage.input_tokens == call.prompt_tokens == 4 and completion.cost > 0  # billed


async def test_a_timeout_is_reported_with_the_limit(server):
    server.timeout_sleep = 2.0
    server.inject("timeout")
    with pytest.raises(LLMError, match=r"gave no answer within 0.1 s \(one deadline over the call and its 0 retries\)"):
        await llm_for(server, timeout=0.1).complete("hi")


async def test_a_dead_server_is_connection_refused():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again when the block ends: nothing listens there
    llm = OpenAILLM(Profile(name="dead", model="m", api_key="k", base_url=f"http://127.0.0.1:{port}/v1", max_retries=0))
    with pytest.raises(LLMError, match=r"cannot connect to http://127.0.0.1:\d+/v1 \(profile dead\); is the server running\?"):
        await llm.complete("hi")


def test_a_process_that_only_makes_the_llm_never_imports_the_sdk(server, tmp_path):
    """Eval's driver on a Ray cluster makes the LLM to check the setting, and its workers call the model: the
    driver's ~0.3-0.7 CPU-s of `import openai` was spent for nothing. The first call imports it and answers."""
    import subprocess
    import sys

    code = ("import asyncio, sys\n"
            "from agent.llm.openai_client import OpenAILLM\n"
            "from agent.llm.profiles import Profile\n"
            f"llm = OpenAILLM(Profile(name='local', model='m', api_key='k', base_url={server.base_url!r}))\n"
            "print('openai' in sys.modules)\n"
            "print(asyncio.run(llm.complete('hello')).text == " f"{ANSWER!r}" ", 'openai' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["False", "True", "True"], done.stderr
