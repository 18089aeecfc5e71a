"""`recode-tui tui --diff A B`: the diff screen on its own, read-only; nothing runs."""

from __future__ import annotations

from pathlib import Path

from textual.app import App

from agent.eval.rundiff.diff import RunDiff
from agent.eval.rundiff.evals import EvalDiff
from recode_tui.setup.diffs import load_diff
from recode_tui.console.screens.diff import DiffScreen, EvalDiffScreen


class DiffApp(App[None]):
    """Opens on the diff of two runs (at the first divergence) or on two evaluations' episodes."""

    CSS_PATH = str(Path(__file__).resolve().parent.parent / "recode.tcss")
    TITLE = "recode-tui diff (read-only)"

    def __init__(self, diff: RunDiff | EvalDiff) -> None:
        super().__init__()
        self.diff = diff

    def on_mount(self) -> None:
        self.push_screen(EvalDiffScreen(self.diff) if isinstance(self.diff, EvalDiff) else DiffScreen(self.diff, quits=True))


def run_diff_file(a: str, b: str, sessions: str | None = None) -> int:
    """Read both runs first, so a refusal is one line on the terminal, not a screen."""
    DiffApp(load_diff(a, b, sessions)).run()
    return 0
