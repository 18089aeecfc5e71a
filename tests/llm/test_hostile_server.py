"""The real `openai` client against servers that misbehave in ways the mock server does not:
a body dripped a byte at a time, a reply of the wrong shape, an HTML page with HTTP 200.

Each must end the call with one `LLMError` line (retryable: the run pauses), never a hang
or an internal error.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterator

import pytest

from agent.llm import LLMError
from agent.llm.openai_client import OpenAILLM
from agent.llm.profiles import PriceTable, Profile
from mockllm.openai_server import write_profiles
from mockllm.serving import BackgroundServer
from tests.eval.helpers import run_main

Reply = Callable[[BaseHTTPRequestHandler], None]
ANSWER = "<think>look</think>\n<execute>\nrun('look')\n</execute>"


class HostileServer:
    """An HTTP server on 127.0.0.1 whose every POST is answered by `reply` (raw control of the bytes)."""

    def __init__(self, reply: Reply) -> None:
        self.requests = 0
        self.closing = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server naming
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                server.requests += 1
                try:
                    reply(self)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up
                    pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._serving = BackgroundServer(self._httpd).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.closing.set()
        self._serving.stop()


def send(handler: BaseHTTPRequestHandler, body: bytes, content_type: str = "application/json") -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def completion(**fields: Any) -> bytes:
    """A chat completion reply with `fields` replaced."""
    reply = {"id": "c1", "object": "chat.completion", "created": 0, "model": "m",
             "choices": [{"index": 0, "message": {"role": "assistant", "content": ANSWER}, "finish_reason": "stop"}],
             "usage": {"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8}}
    reply.update(fields)
    return json.dumps(reply).encode()


def dripping(server_closing: Callable[[], bool], every: float = 0.05) -> Reply:
    """Headers at once, then the body one byte `every` seconds (a tenth of the deadline the tests give the
    client, `DEADLINE`): each read is quick, the whole never comes."""

    def reply(handler: BaseHTTPRequestHandler) -> None:
        body = completion()
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        for byte in body:
            if server_closing():
                return
            handler.wfile.write(bytes([byte]))
            handler.wfile.flush()
            time.sleep(every)

    return reply


@pytest.fixture
def hostile() -> Iterator[Callable[[Reply], HostileServer]]:
    started: list[HostileServer] = []

    def start(reply: Reply) -> HostileServer:
        started.append(HostileServer(reply))
        return started[-1]

    yield start
    for server in started:
        server.close()


DEADLINE = 0.5  # the drip tests' profile timeout: the dripped body's whole never comes within it, each byte does
ANSWERED = 30.0  # the timeout where a reply's shape is the subject: a loaded machine's slow answer is no failure


def llm_for(url: str, **overrides: Any) -> OpenAILLM:
    settings = dict(name="local", model="m", api_key="k", base_url=url, timeout=ANSWERED, max_retries=0)
    settings.update(overrides)
    return OpenAILLM(Profile(**settings), PriceTable())


async def test_a_body_dripped_a_byte_at_a_time_is_cut_at_the_profile_timeout(hostile) -> None:
    server = hostile(lambda handler: dripping(lambda: server.closing.is_set())(handler))
    with pytest.raises(LLMError) as caught:
        # The guard only keeps a broken client from hanging the suite; the deadline must come first.
        await asyncio.wait_for(llm_for(server.base_url, timeout=DEADLINE, max_retries=1).complete("hi"), 20)
    assert "gave no answer within 0.5 s (one deadline over the call and its 1 retries)" in str(caught.value)
    assert server.requests == 1  # the one deadline passed during the first attempt: no retry after it


@pytest.mark.heavy  # the command line (its `main`, in this process) runs model code in the sandbox worker
def test_a_headless_run_against_a_dripping_server_ends_with_the_timeout_line(hostile, tmp_path, toy_game) -> None:
    server = hostile(lambda handler: dripping(lambda: server.closing.is_set())(handler))
    profiles = write_profiles(tmp_path / "profiles.yaml", server.base_url, model="m", max_retries=0, timeout=DEADLINE)
    result = run_main(["run", "--game", toy_game, "--llm", "profile:local", "--profiles", str(profiles), "--quiet"],
                      dict(os.environ, RECODE_TUI_SESSIONS=str(tmp_path / "sessions"), OPENAI_API_KEY="k"))
    assert result.returncode == 1
    assert "FAILED: LLM error:" in result.stdout and "gave no answer within 0.5 s" in result.stdout
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (completion(choices=["hello"]), "returned a choice without a message object; retry or check the server"),
        (completion(choices=[{"message": {"content": ["a", "b"]}}]), "returned a message whose content is not text"),
        (completion(choices=[]), "returned no choices; retry or check the server"),
        (b'["a list"]', "returned JSON that is not a chat completion object; check base_url"),
    ],
)
async def test_a_reply_of_the_wrong_shape_is_one_llm_error_line(hostile, body: bytes, message: str) -> None:
    server = hostile(lambda handler: send(handler, body))
    with pytest.raises(LLMError) as caught:
        await llm_for(server.base_url).complete("hi")
    assert message in str(caught.value) and "\n" not in str(caught.value)


async def test_a_usage_that_is_not_token_counts_counts_nothing_but_keeps_the_answer(hostile) -> None:
    server = hostile(lambda handler: send(handler, completion(usage="lots")))
    answer = await llm_for(server.base_url).complete("hi")
    assert answer.text == ANSWER and (answer.usage.input_tokens, answer.usage.output_tokens) == (0, 0)
    server2 = hostile(lambda handler: send(handler, completion(usage={"prompt_tokens": "3", "completion_tokens": None})))
    answer = await llm_for(server2.base_url).complete("hi")
    assert answer.text == ANSWER and (answer.usage.input_tokens, answer.usage.output_tokens) == (0, 0)
    assert answer.usage + answer.usage == answer.usage  # counts add up: the run's totals do not break on them


async def test_an_html_page_with_http_200_is_named_a_non_json_answer_with_its_content_type(hostile) -> None:
    page = b"<!doctype html><html><body><h1>Welcome to nginx!</h1></body></html>"
    server = hostile(lambda handler: send(handler, page, "text/html; charset=utf-8"))
    with pytest.raises(LLMError) as caught:
        await llm_for(server.base_url).complete("hi")
    text = str(caught.value)
    assert "returned a non-JSON answer (text/html," in text and "check base_url" in text
    assert "no choices" not in text and "\n" not in text
