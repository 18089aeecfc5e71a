"""`python -m mockllm.openai_server` as a user runs it: a fixed port, latency, injected errors."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ANSWER = "<think>look</think><execute>\nrun('look')\n</execute>"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve(*args: str) -> tuple[subprocess.Popen[str], str]:
    """Start the server; wait for its first line, which names the URL."""
    process = subprocess.Popen([sys.executable, "-m", "mockllm.openai_server", *args], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline()  # blocks until the server listens (or exits)
    assert line.startswith("serving "), line + process.stderr.read()
    return process, line


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "answers.jsonl"
    path.write_text(json.dumps({"stub": "*", "answer": ANSWER}) + "\n")
    return path


def test_a_user_runs_the_server_on_a_fixed_port_with_latency_and_errors(script: Path, tmp_path: Path):
    port = free_port()
    profiles = tmp_path / "profiles.yaml"
    process, line = serve("--script", str(script), "--port", str(port), "--latency", "0.1", "--fail", "500",
                          "--fail", "429x2", "--write-profiles", str(profiles))
    try:
        base_url = f"http://127.0.0.1:{port}/v1"
        assert base_url in line
        assert base_url in profiles.read_text()
        import openai  # here, not at the top: every xdist worker imports the test modules when it collects

        client = openai.OpenAI(base_url=base_url, api_key="x", max_retries=0)
        ask = dict(model="local-test-model", messages=[{"role": "user", "content": "# Current function to expand\n"
                                                                                  "solve(instruction, observation)\n# Variables"}])
        with pytest.raises(openai.InternalServerError):
            client.chat.completions.create(**ask)
        for _ in range(2):
            with pytest.raises(openai.RateLimitError):
                client.chat.completions.create(**ask)
        began = time.monotonic()
        reply = client.chat.completions.create(**ask)
        assert time.monotonic() - began >= 0.1  # the latency asked for (on each of the 4 calls: kept short)
        assert reply.choices[0].message.content == ANSWER and reply.usage.completion_tokens > 0
    finally:
        process.send_signal(signal.SIGINT)
        try:
            assert process.wait(timeout=10) == 0
        finally:
            process.kill()  # never leave it listening for the next test
    assert "served 4 call(s)" in process.stderr.read()


def refused(argv: list[str], capsys) -> str:
    """`python -m mockllm.openai_server ARGV`'s argument handling, run in-process: it must exit 2; what it printed."""
    from mockllm.openai_server import main

    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    return capsys.readouterr().err


def test_bad_input_is_one_line(script: Path, tmp_path: Path, capsys):
    cases = [
        (["--script", str(tmp_path / "missing.yaml")], "cannot read script"),
        (["--script", str(script), "--fail", "teapot"], "use FAULT or FAULTxN"),
    ]
    for args, message in cases:
        assert message in refused(args, capsys)
    with socket.socket() as taken:  # a port already in use
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        said = refused(["--script", str(script), "--port", str(port)], capsys)
    assert "pick another --port" in said
    assert len(said.strip().splitlines()) == 1
