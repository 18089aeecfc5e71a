"""A local OpenAI-compatible chat server that answers from a script.

For tests and benchmarks of the real `openai` client: it speaks the
`/v1/chat/completions` wire format over real HTTP on 127.0.0.1, reports usage,
and can inject the failures a real endpoint has (429, 500, timeouts, malformed
JSON, empty or truncated answers), a fixed latency per call, and answer a prompt
asked before differently (`again`: a server not deterministic at temperature 0).

    with OpenAICompatibleServer(responder) as server:
        client = openai.AsyncOpenAI(base_url=server.base_url, api_key="x")

A user runs it on a fixed port to try a profile without a real model:

    python -m mockllm.openai_server --script mockllm/demos/alfworld.yaml --port 8011 \
        --latency 0.5 --fail 429x2 --fail timeout
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any, Callable

from mockllm.serving import BackgroundServer

if TYPE_CHECKING:
    from mockllm.scripted import ScriptEntry

@dataclass(frozen=True)
class Reply:
    """An answer with its finish reason: `Reply(text, "length")` is one the model's max_tokens cut."""

    text: str
    finish: str = "stop"


Responder = Callable[[str], "str | Reply"]  # prompt -> answer text (or a Reply); raises NoAnswer when it has none


class NoAnswer(Exception):
    """A responder has no answer for this prompt: the server answers an error (HTTP 400 with this
    message), never an answer text a client would take for the model's."""

FAULTS = ("429", "500", "timeout", "malformed", "empty", "truncated", "401", "404")


def count_tokens(text: str) -> int:
    """The server's own token count: words and punctuation runs (stable, easy to check)."""
    return max(1, len(text.split()))


@dataclass
class ServedCall:
    prompt: str
    model: str
    answer: str | None
    status: int
    prompt_tokens: int = 0
    completion_tokens: int = 0
    stop: tuple[str, ...] = ()  # the request's stop sequences
    api_key: str = ""  # the bearer key the request carried
    seconds: float = 0.0  # from the request's arrival to its answer (or to giving it up): the server's own time


@dataclass
class OpenAICompatibleServer:
    responder: Responder
    model: str = "local-test-model"
    latency: float = 0.0  # seconds added to every call
    port: int = 0  # 0: any free port (tests); a user picks a fixed one
    host: str = "127.0.0.1"
    timeout_sleep: float = 5.0  # how long a "timeout" fault stalls
    # Seconds a 429 or 500 fault tells the client to wait before its retry (the `retry-after-ms` header
    # OpenAI's API sends and its SDK honours); None: no header, the client's own backoff (about 0.5 s, doubling).
    retry_after: float | None = None
    # Answers a prompt asked before, when set: a server that is not deterministic at temperature 0
    # (hosted APIs, batched servers), where the same request can get another answer.
    again: Responder | None = None
    calls: list[ServedCall] = field(default_factory=list)
    received: int = 0  # requests that arrived (a stalled one is in `calls` only once it ends)
    _faults: deque[str] = field(default_factory=deque)
    _asked: set[str] = field(default_factory=set)  # the prompts answered so far (for `again`)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def inject(self, fault: str, times: int = 1) -> None:
        """The next `times` calls fail with `fault` (one of FAULTS), in order."""
        if fault not in FAULTS:
            raise ValueError(f"unknown fault {fault!r}; use one of {', '.join(FAULTS)}")
        self._faults.extend([fault] * times)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        host = host.decode() if isinstance(host, bytes) else host  # a TCP server's host is a str already
        return f"http://{host}:{port}/v1"

    def start(self) -> "OpenAICompatibleServer":
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server naming
                if self.path.rstrip("/").endswith("/models"):
                    self._json(200, {"object": "list", "data": [{"id": server.model, "object": "model"}]})
                else:
                    self._json(404, {"error": {"message": "not found", "type": "not_found"}})

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._json(404, {"error": {"message": "not found", "type": "not_found"}})
                    return
                server._serve(self, body, self.headers.get("Authorization", "").removeprefix("Bearer ").strip())

            def _json(self, status: int, payload: Any, raw: bytes | None = None,
                      headers: dict[str, str] | None = None) -> None:
                data = raw if raw is not None else json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in (headers or {}).items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                    pass

        self._httpd = ThreadingHTTPServer((self.host, self.port), Handler)
        self._httpd.daemon_threads = True
        self._serving = BackgroundServer(self._httpd).start()
        return self

    def stop(self) -> None:
        self._serving.stop()

    def __enter__(self) -> "OpenAICompatibleServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _serve(self, handler: Any, body: dict[str, Any], api_key: str = "") -> None:
        messages = body.get("messages") or []
        prompt = "\n".join(str(m.get("content", "")) for m in messages if isinstance(m, dict))
        model = str(body.get("model", self.model))
        stop = body.get("stop") or ()
        stops = (stop,) if isinstance(stop, str) else tuple(str(s) for s in stop)
        began = time.monotonic()
        with self._lock:
            self.received += 1
            fault = self._faults.popleft() if self._faults else None
        if self.latency:
            time.sleep(self.latency)
        if fault in ("429", "500", "401", "404"):
            status = int(fault)
            self.calls.append(ServedCall(prompt, model, None, status, seconds=time.monotonic() - began))
            wait = None
            if self.retry_after is not None and fault in ("429", "500"):  # the two a client retries
                wait = {"retry-after-ms": f"{self.retry_after * 1000:g}"}
            handler._json(status, {"error": {"message": f"injected {fault}", "type": "injected", "code": fault}},
                          headers=wait)
            return
        if fault == "timeout":
            time.sleep(self.timeout_sleep)
            self.calls.append(ServedCall(prompt, model, None, 0, seconds=time.monotonic() - began))
            return
        if fault == "malformed":
            self.calls.append(ServedCall(prompt, model, None, 200))
            handler._json(200, None, raw=b'{"id": "x", "choices": [ {"message": ')
            return
        with self._lock:
            seen = prompt in self._asked
            self._asked.add(prompt)
        respond = self.again if seen and self.again is not None else self.responder
        try:
            reply = Reply("") if fault == "empty" else respond(prompt)
        except NoAnswer as exc:
            self.calls.append(ServedCall(prompt, model, None, 400))
            handler._json(400, {"error": {"message": str(exc), "type": "no_scripted_answer", "code": "no_answer"}})
            return
        answer, finish = (reply.text, reply.finish) if isinstance(reply, Reply) else (reply, "stop")
        ends = [answer.find(s) for s in stops if s in answer]
        if ends:  # as a real server does: the answer ends before the first stop sequence
            answer, finish = answer[: min(ends)], "stop"
        if fault == "truncated":
            answer, finish = answer[: max(1, len(answer) // 3)], "length"
        usage = {"prompt_tokens": count_tokens(prompt), "completion_tokens": count_tokens(answer) if answer else 0}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        self.calls.append(ServedCall(prompt, model, answer, 200, usage["prompt_tokens"], usage["completion_tokens"],
                                     stops, api_key, time.monotonic() - began))
        handler._json(
            200,
            {
                "id": f"chatcmpl-{len(self.calls)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": answer}, "finish_reason": finish}
                ],
                "usage": usage,
            },
        )


def write_profiles(
    path: Any,
    base_url: str,
    *,
    model: str = "local-test-model",
    max_retries: int | None = None,
    timeout: float | None = None,
    prices: tuple[float, float] | None = None,
) -> Any:
    """Write a profiles file whose profile `local` points at `base_url`; return the path.

    `prices` is (input, output) USD per million tokens for `model`.
    """
    lines = ["models:", "  local:", f"    base_url: {base_url}", f"    model: {model}"]
    if max_retries is not None:
        lines.append(f"    max_retries: {max_retries}")
    if timeout is not None:
        lines.append(f"    timeout: {timeout:g}")
    if prices is not None:
        lines += ["prices:", f"  {model}: {{input: {prices[0]}, output: {prices[1]}}}"]
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")
    return path


def script_responder(script_path: str) -> Responder:
    """Answer from a scripted-answer file, finding the stub in the prompt text (see `entries_responder`)."""
    from mockllm.scripted import load_script

    return entries_responder(load_script(script_path))


def entries_responder(entries: list[ScriptEntry]) -> Responder:
    """Answer from scripted entries, finding the stub in the prompt text.

    The stub is the text under the last "# Current function to expand" heading
    of the default prompt set; a repair prompt by its "function failed" heading.
    """
    import re

    from agent.llm import CallContext, Purpose

    section = re.compile(r"# Current function to expand\s*\n(.*?)\n\s*# ", re.S)

    def respond(prompt: str) -> str:
        found = section.findall(prompt)
        code = found[-1].strip() if found else ""
        purpose = Purpose.REPAIR if "# The code of this function failed" in prompt else Purpose.EXPAND
        context = CallContext(purpose=purpose, label=code)
        for entry in entries:
            if entry.matches(prompt, context):
                return entry.answer
        if purpose == Purpose.REPAIR:  # a script that scripts no repair declines it, as `ScriptedLLM` does
            return "<think>no scripted answer</think><execute></execute>"
        raise NoAnswer(f"the script has no answer for stub `{code or '(none found in the prompt)'}`; "
                       "add an entry for it")

    return respond


def _fault_arg(value: str) -> tuple[str, int]:
    """`FAULT` or `FAULTxN`: the next N calls fail that way."""
    import argparse

    fault, _, times = value.partition("x")
    if fault not in FAULTS or (times and not times.isdigit()):
        raise argparse.ArgumentTypeError(f"{value!r}: use FAULT or FAULTxN with FAULT one of {', '.join(FAULTS)}")
    return fault, int(times or 1)


def main(argv: list[str] | None = None) -> int:
    """`python -m mockllm.openai_server --script FILE --port N`: serve a script until Ctrl-C."""
    import argparse
    import sys

    from agent.llm import LLMError

    parser = argparse.ArgumentParser(
        prog="python -m mockllm.openai_server",
        description="A local OpenAI-compatible chat server that answers from a scripted-answer file.",
    )
    parser.add_argument("--script", required=True, help="answers: a YAML or JSON Lines script (like --llm scripted:FILE)")
    parser.add_argument("--port", type=int, default=8011, help="port on 127.0.0.1 (default 8011; 0: any free port)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--model", default="local-test-model", help="the model name it reports")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added to every call")
    parser.add_argument("--fail", type=_fault_arg, action="append", default=[], metavar="FAULT[xN]",
                        help=f"the next call(s) fail this way, in order given: {', '.join(FAULTS)}")
    parser.add_argument("--timeout-sleep", type=float, default=5.0, help="how long a `timeout` fault stalls (seconds)")
    parser.add_argument("--write-profiles", default=None, metavar="FILE",
                        help="also write a profiles file whose profile `local` points here")
    args = parser.parse_args(argv)
    if args.latency < 0 or args.timeout_sleep < 0:
        parser.exit(2, "openai_server: error: --latency and --timeout-sleep must be 0 or more\n")
    try:
        responder = script_responder(args.script)
    except LLMError as exc:
        parser.exit(2, f"openai_server: error: {exc}\n")
    server = OpenAICompatibleServer(responder, model=args.model, latency=args.latency,
                                    timeout_sleep=args.timeout_sleep, port=args.port, host=args.host)
    for fault, times in args.fail:
        server.inject(fault, times)
    try:
        server.start()
    except OSError as exc:
        parser.exit(2, f"openai_server: error: cannot listen on {args.host}:{args.port}: {exc.strerror}; "
                       "pick another --port\n")
    if args.write_profiles:
        write_profiles(args.write_profiles, server.base_url, model=args.model)
    print(f"serving {args.script} at {server.base_url} (model {args.model}); Ctrl-C stops", flush=True)
    try:
        server._serving.join()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    print(f"served {len(server.calls)} call(s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
