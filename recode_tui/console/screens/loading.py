"""The console's first frame: drawn before the agent, the environment and the panes are imported.

`recode-tui` shows this screen as soon as Textual can draw, then builds the run
(imports, the LLM, the agent, the environment, the session) off the UI thread
and replaces the screen with the run's `DebugScreen`. What the person sees at
once: which game is loading, and that `q` quits. The module imports Textual
only, so the first frame costs what a hello-world Textual app costs.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Static
from recode_tui.setup.shown import shown


class LoadingScreen(Screen[None]):
    """A status line saying what loads, and the one key that works meanwhile."""

    def __init__(self, episode: str) -> None:
        super().__init__(id="loading-screen")
        self.episode = episode

    def compose(self) -> ComposeResult:
        what = f" {self.episode}" if self.episode else ""
        yield Static(shown(f"recode-tui · loading{what}…"), id="loading-status")  # a journal's game name
        yield Static("The agent and the game are loading; the run appears here when they are ready.",
                     id="loading-body")
        yield Static("q quit", id="loading-keys")
