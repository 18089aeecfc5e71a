"""The ReCode debugging console: the app around one `DebugScreen` per run."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Iterable, Sequence

from textual import events
from textual.app import SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen

from recode_tui.console.support.crash import CrashReport
from recode_tui.console.run.hosts import ConsoleApp
from recode_tui.console.screens.loading import LoadingScreen
from recode_tui.console.screens.session_screens import ConsoleSessionScreens
from recode_tui.console.run.run_builder import LoadedRun, RunLoader, episode_label, load_run

__all__ = ["RecodeApp", "build_app"]

if TYPE_CHECKING:  # the first frame is drawn before these load (recode_tui.console.screens.loading)
    from agent.llm import LLM
    from agent.runtime import events as ev
    from agent.runtime.breakpoints import Breakpoint
    from agent.runtime.stepper import Stepper
    from recode_tui.console.screens.debug_screen import DebugScreen
    from recode_tui.console.session.session_control import SessionControl
    from recode_tui.setup.settings import ConsoleOptions
    from agent.sandbox.settings import RunnerMaker


class RecodeApp(CrashReport, ConsoleApp):
    """The console: one `DebugScreen` per run, and what outlives a run.

    The app keeps the session control, the LLM profiles, the keymap, the watch
    expressions, the help and the palette. Everything of one run (agent,
    debugger, panes, drafts, run state) is its `DebugScreen`'s: `debug_screen` is the
    run on show, and the one way in to it.
    """

    CSS_PATH = str(Path(__file__).resolve().parent / "recode.tcss")
    TITLE = "recode-tui"
    # Screen classes for small terminals (recode.tcss): the panes rearrange below these sizes.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (28, "-tall")]
    # A zoomed pane keeps the status line, the search line and the keys around it.
    ALLOW_IN_MAXIMIZED_VIEW = "StatusBar, SearchBar, Footer, KeyFooter, KeyLine"

    # Each run is a mode whose base screen is the run's `DebugScreen`: a resume or a branch
    # switches to a new mode and removes the old one with every screen on it.
    DEFAULT_MODE = "run-0"
    # The screen class of a run; None: `DebugScreen` (imported once the first frame is drawn).
    # A subclass times or probes a run (benchmarks).
    run_screen_class: ClassVar[type[DebugScreen] | None] = None
    # The run's keys are the debug screen's; these two also work on the screens above it.
    BINDINGS = [
        Binding("question_mark,f1", "help", "Help", id="app.help"),
        Binding("q", "quit", "Quit", id="app.quit"),
    ]

    def __init__(
        self,
        agent: Stepper | None = None,
        *,
        loader: RunLoader | None = None,
        episode: str = "",
        breakpoints: list[Breakpoint] | None = None,
        cursor_blink: bool = True,
        keymap: dict[str, str] | None = None,
        autostart: bool = True,
        profiles: str | None = None,
        review: bool = False,
        session_control: SessionControl | None = None,
    ) -> None:
        """Either `agent`, shown at once, or `loader`, which builds the run behind a loading frame.

        With a loader the first frame (`LoadingScreen`) is drawn before the agent,
        the environment and the panes are imported; the loader then runs in a thread
        and the run's screen replaces the loading one. An error of the loader ends
        the app: `load_error` keeps it for the command line to report.
        """
        super().__init__()
        if (agent is None) == (loader is None):
            raise TypeError("RecodeApp takes exactly one of an agent and a loader")
        self.profiles, self.review = profiles, review
        self.session_control = session_control  # the journal; None when the run is not recorded
        self.session_screens = ConsoleSessionScreens(self)  # what the session control opens
        self.episode = episode or (agent.env.name if agent is not None else "")
        self.cursor_blink = cursor_blink
        self.user_keymap = dict(keymap or {})
        self.watch_expressions: list[str] = []  # outlives a run: a branch keeps the watches on screen
        self.last_key_at = 0.0  # when the person last pressed a key (monotonic)
        self.load_error: BaseException | None = None  # the loader's error (the app has exited)
        self._runs = 0  # runs shown so far: the next run's mode is run-<runs>
        self._loader = loader
        self._load_lock = threading.Lock()
        self._load_abandoned = False  # the app closed while the loader ran: the loader closes what it built
        self._started_breakpoints: list[Breakpoint] | None = breakpoints  # the started run's, until one is shown
        first: Screen[None]
        if agent is not None and not (session_control is not None and session_control.pending_resume is not None):
            self._run_screen = self._new_run_screen(agent, breakpoints=breakpoints, autostart=autostart)
            self._shows_run = True
            first = self._run_screen
        else:  # the run is built behind this frame, or a start-up resume replays over it (`_started_agent`)
            self._started_agent = agent
            first = LoadingScreen(self.episode)
        self.add_mode(self.DEFAULT_MODE, lambda: first)

    @classmethod
    def for_run(cls, run: LoadedRun, *, cursor_blink: bool = True, keymap: dict[str, str] | None = None,
                profiles: str | None = None, review: bool = False) -> RecodeApp:
        """The console showing a run built beforehand (`build_app` without `defer`; tests)."""
        return cls(run.agent, session_control=run.session_control, episode=run.episode,
                   breakpoints=run.breakpoints, autostart=run.autostart, cursor_blink=cursor_blink,
                   keymap=keymap, profiles=profiles, review=review)

    def _new_run_screen(self, agent: Stepper, **kwargs: Any) -> DebugScreen:
        screen_class = self.run_screen_class
        if screen_class is None:
            from recode_tui.console.screens.debug_screen import DebugScreen

            screen_class = DebugScreen
        return screen_class(agent, **kwargs)

    def on_mount(self) -> None:
        if self.user_keymap:
            self.set_keymap(self.user_keymap)
        if self._loader is not None:
            # after the first frame; an error showing the run (a console bug) ends the app with its report
            self.call_after_refresh(self.run_worker, self._load_run(), name="load-run")
        elif self.session_control is not None:
            self.session_control.attach(self, self.replace_run)

    # -- loading behind the first frame ---------------------------------------------------------

    async def _load_run(self) -> None:
        """Build the run in a thread, then show it in place of the loading frame."""
        try:
            run = await asyncio.to_thread(self._build_in_thread)
        except Exception as exc:  # noqa: BLE001 - reported by the command line once the app has closed
            self.load_error = exc
            self.exit(return_code=2)
            return
        if run is None:
            return
        if run.autostart:
            run.agent.host.prepare()  # the game's reset and the code worker start while the screen mounts
        self.session_control = run.session_control
        if run.keymap and not self.user_keymap:
            self.user_keymap = dict(run.keymap)
            self.set_keymap(self.user_keymap)
        if run.episode:
            self.episode = run.episode
        self.review = self.review or run.review
        if run.session_control is not None and run.session_control.pending_resume is not None:
            # a start-up resume: the loading frame stays under the replay's cover; only the replayed run is shown
            self._started_agent, self._started_breakpoints = run.agent, run.breakpoints
        else:
            await self._show_first_run(run.agent, run.breakpoints, autostart=run.autostart)
        if self.session_control is not None:
            self.session_control.attach(self, self.replace_run)

    async def _show_first_run(self, agent: Stepper, breakpoints: list[Breakpoint] | None, *, autostart: bool) -> None:
        """Show `agent`'s run in place of the loading frame (and whatever covers it)."""
        screen = self._new_run_screen(agent, breakpoints=breakpoints, autostart=autostart)
        self._runs += 1
        mode = f"run-{self._runs}"
        self.add_mode(mode, lambda: screen)
        loading_mode = self.current_mode
        await self.switch_mode(mode)
        self._run_screen, self._shows_run, self._started_agent = screen, True, None
        await self.remove_mode(loading_mode)

    async def show_started_run(self) -> None:
        """The run the console was started with, made and shown only now: its start-up resume failed.
        The failed replay's cover goes with the loading frame; the session control puts up another."""
        if self._shows_run or self._started_agent is None:
            return
        await self._show_first_run(self._started_agent, self._started_breakpoints, autostart=False)

    def _build_in_thread(self) -> LoadedRun | None:
        assert self._loader is not None
        run = self._loader()
        with self._load_lock:
            if not self._load_abandoned:
                return run
        asyncio.run(run.agent.close())  # the console closed meanwhile: nobody will show this run
        return None

    async def on_unmount(self) -> None:
        with self._load_lock:
            self._load_abandoned = True
        if not self.loaded and self._started_agent is None:
            return
        from agent.llm import Cancellable  # loaded with the run, after the first frame

        agent = self.run_agent
        if isinstance(agent.host.llm, Cancellable):
            agent.host.llm.cancel()
        try:
            await agent.close()
        except Exception:  # noqa: BLE001 - closing must not mask the exit
            pass

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key):
            self.last_key_at = time.monotonic()
        await super().on_event(event)

    # -- one run at a time --------------------------------------------------------------------

    _run_screen: DebugScreen

    @property
    def debug_screen(self) -> DebugScreen:
        """The screen of the run on show (under a replay cover: the run being replaced)."""
        return self._run_screen

    async def replace_run(
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
    ) -> DebugScreen:
        """Show `agent` (a resume, rewind or fork) on a new debug screen in place of the old run's.

        The screens above the old one (the replay cover) go with it; so do its
        driver and any message it had queued. Breakpoints and watches carry over
        unless others are given; `profiles` is the file the `L` picker lists;
        `episode_ref` (the session's) names the episode on the status line.
        """
        old = self._run_screen if self._shows_run else None  # None: a start-up resume, nothing shown yet
        if episode_ref:  # a session of another game opened from the list
            from envs.registry import EpisodeRef

            self.episode = episode_label(EpisodeRef.parse(episode_ref))
        if breakpoints is None:
            breakpoints = list(old.debugger.breakpoints) if old is not None else self._started_breakpoints
        if watches is not None:
            self.set_watches(watches)
        if profiles is not None:
            self.profiles = profiles
        screen = self._new_run_screen(agent, breakpoints=breakpoints, drafts=drafts, replayed=replayed, how=how)
        old_mode = self.current_mode
        self._runs += 1
        mode = f"run-{self._runs}"
        self.add_mode(mode, lambda: screen)
        self._still_running()
        await self.switch_mode(mode)
        self._run_screen, self._shows_run = screen, True  # composed: `debug_screen` is this run from now on
        self._started_agent = None  # the session control closes it
        self._still_running()
        await self.remove_mode(old_mode)  # the old run's screen, its driver, the replay cover over it
        await screen.shown.wait()
        if screen.replay_error is not None:
            raise screen.replay_error
        return screen

    def _still_running(self) -> None:
        """The app is closing (q during a replay): the screens are its to close, not a replay's to change."""
        if not self.is_running:
            raise asyncio.CancelledError("the console is closing")

    # -- quitting an unfinished run -----------------------------------------------------------

    def resume_hint(self) -> str:
        """How to come back to the run on show ('' when it is over or not journaled)."""
        control = self.session_control
        session = control.session if control is not None else None
        if session is None or not self.loaded or self._run_screen.debugger.done:
            return ""
        from recode_tui.setup.sessions import resume_command

        return resume_command("tui", session.folder, profiles=self.profiles, review=self.review)

    def action_help_quit(self) -> None:
        """ctrl+c: a running run pauses first; then say how to quit and how to come back."""
        if not self.loaded:
            self.notify("q quits; nothing has run yet.", title="Still loading: do you want to quit?")
            return
        screen = self._run_screen
        running = screen.is_attached and screen.driver.busy and not screen.debugger.awaiting_human
        if running:
            screen.action_pause()
        hint = self.resume_hint()
        text = "q quits" + (f"; the session is kept: `{hint}` continues it." if hint else ".")
        self.notify(text, title="Paused: do you want to quit?" if running else "Do you want to quit?")

    # -- what outlives a run: help and palette ---------------------------------------------------

    def action_help(self) -> None:
        from recode_tui.console.screens.debug_screen import DebugScreen
        from recode_tui.console.widgets.breakpoints import BreakpointsPane
        from recode_tui.console.widgets.answer_editor import CodeArea, AnswerEditor
        from recode_tui.console.screens.help_screen import HelpScreen
        from recode_tui.console.widgets.search_bar import SearchBar
        from recode_tui.console.widgets.watches import WatchList

        from recode_tui.console.workspace.compare import CompareScreen
        from recode_tui.console.workspace.screen import PromptWorkspace

        sections: list[tuple[str, Sequence[BindingType]]] = [
            ("Console", list(DebugScreen.BINDINGS)),
            ("Answer editor", [*AnswerEditor.BINDINGS, *CodeArea.BINDINGS]),
            ("Breakpoint list", list(BreakpointsPane.BINDINGS)),
            ("Watch list", list(WatchList.BINDINGS)),
            ("Search line", list(SearchBar.BINDINGS)),
        ]
        # The prompt workspace's and the comparison's own keys, first when F1 is pressed there.
        own: list[tuple[str, type[Screen], Sequence[BindingType]]] = [
            ("Prompt workspace (W)", PromptWorkspace, PromptWorkspace.BINDINGS),
            ("Re-expansion comparison", CompareScreen, CompareScreen.BINDINGS),
        ]
        for title, screen_class, bindings in own:
            described = [b for b in bindings if isinstance(b, Binding) and b.description]
            sections.insert(0 if isinstance(self.screen, screen_class) else len(sections), (title, described))
        self.push_screen(HelpScreen(sections, self.user_keymap))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """ctrl+p lists the run's own actions (from its screen's bindings) before Textual's."""
        from recode_tui.console.screens.debug_screen import DebugScreen
        from recode_tui.console.controllers.palette import binding_commands

        if isinstance(screen, DebugScreen):
            yield from binding_commands(self, screen, DebugScreen.BINDINGS, self.user_keymap)
        for command in super().get_system_commands(screen):
            if command.title not in ("Maximize", "Minimize"):  # `z` zooms (a whole pane)
                yield command


def build_app(options: ConsoleOptions, llm: LLM | None = None, runner_maker: RunnerMaker | None = None) -> RecodeApp:
    """The console on the run `options` ask for, built now (a pipe, tests); an error is raised here.

    `llm`: a model object answering instead of the options' `--llm` spec; `runner_maker`: where node
    code runs instead of the sandbox (behaviour tests: in-process). `recode-tui tui` on a terminal
    instead draws its first frame and builds the run behind it (`RecodeApp(loader=...)`).
    """
    return RecodeApp.for_run(load_run(options, llm, runner_maker=runner_maker), cursor_blink=options.cursor_blink, keymap=options.keymap,
                             profiles=options.run.llm.profiles, review=options.review)
