"""`recode-tui serve` answers only its own pages, by its own name, with its token, up to its console cap.

Any web page may send requests to 127.0.0.1 and open a websocket there, and DNS
rebinding gives a foreign name this machine's address; the console runs code.
Each test runs the real server as a process on 127.0.0.1 and talks to it with a
real HTTP and websocket client, as a browser (or an attacker's page) would.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("textual_serve")
import aiohttp  # noqa: E402  (installed with the web extra)

pytestmark = pytest.mark.heavy  # a server process, and a console process per websocket

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "s3cret-for-the-walls"
# A console the server starts plays the toy world (tests/toyenv, the `toy_env` fixture names it for the server's
# children): the server's walls, not ALFWorld, are the subject, and a console on the toy world starts for a third of
# the CPU. `--llm human`: the console waits for its user at the first prompt.
CONSOLE = ("--llm", "human", "--game", "toy:vase-1")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Served:
    """`recode-tui serve ARGS` on a free port of 127.0.0.1, until the test ends."""

    def __init__(self, tmp_path: Path, *args: str) -> None:
        self.port = free_port()
        self.process = subprocess.Popen([sys.executable, "-m", "recode_tui", "serve", "--port", str(self.port), *args],
                                        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                        env=dict(os.environ, RECODE_TUI_SESSIONS=str(tmp_path / "default")))
        self.line = self.process.stderr.readline()  # the address it prints, before it listens
        deadline = time.monotonic() + 60
        while True:
            assert self.process.poll() is None, f"serve ended: {self.line}{self.process.stderr.read()}"
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, f"serve never listened on {self.port}"
                time.sleep(0.2)
        self.origin = f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def served(tmp_path):
    started: list[Served] = []

    def start(*args: str) -> Served:
        server = Served(tmp_path, *args)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


async def refused_websocket(server: Served, query: str = f"?token={TOKEN}", **headers: str) -> int:
    """The HTTP status a websocket handshake got (it must not open)."""
    async with aiohttp.ClientSession() as client:
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            async with client.ws_connect(f"{server.origin}/ws{query}", headers=headers):
                pass
    return refused.value.status


async def test_a_foreign_page_a_foreign_name_or_no_token_get_nothing_and_the_servers_own_page_a_console(
        served, tmp_path, toy_env):
    sessions = tmp_path / "sessions"
    server = served("--token", TOKEN, "--", *CONSOLE, "--sessions", str(sessions))
    port = server.port
    # A cross-site websocket: the page of another site, with or without the token.
    assert await refused_websocket(server, Origin="https://evil.example") == 403
    assert await refused_websocket(server, Origin="null") == 403
    # DNS rebinding: a foreign name that resolves here, its page same-origin with itself.
    rebound = f"attacker.example:{port}"
    assert await refused_websocket(server, Host=rebound, Origin=f"http://{rebound}") == 403
    async with aiohttp.ClientSession() as client:
        async with client.get(f"{server.origin}/?token={TOKEN}", headers={"Host": rebound}) as page:
            assert page.status == 403 and "does not answer to the name" in await page.text()
        async with client.get(f"{server.origin}/?token={TOKEN}", headers={"Origin": "https://evil.example"}) as page:
            assert page.status == 403
    # This server's own page, without the token.
    assert await refused_websocket(server, query="", Origin=server.origin) == 403
    assert not sessions.exists()  # no console was started for any of them

    async with aiohttp.ClientSession() as client:
        async with client.get(f"{server.origin}/?token={TOKEN}", headers={"Origin": server.origin}) as page:
            assert page.status == 200 and f"ws://127.0.0.1:{port}/ws" in await page.text()
        async with client.ws_connect(f"{server.origin}/ws?token={TOKEN}&width=100&height=30",
                                     headers={"Origin": server.origin}) as console:
            await session_started(console, sessions)  # the arguments after -- reached the console
    assert "vase-1" in next(sessions.iterdir()).name


async def session_started(console: aiohttp.ClientWebSocketResponse, sessions: Path) -> None:
    """Read the console's output until it has started its session in `sessions`."""
    deadline = time.monotonic() + 120
    while not (sessions.exists() and any(sessions.iterdir())):
        assert time.monotonic() < deadline, "the console never started a session in --sessions"
        try:
            await asyncio.wait_for(console.receive(), 1)
        except asyncio.TimeoutError:
            pass


async def test_one_console_more_than_max_consoles_is_refused_saying_why(served, tmp_path, toy_env) -> None:
    sessions = tmp_path / "sessions"
    server = served("--token", TOKEN, "--max-consoles", "1", "--", *CONSOLE, "--sessions", str(sessions))
    async with aiohttp.ClientSession() as client:
        async with client.ws_connect(f"{server.origin}/ws?token={TOKEN}", headers={"Origin": server.origin}) as one:
            await session_started(one, sessions)
            assert await refused_websocket(server, Origin=server.origin) == 503
            async with client.get(f"{server.origin}/?token={TOKEN}") as page:
                assert page.status == 503 and "--max-consoles" in await page.text()
        deadline = time.monotonic() + 60  # the first one closed: its place is free again
        while True:
            async with client.get(f"{server.origin}/?token={TOKEN}") as page:
                if page.status == 200:
                    break
            assert time.monotonic() < deadline, "the closed console's place never came back"
            await asyncio.sleep(0.2)


async def test_on_loopback_a_token_is_made_up_and_printed_unless_no_token(served) -> None:
    server = served("--", "--llm", "demo")
    printed = re.search(rf"(http://127\.0\.0\.1:{server.port}/\?token=(\S+)) ", server.line)
    assert printed, server.line
    async with aiohttp.ClientSession() as client:
        async with client.get(f"{server.origin}/") as page:
            assert page.status == 403
        async with client.get(printed.group(1)) as page:
            assert page.status == 200
    assert await refused_websocket(server, query="", Origin=server.origin) == 403

    open_one = served("--no-token", "--", "--llm", "demo")
    assert "token" not in open_one.line
    async with aiohttp.ClientSession() as client:
        async with client.get(f"{open_one.origin}/") as page:
            assert page.status == 200
        async with client.get(f"{open_one.origin}/", headers={"Host": f"evil.example:{open_one.port}"}) as page:
            assert page.status == 403  # the Host check stays without a token


def test_a_wildcard_bind_prints_an_address_others_can_open() -> None:
    from recode_tui.web.access import machine_names, shown_url

    shown = shown_url("0.0.0.0", 8123, "t0k")
    assert shown.startswith("http://") and shown.endswith(":8123/?token=t0k") and "0.0.0.0" not in shown
    names = machine_names()
    assert not names or names[0] in shown


def test_no_token_off_loopback_is_refused(capsys) -> None:
    from recode_tui.commands.cli import main

    assert main(["serve", "--host", "0.0.0.0", "--no-token", "--", "--game", "put-01"]) == 2
    assert "--token SECRET" in capsys.readouterr().err


async def test_allow_host_adds_a_name_as_the_address_bar_shows_it(served) -> None:
    server = served("--token", TOKEN, "--allow-host", "console.example", "--", "--llm", "demo")
    async with aiohttp.ClientSession() as client:
        proxied = {"Host": "console.example", "Origin": "https://console.example"}  # TLS ends at the proxy
        async with client.get(f"{server.origin}/?token={TOKEN}", headers=proxied) as page:
            assert page.status == 200
        async with client.get(f"{server.origin}/?token={TOKEN}", headers={"Host": "other.example"}) as page:
            assert page.status == 403
