"""A person solves a game in the real console, in a real terminal (tmux), as ReAct's LLM
(typing each Thought/Action) and as every role of Plan-and-Execute (the JSON plan, then each
executor turn), at the small sizes people use.

The game is the toy world's vase-1 (tests/toyenv), played like ALFWorld's put-01: what is checked is
the console, the terminal and each agent's answers, not ALFWorld's engine, whose start each console
would pay (the console on ALFWorld in tmux: test_tmux.py)."""

from __future__ import annotations

import json

import pytest

from .terminal import TOY_WORLD, Tmux, editor_keys, needs_tmux, pane_keys, recode_tui

pytestmark = [pytest.mark.heavy, needs_tmux]

# toy:vase-1: "put a vase in sidetable."; the vase is on diningtable 1.
PUT_ACTIONS = ["go to diningtable 1", "take vase 1 from diningtable 1", "go to sidetable 1", "put vase 1 in/on sidetable 1"]


class Console:
    """One console in the module's tmux server, driven with keys and read from the screen."""

    def __init__(self, tmux: Tmux, name: str, size: tuple[int, int], *args: str) -> None:
        self.tmux, self.session, self.size = tmux, name, size
        tmux.start(name, size, recode_tui(f"tui --game toy:vase-1 {' '.join(args)}", env=TOY_WORLD))

    def keys(self, *keys: str) -> None:
        self.tmux.keys(self.session, *keys)

    def text(self, text: str) -> None:
        self.tmux.text(self.session, text)

    def wait(self, *texts: str, line: int | None = None) -> str:
        """The first screen that shows every text (on its `line` if given)."""
        return self.tmux.screen_showing(self.session, *texts, line=line)

    def step(self) -> None:
        """`c`, once the key line says the panes have the keys (not the editor, which would type it)."""
        self.wait(pane_keys(self.size[0]), line=-1)
        self.keys("c")

    def answer(self, *lines: str, check: str, opened: str = "in the format shown") -> None:
        """Type an answer as a person does: select the format shown, type over it line by line,
        wait for the live check to accept it, submit, and see it accepted."""
        self.wait(opened)  # the editor is open, not just the status line
        self.wait(*editor_keys(self.size[0]), line=-1)  # and has the focus: the keys say so
        self.keys("C-a")
        for index, line in enumerate(lines):
            if index:
                self.keys("Enter")
            self.text(line)
        self.wait(lines[-1][-30:], f"✓ {check}")
        self.keys("C-s")
        self.wait("answer accepted", line=1)  # e.g. "act answer accepted: go to diningtable 1"

    def fits(self, screen: str) -> None:
        rows = screen.splitlines()
        assert len(rows) <= self.size[1] and all(len(row) <= self.size[0] for row in rows)

    def close(self) -> None:
        self.tmux.kill_session(self.session)


def test_a_person_solves_the_vase_game_as_reacts_llm_at_80x24(tmux: Tmux) -> None:
    console = Console(tmux, "react", (80, 24), "--agent react --llm human")
    try:
        console.wait("run started: put a vase in sidetable.")
        console.wait("paused", line=0)
        for number, action in enumerate(PUT_ACTIONS):
            console.step()
            console.wait("awaiting expansion", f"steps {number}/", line=0)
            console.wait(f"act call of n{number + 1}", line=1)
            if number == 0:
                console.fits(console.wait("Thought:", "Action:"))  # the format, in the editor
            console.answer(f"Thought: step {number + 1} of the walkthrough", f"Action: {action}",
                           check=f"one action: {action}")
        console.step()
        console.wait("episode won", line=1)
        console.wait("done", "steps 4/", line=0)
        console.keys("a")  # the turn list: every turn with its action
        screen = console.tmux.screen_when(
            console.session, lambda shown: "── Turns (4 done; the prompt keeps the last 30)" in shown
            and ("turn 4: move vase 1 to sidetable 1" in shown or "turn 1: go to diningtable 1" in shown),
            "the turn list with the turns' actions")
        console.fits(screen)
    finally:
        console.close()


def test_a_person_plays_every_plan_execute_role_at_100x30(tmux: Tmux) -> None:
    plan = json.dumps({"thought": "the vase is likely on the dining table",
                       "steps": [{"id": "s1", "description": "bring the vase to sidetable 1", "depends_on": []}]})
    console = Console(tmux, "planexec", (100, 30), "--agent plan-execute --llm human")
    try:
        console.wait("run started: put a vase in sidetable.")
        console.wait("paused", line=0)
        console.step()
        console.wait("awaiting expansion", line=0)
        console.wait("plan call of n0", line=1)
        console.wait("in the format shown", "(planner)", '"depends_on": ["s1"]')  # the plan's JSON skeleton
        console.answer(plan, check="a plan of 1 step(s): s1")
        for number, action in enumerate(PUT_ACTIONS):
            console.step()
            console.wait("awaiting expansion", f"steps {number}/", line=0)
            console.wait("act call of n1", line=1)
            console.wait("(executor)")
            console.answer(f"Thought: turn {number + 1}", f"Action: {action}", check=f"one action: {action}")
        console.step()
        console.wait("episode won", line=1)
        console.keys("a")  # the plan: its one step done
        screen = console.wait("✓ s1: bring the vase to sidetable 1  [done]")
        console.fits(screen)
    finally:
        console.close()


def test_a_person_solves_the_vase_game_as_codeacts_llm_at_100x30(tmux: Tmux) -> None:
    console = Console(tmux, "codeact", (100, 30), "--agent codeact --llm human")
    try:
        console.wait("run started: put a vase in sidetable.")
        console.wait("paused", line=0)
        console.step()
        console.wait("awaiting expansion", "steps 0/", line=0)
        console.wait("<execute>")  # the cell's format, in the editor
        console.answer("<think>the vase is on the dining table: take it over in one cell</think>", "<execute>",
                       *[f'run("{action}")' for action in PUT_ACTIONS], "</execute>",
                       check=f"a cell of {len(PUT_ACTIONS)} line(s)", opened="<think>/<execute> or plain code")
        console.step()
        console.wait("episode won", line=1)
        console.wait("steps 4/", line=0)
        console.keys("a")  # the cells, with what they printed
        screen = console.wait("Cells")
        console.fits(screen)
    finally:
        console.close()


def test_a_person_solves_the_vase_game_as_recaps_llm_at_100x30(tmux: Tmux) -> None:
    """Each call lists every remaining subtask; only the first runs, then the list comes back to be revised."""
    console = Console(tmux, "recap", (100, 30), "--agent recap --llm human")
    try:
        console.wait("run started: put a vase in sidetable.")
        console.wait("paused", line=0)
        for number in range(len(PUT_ACTIONS)):
            console.step()
            console.wait("awaiting expansion", f"steps {number}/", line=0)
            if number == 0:
                console.wait("Subtasks:")  # the format, in the editor
            remaining = [f"{index}. action: {action}" for index, action in enumerate(PUT_ACTIONS[number:], start=1)]
            console.answer(f"Thought: {len(remaining)} steps to go", "Subtasks:", *remaining, check="")
        console.step()
        console.wait("episode won", line=1)
        console.wait("steps 4/", line=0)
        console.keys("a")  # the levels: what is left, and the window the model saw
        screen = console.wait("Levels")
        console.fits(screen)
    finally:
        console.close()
