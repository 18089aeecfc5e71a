"""What the console's lower modules may use of the app, of a run's screen and of the session control.

The controllers, the LLM control, the workspace launcher, the replay cover and
the session control are given one of these types and never import `app`,
`debug_screen` or `session_control`, so no import runs back up (tests/test_layers.py).
`RunScreen` and `ConsoleApp` are real base classes of `DebugScreen` and `RecodeApp`
declaring the members those modules use; `Sessions` is a protocol `SessionControl` meets.
The small runtime-checkable protocols at the end are optional powers of the engine's
parts that the console asks for with `isinstance` instead of probing with `getattr`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Protocol, runtime_checkable

from textual.app import App
from textual.reactive import reactive
from textual.screen import Screen

from recode_tui.console.run_state import RunState

if TYPE_CHECKING:  # names for the declarations only: `RecodeApp` derives from `ConsoleApp` before its first frame
    from agent.llm import LLM
    from agent.runtime import events as ev
    from agent.runtime.debugger import Breakpoint, Debugger
    from agent.runtime.prompts import PromptSet
    from agent.runtime.stepper import Stepper
    from agent.runtime.tree import Node
    from agent.sessions.session import Session
    from recode_tui.console.widgets.code_tree import CodeTreeView
    from recode_tui.console.widgets.driver import EngineDriver
    from recode_tui.console.widgets.env_log import EnvLog
    from recode_tui.console.widgets.expansion_editor import ExpansionEditor
    from recode_tui.console.widgets.observation_view import ObservationView
    from recode_tui.console.widgets.review_panel import ReviewBar
    from recode_tui.console.widgets.variables import VariablesPane


class Sessions(Protocol):
    """The session control as the screens, the LLM control and the workspace use it."""

    sessions_dir: Path
    session: Session | None
    busy: bool  # a replay is running
    failure: str  # the last replay's one-line failure ('' once a session is open)

    def attach(self, app: ConsoleApp) -> None: ...
    def save_work(self) -> None: ...
    def save_settings(self) -> None: ...
    def show_status(self) -> None: ...
    def record_llm(self, spec: str, profiles: str | None, why: str = "switch") -> None: ...
    def fork_with_answer(self, node_id: str, text: str, source: str, prompts: PromptSet) -> bool: ...
    def rewind(self) -> None: ...
    def fork(self) -> None: ...
    def diff_parent(self) -> None: ...
    def open_list(self) -> None: ...
    def salvage(self) -> None: ...


class RunScreen(Screen[None]):
    """One run's screen (`DebugScreen`), as the parts below it see it: declared here, defined there."""

    # Where the run stands: the status line shows it, and it greys the keys that cannot act.
    # A change repaints nothing by itself; `DebugScreen` is its only writer (`enter_state`).
    run_state: reactive[RunState] = reactive(RunState.STARTING, init=False, repaint=False)

    engine: Stepper
    debugger: Debugger
    drafts: dict[str, str]  # node id -> the person's expansion text
    shown_prompt: tuple[str, str] | None  # what the Prompt tab shows
    stops: int  # commands finished and shown (tests wait on this; a new run goes on counting)

    @property
    def console(self) -> ConsoleApp:
        raise NotImplementedError

    @property
    def session_control(self) -> Sessions | None:
        raise NotImplementedError

    @property
    def driver(self) -> EngineDriver:
        raise NotImplementedError

    @property
    def tree_view(self) -> CodeTreeView:
        raise NotImplementedError

    @property
    def editor(self) -> ExpansionEditor:
        raise NotImplementedError

    @property
    def env_log(self) -> EnvLog:
        raise NotImplementedError

    @property
    def observation_view(self) -> ObservationView:
        raise NotImplementedError

    @property
    def variables(self) -> VariablesPane:
        raise NotImplementedError

    @property
    def review_bar(self) -> ReviewBar:
        raise NotImplementedError

    def selected_node(self) -> Node | None:
        """The node under the code tree's cursor (None: none is)."""
        item = self.tree_view.cursor_node
        return self.engine.tree.nodes.get(item.data or "") if item is not None else None

    def say(self, kind: str, text: str, short: str = "") -> None:
        """Line two of the status line: why the run stopped (`short`: said instead when `text` does not fit)."""
        raise NotImplementedError

    def show_editor(self) -> None:
        raise NotImplementedError

    def focus_editor(self, why: str, force: bool = False) -> bool:
        raise NotImplementedError

    def enter_state(self, state: RunState | str, kind: str = "", reason: str = "") -> None:
        raise NotImplementedError

    def update_status(self) -> None:
        raise NotImplementedError

    def show_model_clock(self) -> None:
        raise NotImplementedError

    def show_prompt(self, title: str, prompt: str) -> None:
        raise NotImplementedError

    def refresh_agent_view(self) -> None:
        raise NotImplementedError

    async def open_editor(self, event: ev.LLMRequested, note: str, force: bool = False) -> None:
        raise NotImplementedError

    def apply_events(self, events: Iterable[ev.Event]) -> None:
        """Show what the engine did in the panes (the tree, the log, the variables, the prompt)."""
        raise NotImplementedError

    def hand_over_after_answer(self, llm: LLM) -> None:
        """A fork: the person answers first, then `llm` goes on (the LLM control's work)."""
        raise NotImplementedError


class ConsoleApp(App[None]):
    """The console app (`RecodeApp`) as its screens and the session control see it."""

    session_control: Sessions | None  # the journal; None when the run is not recorded
    profiles: str | None  # the profiles file the `L` picker lists
    review: bool  # review mode: a model's answers are proposals
    episode: str  # the status line's name of the game
    cursor_blink: bool
    watch_expressions: list[str]  # outlives a run
    last_key_at: float  # when the person last pressed a key (monotonic)

    @property
    def debug_screen(self) -> RunScreen:
        raise NotImplementedError

    def set_watches(self, expressions: Iterable[str]) -> None:
        raise NotImplementedError

    async def replace_run(
        self,
        engine: Stepper,
        replayed: list[ev.Event],
        *,
        how: str,
        drafts: dict[str, str] | None = None,
        breakpoints: list[Breakpoint] | None = None,
        watches: list[str] | None = None,
        profiles: str | None = None,
        game: str | None = None,
    ) -> RunScreen:
        raise NotImplementedError


@runtime_checkable
class Interruptible(Protocol):
    """A runner that can stop the node running now (the sandbox's)."""

    def interrupt(self) -> None: ...


@runtime_checkable
class TrustFlagged(Protocol):
    """A runner that says whether it runs code unchecked (`--trusted`)."""

    trusted: bool


@runtime_checkable
class Cancellable(Protocol):
    """An LLM whose pending answer can be given up (the person's, a review's)."""

    def cancel(self) -> None: ...


def is_trusted(runner: object) -> bool:
    """The runner runs code unchecked (`--trusted`); a runner that does not say is not."""
    return isinstance(runner, TrustFlagged) and bool(runner.trusted)
