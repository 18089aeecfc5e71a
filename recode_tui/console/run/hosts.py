"""What the console's lower modules may use of the app, of a run's screen and of the session control.

The controllers, the LLM control, the workspace launcher, the replay cover and
the session control are given one of these types and never import `app`,
`debug_screen` or `session_control`, so no import runs back up (tests/test_layers.py).
`RunScreen` and `ConsoleApp` are real base classes of `DebugScreen` and `RecodeApp`
holding what those modules may use (a run's state, not its panes: those they ask
for with the messages of run/requests.py); `Sessions` is a protocol `SessionControl` meets, and
`SessionScreens` the screens it opens (the app's, built on the screens' floor above it).
The small runtime-checkable protocols at the end are optional powers of the agent's
parts that the console asks for with `isinstance` instead of probing with `getattr`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Protocol, runtime_checkable

from textual.app import App
from textual.notifications import SeverityLevel
from textual.reactive import reactive
from textual.screen import Screen
from textual.signal import Signal

from recode_tui.console.run.requests import StatusChanged
from recode_tui.console.run.run_state import RunState

if TYPE_CHECKING:  # names for the declarations only: `RecodeApp` derives from `ConsoleApp` before its first frame
    import asyncio

    from agent.runtime import events as ev
    from agent.runtime.breakpoints import Breakpoint
    from agent.runtime.debugger import Debugger
    from agent.runtime.prompts import PromptSet
    from agent.runtime.stepper import Stepper
    from agent.runtime.tree import Node
    from agent.sessions.session import Session
    from recode_tui.console.widgets.driver import AgentDriver


class ReplaceRun(Protocol):
    """Shows a replayed agent (a resume, rewind or fork) on a new run screen in place of the run on show.

    The app's (`RecodeApp.replace_run`): only it builds a `DebugScreen`, which no module here
    imports; it hands this to the session control with `Sessions.attach`.
    """

    async def __call__(
        self,
        agent: Stepper,
        replayed: list[ev.Event],
        *,
        how: str,
        drafts: dict[str, str] | None = None,
        breakpoints: list[Breakpoint] | None = None,
        watches: list[str] | None = None,
        profiles: str | None = None,
        episode_ref: str | None = None,
    ) -> RunScreen: ...


class Sessions(Protocol):
    """The session control as the screens, the LLM control and the workspace use it."""

    sessions_dir: Path
    session: Session | None
    busy: bool  # a replay is running
    failure: str  # the last replay's one-line failure ('' once a session is open)

    def attach(self, app: ConsoleApp, replace_run: ReplaceRun) -> None: ...
    def save_work(self) -> None: ...
    def save_settings(self) -> None: ...
    def check_journal(self) -> None: ...
    def show_status(self) -> None: ...
    def record_llm(self, spec: str, profiles: str | None, why: str = "switch") -> None: ...
    def fork_with_answer(self, node_id: str, text: str, source: str, prompts: PromptSet) -> bool: ...
    def rewind(self) -> None: ...
    def fork(self) -> None: ...
    def diff_parent(self) -> None: ...
    def open_list(self) -> None: ...
    def salvage(self) -> None: ...


class ReplayCover(Protocol):
    """The screen that covers the console while a replay runs (`screens/replay.py`'s `ReplayScreen`)."""

    failed: str  # the one-line error, once the replay failed

    def fail(self, line: str, detail: str, *, salvage: bool = False) -> None: ...
    def dismiss(self, result: None = None) -> object: ...


class SessionScreens(Protocol):
    """The screens the session control opens, given it by the app (`ConsoleApp.session_screens`): the
    session control sits below the screens and names none of them."""

    def sessions_list(self, sessions_dir: Path, current: Path | None,
                      chosen: Callable[[Path | None], None]) -> None: ...
    def replay_cover(self, title: str, control: Sessions, *, closable: bool) -> ReplayCover: ...
    def parent_diff(self, folder: Path, warn: Callable[[str], None]) -> None: ...


class RunScreen(Screen[None]):
    """One run's screen (`DebugScreen`) as the parts below it see it: the run's state, never its panes.

    A controller reads the run here (agent, debugger, driver, drafts, where it stands) and
    changes what the panes show by posting a request (run/requests.py) to this screen, which
    routes it to the pane it concerns. `say` and `enter_state` change the screen's own state
    at once; the status line follows through a `StatusChanged` request.
    """

    # Where the run stands: the status line shows it, and it greys the keys that cannot act.
    # A change repaints nothing by itself; `enter_state` is its only writer.
    run_state: reactive[RunState] = reactive(RunState.STARTING, init=False, repaint=False)

    agent: Stepper
    debugger: Debugger
    driver: AgentDriver  # runs the debugger's commands in a worker; `busy` while one runs
    drafts: dict[str, str]  # node id -> the person's expansion text
    shown_prompt: tuple[str, str] | None  # what the Prompt tab shows
    stop_shown: Signal[RunState]  # published with the run state once a stop is shown in every pane
    first_stop_shown: asyncio.Event  # set once the run's first stop is shown
    reason_kind: str  # how the status line's second line says `reason` (info, error, human, ...)
    reason: str  # why the run stopped, on the status line
    short_reason: str  # said instead of `reason` when it does not fit

    @property
    def console(self) -> ConsoleApp:
        """The app this screen runs in (only ever a `ConsoleApp`)."""
        app = self.app
        assert isinstance(app, ConsoleApp), "a run's screen runs only in the console app"
        return app

    @property
    def editing(self) -> str | None:
        """The node whose answer the person's editor holds (None: no answer is open)."""
        return None

    @property
    def session_control(self) -> Sessions | None:
        """The app's session control; None when the run is not journaled."""
        return self.console.session_control

    def selected_node(self) -> Node | None:
        """The node under the code tree's cursor (None: none is)."""
        from textual.widgets import Tree

        tree = self.query_one_optional("#code-tree", Tree)  # cached until the screen's widgets change
        item = tree.cursor_node if tree is not None else None
        return self.agent.tree.nodes.get(item.data or "") if item is not None else None

    def say(self, kind: str, text: str, short: str = "") -> None:
        """Line two of the status line: why the run stopped (`short`: said instead when `text` does not fit)."""
        self.reason_kind, self.reason, self.short_reason = kind, text, short
        self.post_message(StatusChanged())

    def enter_state(self, state: RunState | str, kind: str = "", reason: str = "") -> None:
        """Where the run stands now (and why, when `reason` is given): the one place that sets it."""
        self.run_state = RunState(state)
        if reason:
            self.reason_kind, self.reason, self.short_reason = kind or "info", reason, ""
        self.post_message(StatusChanged())


class ConsoleApp(App[None]):
    """The console app (`RecodeApp`) as its screens and the session control see it."""

    session_control: Sessions | None  # the journal; None when the run is not recorded
    session_screens: SessionScreens  # the sessions list, the replay cover and the parent diff the session control opens
    profiles: str | None  # the profiles file the `L` picker lists
    review: bool  # review mode: a model's answers are proposals
    episode: str  # the status line's name of the game
    cursor_blink: bool
    watch_expressions: list[str]  # outlives a run
    last_key_at: float  # when the person last pressed a key (monotonic)

    _run_screen: RunScreen  # the run on show; set once its screen is made (not while the first frame loads)
    _shows_run = False  # whether `_run_screen` is made and on show
    # The agent the console was started with while its screen is not made: a start-up resume (`--resume`)
    # shows only the run it replays, so the agent it starts with gets a screen only if that replay fails.
    _started_agent: Stepper | None = None

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = False) -> None:
        """Every notification as plain text, whoever asks (a screen's `notify` passes Textual's default
        `markup=True` on): what they say carries data (an error from a server, a journal's LLM, a path), and
        data is never markup (`[@click=...]` in it would run an app action)."""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    @property
    def debug_screen(self) -> RunScreen:
        """The screen of the run on show (under a replay cover: the run being replaced)."""
        return self._run_screen

    @property
    def loaded(self) -> bool:
        """Whether a run's screen is on show (false while the loading frame is: the run is being built,
        or a start-up resume replays)."""
        return self._shows_run

    @property
    def run_agent(self) -> Stepper:
        """The agent of the run on show; during a start-up resume, the one the console was started with."""
        if self._shows_run or self._started_agent is None:
            return self._run_screen.agent
        return self._started_agent

    async def show_started_run(self) -> None:
        """Show the run the console was started with if its screen is not made (a start-up resume failed)."""

    def set_watches(self, expressions: Iterable[str]) -> None:
        """The watch list outlives a run: the next run's variables pane starts from it."""
        self.watch_expressions[:] = expressions


@runtime_checkable
class Interruptible(Protocol):
    """A runner that can stop the node running now (the sandbox's)."""

    def interrupt(self) -> None: ...


@runtime_checkable
class TrustFlagged(Protocol):
    """A runner that says whether it runs code unchecked (`--trusted`)."""

    trusted: bool


def is_trusted(runner: object) -> bool:
    """The runner runs code unchecked (`--trusted`); a runner that does not say is not."""
    return isinstance(runner, TrustFlagged) and bool(runner.trusted)
