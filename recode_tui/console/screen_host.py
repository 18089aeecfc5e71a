"""What the debug screen's action mixins may use of the screen they are mixed into.

`DebugScreen` is assembled from `ModelActions`, `SearchActions`, `ViewActions` and
`SessionActions`; each calls the screen's own widgets and methods. For the type checker
the mixins derive from `DebugScreenHost`, a `Screen` that declares those members (the
screen defines them, with the same signatures); at run time the mixins derive from
`object`, so nothing here exists or runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from abc import abstractmethod

    from textual.screen import Screen

    from agent.runtime import events as ev
    from agent.runtime.debugger import Debugger
    from agent.runtime.stepper import Stepper
    from recode_tui.console.run_state import RunState
    from recode_tui.console.widgets.code_tree import CodeTreeView
    from recode_tui.console.widgets.driver import EngineDriver
    from recode_tui.console.widgets.env_log import EnvLog
    from recode_tui.console.widgets.expansion_editor import ExpansionEditor
    from recode_tui.console.widgets.variables import VariablesPane

    class DebugScreenHost(Screen[None]):
        """The members of `DebugScreen` its mixins use (declared, not defined)."""

        engine: Stepper
        debugger: Debugger

        @property
        @abstractmethod
        def driver(self) -> EngineDriver: ...

        @property
        @abstractmethod
        def tree_view(self) -> CodeTreeView: ...

        @property
        @abstractmethod
        def editor(self) -> ExpansionEditor: ...

        @property
        @abstractmethod
        def env_log(self) -> EnvLog: ...

        @property
        @abstractmethod
        def variables(self) -> VariablesPane: ...

        @abstractmethod
        def focus_editor(self, why: str, force: bool = False) -> bool: ...

        @abstractmethod
        def update_status(self) -> None: ...

        @abstractmethod
        def say(self, kind: str, text: str) -> None: ...

        @abstractmethod
        def enter_state(self, state: RunState | str, kind: str = "", reason: str = "") -> None: ...

        @abstractmethod
        async def _open_editor(self, event: ev.ExpansionRequested, note: str, force: bool = False) -> None: ...

else:
    DebugScreenHost = object  # the mixins are plain classes at run time
