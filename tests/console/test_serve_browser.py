"""`recode-tui serve` in headless Chromium: a person steps, types an expansion and submits in a browser.

The browser is Debian's `chromium` (`.ci/run` installs it), driven by playwright's Python package
through `executable_path`: no browser is downloaded. What the console draws is read from the
websocket's frames (the terminal output the page receives); what the run did, from its journal.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.heavy

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
TOKEN = "s3cret-for-the-test"
HANG_MS = 90_000  # a bound only against a hang: each wait returns on the frame that shows its text
ANSI = re.compile(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]|\x1b\][^\x07]*\x07")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port: int, server: subprocess.Popen, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise AssertionError(f"serve ended early: {server.stderr.read().decode(errors='replace')}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"serve never listened on port {port}")


class Screen:
    """The terminal output the page received, escapes removed, to wait for what the console shows."""

    def __init__(self) -> None:
        self.text = ""
        self.websocket = None

    def opened(self, websocket) -> None:
        """The page's websocket: every frame it receives from now on is read."""
        self.websocket = websocket
        websocket.on("framereceived", self.frame)

    def frame(self, payload: str | bytes) -> None:
        data = payload.decode("utf-8", "ignore") if isinstance(payload, bytes) else payload
        self.text += ANSI.sub("", data)

    def mark(self) -> int:
        """Where the output is now: a later wait looks only past it (what a key press brought)."""
        return len(self.text)

    def showing(self, text: str, after: int = 0) -> None:
        """Until the output past `after` shows `text`: woken by each frame the page receives."""
        if text in self.text[after:]:
            return
        assert self.websocket is not None, "the page opened no websocket"
        try:  # `frame` sees each frame first (it listened first), then this predicate
            self.websocket.wait_for_event("framereceived", lambda _: text in self.text[after:], timeout=HANG_MS)
        except Exception as error:  # playwright's TimeoutError, or the socket closed
            raise AssertionError(f"{text!r} never reached the page ({error}); its last output:\n{self.text[-3000:]}")


def journal_records(sessions: Path) -> list[dict]:
    journals = list(sessions.glob("*/journal.jsonl"))
    if not journals:
        return []
    return [json.loads(line) for line in journals[0].read_text().splitlines() if line.strip()]


@pytest.fixture
def served(tmp_path: Path, toy_env):
    """`recode-tui serve` on a free loopback port with a token, its console journaling into a temp folder; the
    console plays the toy world's vase-1 (put-01's twin: the browser, not ALFWorld, is the subject)."""
    port = free_port()
    sessions = tmp_path / "sessions"
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    server = subprocess.Popen(
        [sys.executable, "-m", "recode_tui", "serve", "--port", str(port), "--token", TOKEN, "--",
         "--game", "toy:vase-1", "--llm", "human", "--sessions", str(sessions)],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        wait_for_port(port, server)
        yield f"http://127.0.0.1:{port}/", sessions
    finally:
        os.killpg(server.pid, signal.SIGTERM)  # the server and the console it started, nothing else
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        server.stderr.close()


def test_a_person_steps_types_and_submits_in_a_browser(served) -> None:
    if CHROMIUM is None:
        pytest.skip("Chromium is not installed and could not be: `apt-get install -y chromium` (as .ci/run does)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="the test extra's playwright package is missing")
    url, sessions = served
    requests: list[str] = []
    failed: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.on("request", lambda request: requests.append(request.url))
            page.on("response", lambda response: response.status >= 400 and failed.append(response.url))
            screen = Screen()
            page.on("websocket", screen.opened)
            assert page.goto(url).status == 403  # without the token: refused
            failed.clear()
            with page.expect_websocket(timeout=HANG_MS):  # the page's script opens it once loaded
                page.goto(f"{url}?token={TOKEN}")  # then its cookie carries it: the websocket and the files
            screen.showing("paused")  # the console is up, with the run at its start
            screen.showing("Code tree")
            screen.showing("Continue")  # the tree has the keys: the footer offers the step
            page.mouse.click(640, 400)  # the terminal takes the keys
            before = screen.mark()
            page.keyboard.press("c")
            screen.showing("awaiting expansion", after=before)
            screen.showing("Submit", after=before)  # the editor has the focus
            before = screen.mark()
            page.keyboard.press("Control+a")  # over the skeleton: plain code is an answer too
            page.keyboard.type('run("go to diningtable 1")')
            screen.showing("child node", after=before)  # the live check accepted it
            before = screen.mark()
            page.keyboard.press("Control+s")
            screen.showing("expansion accepted", after=before)
            screen.showing("Continue", after=before)  # the tree has the keys again
            before = screen.mark()
            page.keyboard.press("c")  # the run goes on with the typed plan: the agent acts
            screen.showing("You arrive at", after=before)  # the log: the environment's reply to the action
            # the journal has each event before the console shows it (the run's observers come first)
            records = journal_records(sessions)
            answer = next(r for r in records if r.get("type") == "answer")
            assert answer["answer"] == 'run("go to diningtable 1")'
            action = next(r for r in records if r.get("type") == "action")
            assert action["action"] == "go to diningtable 1"
            shot = page.screenshot()
            assert len(shot) > 10_000  # a drawn console, not a blank page
        finally:
            browser.close()
    foreign = [r for r in requests if not r.startswith(url.rstrip("/")) and not r.startswith(("data:", "ws:"))]
    assert not foreign, f"the page loaded from elsewhere (fails offline): {foreign}"
    assert not failed, f"the page asked for what the server has not: {failed}"
    assert not any(r.endswith("favicon.ico") for r in requests)
