"""The screen of one run: a stepper, its debugger, its panes, and where the run stands.

The screen owns everything that belongs to one agent: the debugger, the
`AgentDriver` and its messages, the drafts, the prompt on show and the run
state (a reactive that greys the keys that cannot act). Resume, rewind and
fork build a new `DebugScreen` on the replayed agent and put it in this
one's place, so nothing of the old run (a queued driver message, a prompt, a
draft) can reach the new one. What outlives a run (the session, the LLM
profiles, the keymap, the watch expressions, the help, the palette) is the
app's; the screen reads it from `self.app`.

Each group of keys lives with a controller the screen holds and hands its
actions and messages to: `RunEvents` (the driver's events and stops),
`StopTools` (breakpoints, watches, the shell line), `ModelKeys` (the LLM and the
sandbox), `PaneSearch` (`/`), `PaneView` (tabs, zoom, narrow panes). Each is given
this screen as a `hosts.RunScreen`, the run's state without its panes; what a pane
should show it posts as a request (run/requests.py), which the screen's
`PaneRoutes` hands to that pane, or asks through a protocol the panes meet
(`Searchable`, `TakesFocus`).
"""

from __future__ import annotations

import asyncio
import time
from typing import Iterable

from textual import events, on
from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical
from textual.lazy import Lazy
from textual.signal import Signal
from textual.widgets import TabbedContent, TabPane, Tree

from agent.runtime import events as ev
from agent.runtime.breakpoints import Breakpoint, BreakpointKind
from agent.runtime.debugger import Debugger, StepMode
from agent.runtime.stepper import Stepper
from agent.runtime.tree import NodeStatus
from recode_tui.console.controllers.keys import DEBUG_BINDINGS
from recode_tui.console.controllers.llm_control import LLMControl
from recode_tui.console.controllers.model_actions import ModelKeys
from recode_tui.console.controllers.run_events import RunEvents
from recode_tui.console.run.run_state import RunState, RunStateChanged, action_enabled, keys_differ
from recode_tui.console.screens.pane_routes import PaneRoutes
from recode_tui.console.support.textual_compat import SteadyScreen
from recode_tui.console.controllers.search_actions import PaneSearch
from recode_tui.console.controllers.session_actions import run_session_action
from recode_tui.console.controllers.stop_tools import StopTools
from recode_tui.console.controllers.view_actions import PaneView
from recode_tui.console.widgets.agent_view import AgentViewPane
from recode_tui.console.widgets.breakpoints import BreakpointsPane
from recode_tui.console.widgets.code_tree import CodeTreeView
from recode_tui.console.widgets.driver import AgentDriver
from recode_tui.console.widgets.env_log import EnvLog
from recode_tui.console.widgets.answer_editor import AnswerEditor
from recode_tui.console.widgets.key_footer import KeyFooter
from recode_tui.console.widgets.key_line import KeyLine
from recode_tui.console.widgets.node_detail import NodeDetail
from recode_tui.console.widgets.observation_view import ObservationView
from recode_tui.console.widgets.prompt_view import PromptView
from recode_tui.console.widgets.review_panel import ReviewBar
from recode_tui.console.widgets.search_bar import SearchBar
from recode_tui.console.widgets.status_bar import StatusBar
from recode_tui.console.widgets.variables import VariablesPane
from recode_tui.console.widgets.watches import WatchList

MODEL_CLOCK_SECONDS = 0.5  # how often the "model is answering" clock is redrawn


def size_classes(app: App[object]) -> dict[str, bool]:
    """The breakpoint classes Textual gives a screen of the app's size (`App.HORIZONTAL_BREAKPOINTS`,
    `VERTICAL_BREAKPOINTS`): in each list, the class of the highest breakpoint the size reaches."""
    classes: dict[str, bool] = {}
    for breakpoints, reach in ((app.HORIZONTAL_BREAKPOINTS or [], app.size.width),
                               (app.VERTICAL_BREAKPOINTS or [], app.size.height)):
        reached = [name for at, name in sorted(breakpoints, reverse=True) if reach >= at][:1]
        classes.update({name: name in reached for _, name in breakpoints})
    return classes


class DebugScreen(PaneRoutes, SteadyScreen):  # laid out at a Resize only when the size changed
    """One run on screen: `agent`, its `debugger`, the panes, and the run state that greys keys."""

    BINDINGS = DEBUG_BINDINGS

    def __init__(
        self,
        agent: Stepper,
        *,
        breakpoints: list[Breakpoint] | None = None,
        drafts: dict[str, str] | None = None,
        replayed: Iterable[ev.Event] = (),
        how: str = "",
        autostart: bool = False,
    ) -> None:
        """`replayed`: the events a resume or branch replayed, shown as one stop once the panes are laid out."""
        super().__init__()
        self.agent = agent
        self.debugger = Debugger(agent, breakpoints=breakpoints)
        self.driver = AgentDriver(self.debugger)  # composed with the panes; commands run in its worker
        self.drafts: dict[str, str] = dict(drafts or {})  # node id -> the person's expansion text
        self.replayed = list(replayed)
        self.how = how  # resumed | rewound | forked: said in the first stop of a replayed run
        self.autostart = autostart
        self.set_reactive(DebugScreen.run_state, RunState.STARTING)
        self.reason_kind = "info"
        self.reason = "loading the game…"
        self.short_reason = ""  # said instead of `reason` when it does not fit the status line
        self.shown_prompt: tuple[str, str] | None = None  # what the Prompt tab shows
        # Published with the run state once a stop (or a failed command) is shown in every pane: whoever
        # needs the result of a command subscribes instead of polling (tests/console/page.py).
        self.stop_shown: Signal[RunState] = Signal(self, "stop_shown")
        self.command_at = 0.0  # when the last agent command was given
        self.shown = asyncio.Event()  # set once the panes show the run (the replayed events included)
        # Set once the run's first stop (the task, or where a replay ended) is shown in every pane.
        self.first_stop_shown = asyncio.Event()
        self.replay_error: Exception | None = None  # showing the replayed events failed (see `_show_replayed`)
        self.stop_tools = StopTools(self)  # b, w, !, the breakpoint and watch lists
        self.run_events = RunEvents(self, self.stop_tools)  # the driver's events and stops, in the panes
        self.pane_view = PaneView(self)  # e, r, B, a, z and v
        self.pane_search = PaneSearch(self)  # / and the search bar

    model_keys: ModelKeys  # L, t, the review keys, i: made in `compose` with the LLM control

    # -- layout -----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        # The size classes (-narrow, -short, ...) before the panes mount: set by Textual's first resize
        # instead, they restyle every pane once more (a tenth of a boot's CPU).
        self.update_classes(size_classes(self.app), update=False)
        console = self.console
        yield StatusBar(id="status")
        with Horizontal(id="panes"):
            with Vertical(id="left"):
                yield CodeTreeView(self.agent.tree, id="code-tree")
                yield NodeDetail(id="detail", awaiting_llm_word=self.agent.traits.awaiting_llm_word)
            yield VariablesPane(self.agent.runner.full_value, console.watch_expressions,
                                note=self.agent.traits.variables_note, id="vars")
            log = EnvLog(id="env-log")
            log.scores = lambda: tuple(self.agent.env.score_log)  # an env with a score logs its changes
            yield log
        # F2's peek (the observation where the panes were) is made at the first F2 (`make_peek`).
        # A person starts on the task and the first observation; the editor's tab opens when an answer is awaited.
        # Each tab's title starts with its key (the narrow key line cannot list them all).
        with TabbedContent(id="bottom", initial="tab-observation" if self.debugger.human else "tab-prompt"):
            with TabPane("O Observation", id="tab-observation"):
                yield ObservationView(id="observation")
            with TabPane("e Expansion", id="tab-expand"):  # the review bar joins it at the first proposal
                yield AnswerEditor(self.drafts, id="answer")
            # A person answering starts on the observation: the prompt's pane is made when its tab first
            # shows (`make_prompt_view`). A model's run starts on it: mounted just after the first paint.
            with TabPane("r Prompt", id="tab-prompt"):
                if not self.debugger.human:
                    yield Lazy(PromptView(id="prompt"))
            if self.agent.traits.view_title:  # the agent's own view; ReCode has none (its tree is its state)
                with TabPane(f"a {self.agent.traits.view_title}", id="tab-agent"):
                    yield AgentViewPane(id="agent-view")
            yield TabPane("B Breakpoints", id="tab-breakpoints")  # its list is made when the tab first shows
        yield KeyFooter()
        yield KeyLine(id="key-line")  # the footer's place below 100 columns (recode.tcss)
        yield self.driver
        llm_control = LLMControl(console.profiles, console.review)
        self.model_keys = ModelKeys(self, llm_control, self.run_events)
        yield llm_control

    _shown_before = False  # the screen has been on show (resumed) once

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        """The first time the screen shows, its panes were styled as they mounted (the size classes
        included): Textual's restyle of the whole screen on showing it would do all of it again (a
        tenth of a boot). Runs before Textual's own handler (a subclass's handler comes first)."""
        if not self._shown_before:
            self._shown_before = True
            event.refresh_styles = False

    def on_mount(self) -> None:
        self.label_panes()
        self.set_interval(MODEL_CLOCK_SECONDS, self.show_model_clock)
        control = self.session_control
        if control is not None:  # leaving the editor writes the draft at once
            self.watch(self, "focused", control.save_work, init=False)
        self.watch(self, "focused", lambda _: self.show_keys(), init=False)
        self.show_keys()
        if self.replayed:
            self.call_after_refresh(self._show_replayed)  # after layout: the log wraps to its real width
        else:
            self.shown.set()
            if self.autostart:
                self.call_after_refresh(self.start)

    def label_panes(self) -> None:
        """Titles, focus and status of the freshly composed panes."""
        self.query_one("#code-tree").border_title = self.agent.traits.structure_title
        self.query_one("#detail").border_title = "Node"
        self.query_one("#vars").border_title = "Variables"
        self.query_one("#vars").border_subtitle = "w watch"
        self.query_one("#env-log").border_title = "Environment"
        self.query_one("#code-tree", CodeTreeView).focus()
        self.command_at = time.monotonic()  # a new agent (resume, rewind, fork) counts as a command
        self.refresh_breakpoints()  # the watches a `changes` breakpoint stops on are marked
        self.update_status()
        control = self.session_control
        if control is not None:
            control.show_status()

    def start(self) -> None:
        """Reset the environment: the first event (the task) after the first paint."""
        self.driver.step(StepMode.NEXT)
        self.call_later(self.editor.enable_highlighting)

    def _show_replayed(self) -> None:
        """The replayed events in the panes, and a stop where the replay ended.

        An error is kept for whoever awaits `shown` (the session control says it), not raised here.
        """
        try:
            stop = self.run_events.replay_stop(self.replayed, self.how)
            self.apply_events(self.replayed)
            self.post_message(AgentDriver.Stopped(stop))
        except Exception as exc:  # noqa: BLE001 - a console bug showing a good journal: said, not fatal
            self.replay_error = exc
        finally:
            self.shown.set()

    # -- run state: this screen is its only writer ------------------------------------------

    def on_run_state_changed(self, message: RunStateChanged) -> None:
        """A helper (the LLM control) says where the run stands; the screen sets it."""
        message.stop()
        self.enter_state(message.state, message.kind, message.reason)
        # Who answers changes with the state (a proposal under review, the person's turn): the model clock
        # says so now, or its last "is answering" would hide the state's reason until its next tick.
        self.show_model_clock()

    def validate_run_state(self, value: str) -> RunState:
        return RunState(value)

    def watch_run_state(self, old: RunState, new: RunState) -> None:
        if keys_differ(old, new):  # rebuilding the footer is dear: only when a key greys or comes back
            self.refresh_bindings()
            self.show_keys()

    def show_keys(self) -> None:
        """The narrow key line follows the focus (the editor's own keys while typing) and the run state."""
        state = self.run_state
        self.query_one(KeyLine).update(
            in_editor=self.focused is self.editor.editor,
            enabled=lambda action: action_enabled(action, state),
            has_agent_view=bool(self.agent.traits.view_title))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keys that cannot act are greyed in the footer (see `run_state.action_enabled`)."""
        return True if action_enabled(action, self.run_state) else None

    # -- agent messages (only this screen's driver reaches here) ------------------------------

    def on_agent_driver_started(self, message: AgentDriver.Started) -> None:
        if self.run_state not in (RunState.STARTING, RunState.REVIEWING):  # a fast proposal may come first
            self.enter_state(RunState.RUNNING, "info", f"{message.command}…")

    def on_agent_driver_events(self, message: AgentDriver.Events) -> None:
        self.apply_events(message.events)

    async def on_agent_driver_stopped(self, message: AgentDriver.Stopped) -> None:
        if not self.is_attached:  # the app is closing: the panes are going
            return
        self.run_events.stopped(message.result)
        self.llm_control.after_stop(message.result)  # after the stop's reason: an LLM failure says its own
        await self.run_events.after_stop(message.result)

    def on_agent_driver_failed(self, message: AgentDriver.Failed) -> None:
        self.run_events.failed(message.error)

    @property
    def pending_prompt(self) -> tuple[str, str] | None:
        """(title, prompt) of the open LLM request."""
        return self.run_events.pending_prompt

    @on(Tree.NodeHighlighted, "#code-tree")
    def show_node(self, event: Tree.NodeHighlighted) -> None:
        self.run_events.node_selected(event.node.data or "")

    # -- actions ------------------------------------------------------------------------------

    def action_run_to_here(self) -> None:
        node = self.selected_node()
        if node is None:
            self.notify("Select a node in the code tree first.", severity="warning")
            return
        if node.status is not NodeStatus.PENDING:
            self.notify(f"{node.id} has already run ({node.status.value}): pick a pending node.", severity="warning")
            return
        self.action_step("continue", until=node.id)

    def action_step(self, mode: str, until: str | None = None) -> None:
        debugger = self.debugger
        if self.run_state is RunState.STARTING:  # the game is still loading: nothing to step yet
            self.notify("loading… the run is not ready yet: step once the status line says paused.",
                        severity="warning")
            return
        if debugger.done:
            self.notify("The run is over.", severity="warning")
            return
        if debugger.awaiting_human:
            noun = self.agent.traits.answer_words.noun
            self.notify(f"Type the {noun} in the editor (e) and press ctrl+s.", title=f"Awaiting your {noun}")
            self.show_editor()
            return
        if self.llm_control.reviewing is not None:
            self.notify("e edits it, ctrl+s accepts, ctrl+g regenerates, ctrl+o rejects.", title="Review the proposal")
            self.show_editor()
            return
        if self.driver.busy:
            self.notify("The agent is running: p pauses it.", severity="warning")
            return
        self.command_at = time.monotonic()
        if until is not None:
            self.driver.run_until(until)
        else:
            self.driver.step(StepMode(mode))

    def action_pause(self) -> None:
        if self.driver.busy and not self.debugger.awaiting_human:
            self.driver.pause()
            self.say("paused", "pausing after the current event…")

    def action_submit(self) -> None:
        # ctrl+s is a priority binding handled on the app's queue; keys typed just before
        # it may still wait on the text area's own queue. Submit from that queue, after them.
        self.editor.editor.call_later(self.editor.submit)

    def on_answer_editor_submitted(self, message: AnswerEditor.Submitted) -> None:
        self.run_events.submitted_node = message.node_id
        if self.llm_control.take_submission(message.text):  # a reviewed proposal
            return
        if not self.debugger.awaiting_human or self.driver.busy:
            self.notify(f"No {self.agent.traits.answer_words.noun} is awaited.", severity="warning")
            return
        self.editor.close(f"Submitted the {self.agent.traits.answer_words.noun} of {message.node_id}…")
        self.command_at = time.monotonic()
        self.driver.submit(message.text)

    async def action_show_tab(self, tab: str) -> None:
        await self.make_tab_pane(tab)  # before the tab shows, so its pane takes the focus
        self.pane_view.show_tab(tab)

    @on(TabbedContent.TabActivated, "#bottom")
    async def tab_shown(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id is not None:  # a click on its title
            await self.make_tab_pane(event.pane.id)

    async def make_tab_pane(self, tab: str) -> None:
        """The pane of a tab made the first time the tab shows: most runs never open these.
        The breakpoint list (its table and box cost a twentieth of each start) reads the breakpoints
        as they are then; the prompt's pane is made, or brought up to the prompt on show (hidden, it is not
        kept up to date)."""
        if tab == "tab-breakpoints":
            pane = self.query_one("#tab-breakpoints", TabPane)
            if not pane.query(BreakpointsPane):
                await pane.mount(BreakpointsPane(self.debugger, id="breakpoints"))
        elif tab == "tab-prompt":
            made = self.refresh_prompt_view()
            if made is not None:
                await made

    async def action_workspace(self) -> None:
        from recode_tui.console.workspace.launch import open_workspace

        await open_workspace(self)

    async def action_search(self) -> None:
        if not self.query(SearchBar):  # made at the first `/`, in its place above the keys
            await self.mount(SearchBar(id="search-bar"), before=self.query_one(KeyFooter))
        self.pane_search.open()

    def on_search_bar_query(self, message: SearchBar.Query) -> None:
        self.pane_search.query(message.text)

    def on_search_bar_step(self, message: SearchBar.Step) -> None:
        self.pane_search.step(message.direction)

    def on_search_bar_closed(self, message: SearchBar.Closed) -> None:
        self.pane_search.close()

    def action_switch_llm(self) -> None:
        self.model_keys.switch_llm()

    def action_type_answer(self) -> None:
        self.model_keys.type_answer()

    def action_review(self, verb: str) -> None:
        self.model_keys.review(verb)

    def on_review_bar_decided(self, message: ReviewBar.Decided) -> None:
        self.model_keys.decided(message.verb)

    def on_llmcontrol_switched(self, message: LLMControl.Switched) -> None:
        self.update_status()

    def action_interrupt(self) -> None:
        self.model_keys.interrupt()

    def action_session(self, what: str) -> None:
        run_session_action(self, self.session_control, what)

    def action_zoom(self) -> None:
        self.pane_view.zoom()

    def action_swap_panes(self) -> None:
        self.pane_view.swap_panes()

    async def action_peek(self) -> None:
        await self.make_peek()
        self.pane_view.peek()

    async def action_peek_more(self) -> None:
        await self.make_peek()
        self.pane_view.peek_more()

    async def make_peek(self) -> None:
        """F2: the observation where the panes were, the focus left in the editor. Made at the first F2
        (most runs never peek), showing what the Observation tab shows; kept up to date from then on."""
        if self.peek is not None:
            return
        self.peek = peek = ObservationView(id="peek")
        peek.can_focus = False
        peek.border_title = "Observation (peek)"
        peek.border_subtitle = "f3 more · f2 back"
        peek.take_over(self.observation_view)
        await self.mount(peek, before=self.query_one("#bottom"))

    def action_follow(self) -> None:
        self.tree_view.follow(force=True)
        self.tree_view.focus()

    # -- breakpoints, watches, the shell line (StopTools) ---------------------------------------

    def action_toggle_breakpoint(self) -> None:
        self.stop_tools.toggle_on_selected()

    def on_breakpoints_pane_changed(self, message: BreakpointsPane.Changed) -> None:
        self.stop_tools.pane_changed()

    def action_watch(self) -> None:
        self.stop_tools.add_watch()

    def action_shell(self) -> None:
        self.stop_tools.open_shell()

    def on_watch_list_break_on_change(self, message: WatchList.BreakOnChange) -> None:
        self.stop_tools.toggle(BreakpointKind.VALUE_CHANGED, message.expression)

    def on_watch_list_changed(self, message: WatchList.Changed) -> None:
        self.stop_tools.watches_changed(message.expressions)

    def refresh_breakpoints(self, highlight: int | None = None) -> None:
        self.stop_tools.refresh_breakpoints(highlight)

    def evaluate_watches(self, new_stop: bool = True) -> None:
        self.stop_tools.evaluate_watches(new_stop)
