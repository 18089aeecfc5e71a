"""A real console process killed with SIGKILL mid-expansion, then `--resume`d: nothing is lost.

The console runs in tmux (a private server, no user config, the terminal's own
size), a person's answers are typed with send-keys, and the screen is read
with capture-pane, exactly as a user would see it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest


from .terminal import Tmux, needs_tmux

pytestmark = [pytest.mark.heavy, needs_tmux]
ROOT = Path(__file__).resolve().parents[2]
tmux = Tmux(f"recode-tui-crash-{os.getpid()}")
screen = tmux.screen
wait_for = tmux.wait_for


def console(name: str, sessions: Path, *options: str) -> None:
    command = (
        f"cd {ROOT} && env -u COLUMNS -u LINES {sys.executable} -m recode_tui tui --llm human "
        f"--sessions {sessions} {' '.join(options)}"
    )
    started = tmux("new-session", "-d", "-s", name, "-x", "160", "-y", "48", command)
    assert started.returncode == 0, started.stderr


def type_lines(name: str, *lines: str) -> None:
    for index, line in enumerate(lines):
        if index:
            tmux("send-keys", "-t", name, "Enter")
        tmux("send-keys", "-t", name, "-l", line)


def console_pid(name: str) -> int:
    """The python process under the pane's shell (the pane may run it directly)."""
    pane = int(tmux("list-panes", "-t", name, "-F", "#{pane_pid}").stdout.split()[0])
    found = pane
    for _ in range(3):  # sh -> env(exec) python
        if "recode_tui" in Path(f"/proc/{found}/cmdline").read_bytes().decode(errors="replace"):
            return found
        children = subprocess.run(["pgrep", "-P", str(found)], capture_output=True, text=True).stdout.split()
        assert children, f"no console process under pane {pane}"
        found = int(children[0])
    raise AssertionError("the console process was not found")


def tree_pane(text: str) -> list[str]:
    """The code tree's rows (left column, between its borders)."""
    rows = text.splitlines()
    top = next(i for i, row in enumerate(rows) if "Code tree" in row)
    bottom = next(i for i in range(top + 1, len(rows)) if rows[i].startswith("╰"))
    return [row[:60].rstrip() for row in rows[top + 1:bottom]]


def test_sigkill_mid_expansion_then_resume_restores_everything(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    first, second = "crash-first", "crash-resumed"
    try:
        console(first, sessions, "--game", "put-01")
        wait_for(first, "TASK put a vase in sidetable.")
        tmux("send-keys", "-t", first, "w")  # a watch: part of the debugging set-up the crash must not lose
        wait_for(first, "Watch an expression")
        type_lines(first, "instruction[:3]")
        tmux("send-keys", "-t", first, "Enter")
        deadline = time.monotonic() + 20
        while "Watch an expression" in screen(first) and time.monotonic() < deadline:
            time.sleep(0.2)
        wait_for(first, "instruction[:3]")  # the watch list, above the variables
        tmux("send-keys", "-t", first, "c")
        wait_for(first, "Expand n0")
        type_lines(first, "take_vase()", "place_vase()")
        wait_for(first, "✓ 2 child node(s)")
        tmux("send-keys", "-t", first, "C-s")
        wait_for(first, "expansion accepted: 2 child node(s)")
        tmux("send-keys", "-t", first, "c")
        wait_for(first, "Expand n1")
        type_lines(first, 'run("go to diningtable 1")', 'run("take vase 1 from diningtable 1")', 'obj = "vase 1"')
        wait_for(first, "✓ 3 child node(s)")
        tmux("send-keys", "-t", first, "C-s")
        wait_for(first, "expansion accepted: 3 child node(s)")
        tmux("send-keys", "-t", first, "c")
        wait_for(first, "Expand n2")
        type_lines(first, 'run("go to sidetable 1")', 'run("put vase 1')  # unfinished, not submitted
        folder = next(sessions.iterdir())
        draft = folder / "draft.json"
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if draft.is_file() and 'run("put vase 1' in json.loads(draft.read_text())["text"]:
                break
            time.sleep(0.1)
        else:
            raise AssertionError("the draft was never saved")
        before = screen(first)
        os.kill(console_pid(first), signal.SIGKILL)
        deadline = time.monotonic() + 10
        while tmux("has-session", "-t", first).returncode == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        journal = (folder / "journal.jsonl").read_text()
        assert '"type": "finished"' not in journal

        console(second, sessions, "--resume")
        wait_for(second, "resumed: awaiting your expansion of n2")
        # The resumed screen paints its panes one after another: wait for the whole state, then read it.
        expected = ("take_vase()", "place_vase()", "obj", "vase 1",  # the tree and the variables
                    "2 > take vase 1 from diningtable 1",  # the environment log
                    'run("go to sidetable 1")', 'run("put vase 1',  # the draft
                    "instruction[:3]",  # the watch
                    f"session {folder.name}", "steps 2/80", "nodes 6")
        after = tmux.wait_until(second, lambda shown: all(text in shown for text in expected)
                                and tree_pane(shown) == tree_pane(before), "the resumed run's whole state")
        assert tree_pane(after) == tree_pane(before)
        # and the run goes on from there, where the typing stopped, in the same session
        type_lines(second, ' in/on sidetable 1")')
        wait_for(second, "✓ 2 child node(s)")
        tmux("send-keys", "-t", second, "C-s")
        wait_for(second, "expansion accepted: 2 child node(s)")
        tmux("send-keys", "-t", second, "c")
        wait_for(second, "episode won")
        records = [json.loads(line) for line in (folder / "journal.jsonl").read_text().splitlines()]
        answers = [r for r in records if r["type"] == "answer"]
        assert [a["node_id"] for a in answers] == ["n0", "n1", "n2"]
        assert {a["source"] for a in answers} == {"human"}
        assert records[-1]["type"] == "finished" and records[-1]["success"]
        assert len(list(sessions.iterdir())) == 1  # resumed in place, no new session
    finally:
        tmux("kill-server")
