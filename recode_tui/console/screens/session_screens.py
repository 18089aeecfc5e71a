"""The screens the session control opens: the sessions list (`S`), the cover over a replay, and a branch
against its parent (`D`). The app hands them to it (`ConsoleApp.session_screens`), so the session package,
a floor below the screens, names none of them (tests/test_layers.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from recode_tui.console.run.hosts import ConsoleApp, ReplayCover, Sessions


class ConsoleSessionScreens:
    """`SessionScreens` on the console app."""

    def __init__(self, app: ConsoleApp) -> None:
        self.app = app

    def sessions_list(self, sessions_dir: Path, current: Path | None, chosen: Callable[[Path | None], None]) -> None:
        """The sessions screen over the console; `chosen` gets the folder picked (None: closed)."""
        from recode_tui.console.screens.sessions import SessionsScreen

        self.app.push_screen(SessionsScreen(sessions_dir, current), chosen)

    def replay_cover(self, title: str, control: Sessions, *, closable: bool) -> ReplayCover:
        """A new cover for a replay, in place of a failed replay's cover still on show."""
        from recode_tui.console.screens.replay import ReplayScreen

        while isinstance(self.app.screen, ReplayScreen) and self.app.screen.failed:
            self.app.pop_screen()
        screen = ReplayScreen(title, control, closable=closable)
        self.app.push_screen(screen)
        return screen

    def parent_diff(self, folder: Path, warn: Callable[[str], None]) -> None:
        from recode_tui.console.screens.diff import show_parent_diff

        show_parent_diff(self.app, folder, warn)
