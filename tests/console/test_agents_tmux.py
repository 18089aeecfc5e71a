"""A person solves a bundled game in the real console, in a real terminal (tmux), as ReAct's LLM
(typing each Thought/Action) and as every role of Plan-and-Execute (the JSON plan, then each
executor turn), at the small sizes people use."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from .terminal import Tmux, needs_tmux

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.heavy, needs_tmux]

# put-01: "put a vase in sidetable."; the vase is on diningtable 1.
PUT_ACTIONS = ["go to diningtable 1", "take vase 1 from diningtable 1", "go to sidetable 1", "move vase 1 to sidetable 1"]


class Console:
    """One console in a private tmux server, driven with keys and read from the screen."""

    def __init__(self, name: str, size: tuple[int, int], *args: str) -> None:
        self.tmux, self.session, self.size = Tmux(f"recode-agents-{name}-{os.getpid()}"), name, size
        # Textual takes COLUMNS/LINES from the environment over the terminal's size: drop them
        command = f"cd {ROOT} && env -u COLUMNS -u LINES {sys.executable} -m recode_tui tui --game put-01 {' '.join(args)}"
        done = self.tmux("new-session", "-d", "-s", name, "-x", str(size[0]), "-y", str(size[1]), command)
        assert done.returncode == 0, done.stderr

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.session, *keys)

    def text(self, text: str) -> None:
        self.tmux("send-keys", "-t", self.session, "-l", text)

    def wait(self, *texts: str, line: int | None = None, timeout: float = 30.0) -> str:
        """Until every text is on the screen (or on its `line`); the screen."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.tmux.screen(self.session)
            where = screen.splitlines()[line] if line is not None and len(screen.splitlines()) > line else screen
            if all(t in where for t in texts):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{texts!r} never appeared; the screen was:\n{screen}")

    def answer(self, *lines: str, check: str, opened: str = "in the format shown") -> None:
        """Type an answer as a person does: select the format shown, type over it line by line,
        wait for the live check to accept it, submit, and see it accepted."""
        self.wait(opened)  # the editor is open, not just the status line
        narrow = self.size[0] < 100  # the key line (widgets/key_line.py), else Textual's footer
        editor_keys = ("esc leave editor", "^s submit") if narrow else ("esc Leave editor", "^s Submit")
        self.wait(*editor_keys, line=self.size[1] - 1)  # and has the focus: the keys say so
        self.keys("C-a")
        for index, line in enumerate(lines):
            if index:
                self.keys("Enter")
            self.text(line)
        self.wait(lines[-1][-30:], f"✓ {check}")
        self.keys("C-s")
        self.wait("answer accepted", line=1)  # e.g. "act answer accepted: go to diningtable 1"
        self.wait("n s o u c step" if narrow else "c Continue", line=self.size[1] - 1)  # the focus is back on the tree

    def fits(self, screen: str) -> None:
        rows = screen.splitlines()
        assert len(rows) <= self.size[1] and all(len(row) <= self.size[0] for row in rows)

    def close(self) -> None:
        self.tmux.kill_server()


def test_a_person_solves_put_01_as_reacts_llm_at_80x24() -> None:
    console = Console("react", (80, 24), "--agent react --llm human")
    try:
        console.wait("run started: put a vase in sidetable.")
        console.wait("paused", line=0)
        for number, action in enumerate(PUT_ACTIONS):
            console.keys("c")
            screen = console.wait("awaiting expansion", f"steps {number}/", line=0)
            console.wait(f"act call of n{number + 1}", line=1)
            if number == 0:
                assert "Thought:" in screen and "Action:" in screen  # the format, in the editor
                console.fits(screen)
            console.answer(f"Thought: step {number + 1} of the walkthrough", f"Action: {action}",
                           check=f"one action: {action}")
        console.keys("c")
        screen = console.wait("episode won", line=1)
        assert "done" in screen.splitlines()[0] and "steps 4/" in screen.splitlines()[0]
        console.keys("a")  # the turn list: every turn with its action
        screen = console.wait("── Turns (4 done; the prompt keeps the last 30)")
        assert "turn 4: move vase 1 to sidetable 1" in screen or "turn 1: go to diningtable 1" in screen
        console.fits(screen)
    finally:
        console.close()


def test_a_person_plays_every_plan_execute_role_at_100x30() -> None:
    plan = json.dumps({"thought": "the vase is likely on the dining table",
                       "steps": [{"id": "s1", "description": "bring the vase to sidetable 1", "depends_on": []}]})
    console = Console("planexec", (100, 30), "--agent plan-execute --llm human")
    try:
        console.wait("run started: put a vase in sidetable.")
        console.wait("paused", line=0)
        console.keys("c")
        console.wait("awaiting expansion", line=0)
        console.wait("plan call of n0", line=1)
        console.wait("in the format shown", "(planner)", '"depends_on": ["s1"]')  # the plan's JSON skeleton
        console.answer(plan, check="a plan of 1 step(s): s1")
        for number, action in enumerate(PUT_ACTIONS):
            console.keys("c")
            console.wait("awaiting expansion", f"steps {number}/", line=0)
            console.wait("act call of n1", line=1)
            console.wait("(executor)")
            console.answer(f"Thought: turn {number + 1}", f"Action: {action}", check=f"one action: {action}")
        console.keys("c")
        screen = console.wait("episode won", line=1)
        console.keys("a")  # the plan: its one step done
        screen = console.wait("✓ s1: bring the vase to sidetable 1  [done]")
        console.fits(screen)
    finally:
        console.close()


def test_a_person_solves_put_01_as_codeacts_llm_at_100x30() -> None:
    console = Console("codeact", (100, 30), "--agent codeact --llm human")
    try:
        console.wait("run started: put a vase in sidetable.")
        console.wait("paused", line=0)
        console.keys("c")
        screen = console.wait("awaiting expansion", "steps 0/", line=0)
        assert "<execute>" in screen  # the cell's format, in the editor
        console.answer("<think>the vase is on the dining table: take it over in one cell</think>", "<execute>",
                       *[f'run("{action}")' for action in PUT_ACTIONS], "</execute>",
                       check=f"a cell of {len(PUT_ACTIONS)} line(s)", opened="<think>/<execute> or plain code")
        console.keys("c")
        screen = console.wait("episode won", line=1)
        assert "steps 4/" in screen.splitlines()[0]
        console.keys("a")  # the cells, with what they printed
        screen = console.wait("Cells")
        console.fits(screen)
    finally:
        console.close()


def test_a_person_solves_put_01_as_recaps_llm_at_100x30() -> None:
    """Each call lists every remaining subtask; only the first runs, then the list comes back to be revised."""
    console = Console("recap", (100, 30), "--agent recap --llm human")
    try:
        console.wait("run started: put a vase in sidetable.")
        console.wait("paused", line=0)
        for number in range(len(PUT_ACTIONS)):
            console.keys("c")
            screen = console.wait("awaiting expansion", f"steps {number}/", line=0)
            if number == 0:
                assert "Subtasks:" in screen  # the format, in the editor
            remaining = [f"{index}. action: {action}" for index, action in enumerate(PUT_ACTIONS[number:], start=1)]
            console.answer(f"Thought: {len(remaining)} steps to go", "Subtasks:", *remaining, check="")
        console.keys("c")
        screen = console.wait("episode won", line=1)
        assert "steps 4/" in screen.splitlines()[0]
        console.keys("a")  # the levels: what is left, and the window the model saw
        screen = console.wait("Levels")
        console.fits(screen)
    finally:
        console.close()
