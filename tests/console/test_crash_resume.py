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
from pathlib import Path

import pytest

from .folder_events import FolderChanges
from .terminal import TOY_WORLD, Tmux, editor_keys, needs_tmux, pane_keys, recode_tui

pytestmark = [pytest.mark.heavy, needs_tmux]
SIZE = (160, 48)


def start_console(tmux: Tmux, name: str, sessions: Path, *options: str) -> None:
    """A console with the person as its LLM on the toy world, started (not waited for)."""
    tmux.start(name, SIZE, recode_tui(f"tui --llm human --sessions {sessions} {' '.join(options)}", env=TOY_WORLD))


def console(tmux: Tmux, name: str, sessions: Path, *options: str) -> None:
    """A console with the person as its LLM on the toy world, once its panes have the keys."""
    start_console(tmux, name, sessions, *options)
    tmux.screen_showing(name, pane_keys(SIZE[0]), line=-1)


def type_lines(tmux: Tmux, name: str, *lines: str) -> None:
    for index, line in enumerate(lines):
        if index:
            tmux.keys(name, "Enter")
        tmux.text(name, line)


def expand(tmux: Tmux, name: str, node: str) -> None:
    """`c` at a stop: the expansion of `node` opens, its editor with the keys."""
    tmux.screen_showing(name, pane_keys(SIZE[0]), line=-1)
    tmux.keys(name, "c")
    tmux.screen_showing(name, f"Expand {node}")
    tmux.screen_showing(name, *editor_keys(SIZE[0]), line=-1)


def submit(tmux: Tmux, name: str, children: int) -> None:
    """ctrl+s once the live check accepts the typed expansion; until it is accepted."""
    tmux.screen_showing(name, f"✓ {children} child node(s)")
    tmux.keys(name, "C-s")
    tmux.screen_showing(name, f"expansion accepted: {children} child node(s)")


def console_pid(tmux: Tmux, name: str) -> int:
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
    """The code tree's rows (left column, between its borders); none while it is not drawn."""
    rows = text.splitlines()
    top = next((i for i, row in enumerate(rows) if "Code tree" in row), None)
    bottom = next((i for i in range(top + 1, len(rows)) if rows[i].startswith("╰")), None) if top is not None else None
    if top is None or bottom is None:
        return []
    # the border's weight shows which pane has the focus, which is not the tree's content
    return [row[:60].rstrip().replace("┃", "│") for row in rows[top + 1:bottom]]


def draft_holds(draft: Path, text: str) -> bool:
    return draft.is_file() and text in json.loads(draft.read_text())["text"]


def test_sigkill_mid_expansion_then_resume_restores_everything(tmux: Tmux, tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    first, second = "crash-first", "crash-resumed"
    try:
        console(tmux, first, sessions, "--game", "toy:vase-1")  # put-01's twin: the crash, not ALFWorld, is the subject
        tmux.screen_showing(first, "TASK put a vase in sidetable.")
        tmux.keys(first, "w")  # a watch: part of the debugging set-up the crash must not lose
        tmux.screen_showing(first, "Watch an expression")
        type_lines(tmux, first, "instruction[:3]")
        tmux.keys(first, "Enter")
        # the box closed and the watch listed, above the variables
        tmux.screen_when(first, lambda s: "Watch an expression" not in s and "instruction[:3]" in s, "the watch listed")
        expand(tmux, first, "n0")
        type_lines(tmux, first, "take_vase()", "place_vase()")
        submit(tmux, first, 2)
        expand(tmux, first, "n1")
        type_lines(tmux, first, 'run("go to diningtable 1")', 'run("take vase 1 from diningtable 1")', 'obj = "vase 1"')
        submit(tmux, first, 3)
        expand(tmux, first, "n2")
        folder = next(sessions.iterdir())
        with FolderChanges(folder) as changes:
            type_lines(tmux, first, 'run("go to sidetable 1")', 'run("put vase 1')  # unfinished, not submitted
            changes.until(lambda: draft_holds(folder / "draft.json", 'run("put vase 1'), "the draft saved")
        before = tmux.screen_showing(first, 'run("put vase 1')
        os.kill(console_pid(tmux, first), signal.SIGKILL)
        assert tmux.ended(first), "the killed console's pane stayed"
        journal = (folder / "journal.jsonl").read_text()
        assert '"type": "finished"' not in journal

        start_console(tmux, second, sessions, "--resume")  # no fresh run first: the replayed one comes up
        tmux.screen_showing(second, "resumed: awaiting your expansion of n2")
        # The resumed screen paints its panes one after another: wait for the whole state, then read it.
        expected = ("take_vase()", "place_vase()", "obj", "vase 1",  # the tree and the variables
                    "2 > take vase 1 from diningtable 1",  # the environment log
                    'run("go to sidetable 1")', 'run("put vase 1',  # the draft
                    "instruction[:3]",  # the watch
                    f"session {folder.name}", "steps 2/30", "nodes 6")  # the toy world allows 30 steps
        tmux.screen_when(second, lambda shown: all(text in shown for text in expected)
                         and tree_pane(shown) == tree_pane(before), "the resumed run's whole state")
        # and the run goes on from there, where the typing stopped, in the same session
        tmux.screen_showing(second, *editor_keys(SIZE[0]), line=-1)
        type_lines(tmux, second, ' in/on sidetable 1")')
        submit(tmux, second, 2)
        tmux.screen_showing(second, pane_keys(SIZE[0]), line=-1)
        tmux.keys(second, "c")
        tmux.screen_showing(second, "episode won")
        records = [json.loads(line) for line in (folder / "journal.jsonl").read_text().splitlines()]
        answers = [r for r in records if r["type"] == "answer"]
        assert [a["node_id"] for a in answers] == ["n0", "n1", "n2"]
        assert {a["source"] for a in answers} == {"human"}
        assert records[-1]["type"] == "finished" and records[-1]["success"]
        assert len(list(sessions.iterdir())) == 1  # resumed in place, no new session
    finally:
        tmux.kill_session(first)
        tmux.kill_session(second)
