"""The screen of one run: a stepper, its debugger, its panes, and where the run stands.

The screen owns everything that belongs to one engine: the debugger, the
`EngineDriver` and its messages, the drafts, the prompt on show and the run
state (a reactive that greys the keys that cannot act). Resume, rewind and
fork build a new `DebugScreen` on the replayed engine and put it in this
one's place, so nothing of the old run (a queued driver message, a prompt, a
draft) can reach the new one. What outlives a run (the session, the LLM
profiles, the keymap, the watch expressions, the help, the palette) is the
app's; the screen reads it from `self.app`.
"""

from __future__ import annotations

import asyncio
import time
from typing import Iterable

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.lazy import Lazy
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, TabbedContent, TabPane, Tree

from agent.agents.recode.codeblocks import stub_name_of
from agent.llm import LLM
from agent.runtime import events as ev
from agent.runtime.debugger import Breakpoint, BreakpointKind, Debugger, Stop, StopReason, StepMode, describe_event
from agent.runtime.event_text import finish_verdict
from agent.runtime.stepper import Stepper
from agent.runtime.tree import NodeStatus
from envs.protocols import has_reward, reward_of, score_log_of, score_of
from mockllm.review import ReviewLLM
from recode_tui.console.llm_control import LLMControl
from recode_tui.console.hosts import ConsoleApp, HasChoices, RunScreen, Sessions, is_trusted
from recode_tui.console.model_actions import MODEL_BINDINGS, ModelKeys
from recode_tui.console.run_state import RunState, RunStateChanged, action_enabled, keys_differ
from recode_tui.console.search_actions import SEARCH_BINDINGS, PaneSearch
from recode_tui.console.session_actions import SESSION_BINDINGS, run_session_action
from recode_tui.console.view_actions import VIEW_BINDINGS, PaneView
from recode_tui.console.widgets.agent_view import AgentViewPane
from recode_tui.console.widgets.breakpoints import BreakpointsPane
from recode_tui.console.widgets.code_tree import CodeTreeView
from recode_tui.console.widgets.driver import EngineDriver
from recode_tui.console.widgets.env_log import EnvLog
from recode_tui.console.widgets.expansion_editor import ExpansionEditor
from recode_tui.console.widgets.key_line import KeyLine
from recode_tui.console.widgets.node_detail import NodeDetail
from recode_tui.console.widgets.prompt_view import PromptView
from recode_tui.console.widgets.review_panel import ReviewBar
from recode_tui.console.widgets.search_bar import SearchBar
from recode_tui.console.widgets.status_bar import StatusBar
from recode_tui.console.widgets.variables import VariablesPane
from recode_tui.console.widgets.watches import WatchList

NARROW_COLUMNS = 100  # the footer is compact below this width (as the panes rearrange, recode.tcss)
MODEL_CLOCK_SECONDS = 0.5  # how often the "model is answering" clock is redrawn

# The console's keys, in footer order. Help and quit are the app's actions, listed here
# so the footer keeps them in place; the app binds them too, for the screens above this one.
DEBUG_BINDINGS: list[BindingType] = [
    # Help first: at 80 columns the footer cannot show every key, and this one lists them all.
    Binding("question_mark,f1", "app.help", "Help", id="app.help"),
    Binding("n", "step('next')", "Next", id="step.next", tooltip="Run to the next engine event"),
    Binding("s", "step('into')", "Into", id="step.into", tooltip="Next node start or single action"),
    Binding("o", "step('over')", "Over", id="step.over", tooltip="Finish the current node and its subtree"),
    Binding("u", "step('out')", "Out", id="step.out", tooltip="Finish the parent node"),
    Binding("c", "step('continue')", "Continue", id="run.continue"),
    Binding("h", "run_to_here", "To here", id="run.to-here", show=False,
            tooltip="Continue until the selected node starts (gdb's until)"),
    Binding("p", "pause", "Pause", id="run.pause"),
    # Esc pauses too, but is not shown: in the editor it leaves the editor (the footer said `esc Pause` there).
    Binding("escape", "pause", "Pause", id="run.pause-escape", show=False),
    Binding("b", "toggle_breakpoint", "Break", id="breakpoint.toggle",
            tooltip="Toggle a breakpoint on the selected node's stub name"),
    Binding("ctrl+s", "submit", "Submit", id="expansion.submit", priority=True),
    Binding("e", "show_tab('tab-expand')", "Editor", id="view.editor"),
    Binding("r", "show_tab('tab-prompt')", "Prompt", id="view.prompt"),
    Binding("B", "show_tab('tab-breakpoints')", "Breakpoints", id="view.breakpoints"),
    Binding("a", "show_tab('tab-agent')", "Agent view", id="view.agent", show=False,
            tooltip="The agent's own view: its plan, window, turns or cells (not for ReCode: see the tree)"),
    Binding("f", "follow", "Current", id="view.follow", show=False),
    Binding("exclamation_mark", "shell", "Shell", id="shell.open", show=False,
            tooltip="At a stop: run a Python line in the run's namespace (statements are journaled)"),
    Binding("w", "watch", "Watch", id="watch.add", show=False,
            tooltip="Watch a Python expression: re-evaluated at every stop"),
    Binding("W", "workspace", "Prompts", id="view.workspace", show=False,
            tooltip="Prompt workspace: edit the prompt set, re-expand the selected stub, compare"),
    Binding("q", "app.quit", "Quit", id="app.quit"),
    *MODEL_BINDINGS,
    *SESSION_BINDINGS,
    *SEARCH_BINDINGS,
    *VIEW_BINDINGS,
]


class DebugScreen(RunScreen):
    """One run on screen: `engine`, its `debugger`, the panes, and the run state that greys keys."""

    BINDINGS = DEBUG_BINDINGS

    # The status line shows it (update_status); a change repaints nothing by itself.
    run_state: reactive[RunState] = reactive(RunState.STARTING, init=False, repaint=False)

    def __init__(
        self,
        engine: Stepper,
        *,
        breakpoints: list[Breakpoint] | None = None,
        drafts: dict[str, str] | None = None,
        replayed: Iterable[ev.Event] = (),
        how: str = "",
        autostart: bool = False,
        stops: int = 0,
    ) -> None:
        """`replayed`: the events a resume or branch replayed, shown as one stop once the panes are laid out."""
        super().__init__()
        self.engine = engine
        self.debugger = Debugger(engine, breakpoints=breakpoints)
        self.drafts: dict[str, str] = dict(drafts or {})  # node id -> the person's expansion text
        # An accepted answer leaves the drafts: the node's next call (a Plan-and-Execute turn, a
        # ReCAP refine) starts from the agent's template; a repair starts from the answer that failed.
        self.submitted_node: str | None = None  # the node of the answer submitted, until it is taken
        self.accepted_answers: dict[str, str] = {}  # node id -> its last accepted answer, for a repair
        self.replayed = list(replayed)
        self.how = how  # resumed | rewound | forked: said in the first stop of a replayed run
        self.autostart = autostart
        self.set_reactive(DebugScreen.run_state, RunState.STARTING)
        self.reason_kind = "info"
        self.reason = "loading the game…"
        self.pending_prompt: tuple[str, str] | None = None  # (title, prompt) of the open request
        self.shown_prompt: tuple[str, str] | None = None  # what the Prompt tab shows
        self.stops = stops  # commands finished and shown (tests wait on this; a new run goes on counting)
        self.running_line: tuple[str, int] | None = None  # (node id, line) of the node's last run() call
        self.command_at = 0.0  # when the last engine command was given
        self.shown = asyncio.Event()  # set once the panes show the run (the replayed events included)
        self.replay_error: Exception | None = None  # showing the replayed events failed (see `_show_replayed`)
        self._breakpoints_dirty = False  # the list shows a highlight or stale hit counts
        self.pane_view = PaneView(self)  # z and v
        self.pane_search = PaneSearch(self)  # / and the search bar

    model_keys: ModelKeys  # L, t, the review keys, i: made in `compose` with the LLM control

    @property
    def console(self) -> ConsoleApp:
        """The app this screen runs in (only ever a `ConsoleApp`)."""
        app = self.app
        assert isinstance(app, ConsoleApp), "a DebugScreen runs only in the console app"
        return app

    @property
    def session_control(self) -> Sessions | None:
        """The app's session control; None when the run is not journaled."""
        return self.console.session_control

    # -- layout -----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        console = self.console
        yield StatusBar(id="status")
        with Horizontal(id="panes"):
            with Vertical(id="left"):
                yield CodeTreeView(self.engine.tree, id="code-tree")
                yield NodeDetail(id="detail")
            yield VariablesPane(self.engine.runner.full_value, console.watch_expressions,
                                note=self.engine.variables_note, id="vars")
            log = EnvLog(id="env-log")
            log.scores = lambda: score_log_of(self.engine.env)  # an env with a score logs its changes
            yield log
        with TabbedContent(id="bottom", initial="tab-expand" if self.debugger.human else "tab-prompt"):
            with TabPane("Expansion", id="tab-expand"):
                yield ExpansionEditor(self.drafts, id="expansion")
                yield ReviewBar(id="review-bar")
            # Hidden at first: mounted just after the first paint.
            with TabPane("Prompt", id="tab-prompt"):
                yield Lazy(PromptView(id="prompt"))
            if self.engine.view_title:  # the agent's own view; ReCode has none (its tree is its state)
                with TabPane(self.engine.view_title, id="tab-agent"):
                    yield AgentViewPane(id="agent-view")
            with TabPane("Breakpoints", id="tab-breakpoints"):
                yield Lazy(BreakpointsPane(self.debugger, id="breakpoints"))
        yield SearchBar(id="search-bar")
        yield Footer()
        yield KeyLine(id="key-line")  # the footer's place below 100 columns (recode.tcss)
        yield EngineDriver(self.debugger)
        llm_control = LLMControl(console.profiles, console.review)
        self.model_keys = ModelKeys(self, llm_control)
        yield llm_control

    def on_resize(self, event: events.Resize) -> None:
        """Below 100 columns the footer drops its padding, so more keys fit."""
        for footer in self.query(Footer):
            footer.compact = event.size.width < NARROW_COLUMNS

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
        self.query_one("#code-tree").border_title = self.engine.structure_title
        self.query_one("#detail").border_title = "Node"
        self.query_one("#vars").border_title = "Variables"
        self.query_one("#vars").border_subtitle = "w watch"
        self.query_one("#env-log").border_title = "Environment"
        self.query_one("#code-tree", CodeTreeView).focus()
        self.command_at = time.monotonic()  # a new engine (resume, rewind, fork) counts as a command
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
            self._apply_replayed(self.replayed)
        except Exception as exc:  # noqa: BLE001 - a console bug showing a good journal: said, not fatal
            self.replay_error = exc
        finally:
            self.shown.set()

    def _apply_replayed(self, events: list[ev.Event]) -> None:
        debugger, how = self.debugger, self.how
        for event in events:
            if isinstance(event, ev.StubFound):
                debugger.stub_name = event.name
            elif isinstance(event, ev.NodeError):
                debugger.stub_name = ""
        last = next((e for e in reversed(events) if not isinstance(e, ev.StatementRun)), events[-1])
        debugger.last_event, debugger.events_seen = last, len(events)
        self.apply_events(events)
        if isinstance(last, ev.RunFinished):
            verdict = finish_verdict(last, "episode won", "episode failed")
            reason = StopReason("finished", f"{how}: {verdict} — {last.steps} steps")
        elif debugger.awaiting_human:
            reason = StopReason("human", f"{how}: awaiting your expansion of {last.node_id}")
        else:
            reason = StopReason("step", f"{how} at: {describe_event(last)}")
        stop = Stop(last, reason, len(events))
        debugger.last_stop, debugger.stopped_at = stop, time.monotonic()
        self.post_message(EngineDriver.Stopped(stop))

    def show_model_clock(self) -> None:
        """While a model (not the person) answers, say so on the status line with the time so far."""
        since = self.engine.answering_since
        text = ""
        if since is not None and not self.debugger.human and self.llm_control.reviewing is None:
            node = self.engine.current.id if self.engine.current is not None else "?"
            name = self.engine.llm.name
            text = f"{name} is answering {node}… {time.monotonic() - since:.0f} s"
        for bar in self.query(StatusBar):
            bar.set_activity(text)

    def typing_since_command(self) -> bool:
        """Keys were pressed after the last command: they are commands, not meant for the editor."""
        return self.console.last_key_at > self.command_at

    def focus_editor(self, why: str, force: bool = False) -> bool:
        """Give the editor the focus, and say so; never while the person is typing commands.

        Returns False (and says `e` does it) when keys were pressed since the last
        command: moving the focus then would send the next command key into the code.
        `force` is for a key that asked for the editor (`t`, `L`, ctrl+o).
        """
        area = self.editor.editor
        if self.focused is area:
            return True
        self.show_editor()
        if not force and self.typing_since_command():
            self.notify(f"{why}: e moves the focus to the editor.", title="The focus stays")
            return False
        area.focus()
        self.notify("✎ Focus → editor (esc leaves)", timeout=2.5)  # short: it covers little of the editor
        return True

    # -- shortcuts to widgets ---------------------------------------------------------------

    @property
    def driver(self) -> EngineDriver:
        return self.query_one(EngineDriver)

    @property
    def tree_view(self) -> CodeTreeView:
        return self.query_one(CodeTreeView)

    @property
    def editor(self) -> ExpansionEditor:
        return self.query_one(ExpansionEditor)

    @property
    def env_log(self) -> EnvLog:
        return self.query_one(EnvLog)

    @property
    def variables(self) -> VariablesPane:
        return self.query_one(VariablesPane)

    @property
    def llm_control(self) -> LLMControl:
        return self.query_one(LLMControl)

    @property
    def review_bar(self) -> ReviewBar:
        return self.query_one(ReviewBar)

    def show_editor(self) -> None:
        """Show the editor tab; the focus stays (it moves only on `e` or a key asking for the editor)."""
        self.query_one(TabbedContent).active = "tab-expand"

    def hand_over_after_answer(self, llm: LLM) -> None:
        self.llm_control.hand_over_after_answer(llm)

    def show_prompt(self, title: str, prompt: str) -> None:
        self.shown_prompt = (title, prompt)
        for view in self.query(PromptView):  # absent for a moment after start (lazy)
            view.show(title, prompt)

    def refresh_agent_view(self) -> None:
        """Redraw the agent's tab from `engine.view()`: at stops only, never per event."""
        for pane in self.query(AgentViewPane):
            pane.show(self.engine.view())

    def refresh_breakpoints(self, highlight: int | None = None) -> None:
        for pane in self.query(BreakpointsPane):  # absent for a moment after start (lazy)
            pane.refresh_rows(highlight=highlight)
        self._mark_breaking_watches()

    def _mark_breaking_watches(self) -> None:
        self.variables.watches.show_breaking({
            bp.value for bp in self.debugger.breakpoints if bp.kind is BreakpointKind.VALUE_CHANGED and bp.enabled
        })

    # -- status ---------------------------------------------------------------------------

    def update_status(self) -> None:
        engine = self.engine
        current = engine.current
        # A proposal under review has cost its tokens already; the engine counts them once it is decided.
        llm = engine.llm
        waiting = llm.proposal if isinstance(llm, ReviewLLM) and llm.waiting else None
        extra_in, extra_out = (waiting.usage.input_tokens, waiting.usage.output_tokens) if waiting else (0, 0)
        self.query_one(StatusBar).show(
            episode=self.console.episode,
            task_type=engine.env.task_type or "?",
            steps=engine.env.steps,
            max_steps=engine.env.max_steps,
            # an env with a reward (WebShop) has it only at the end; one with a score shows it while it runs
            score=None if has_reward(engine.env) else score_of(engine.env),
            reward=reward_of(engine.env) if engine.env.done else None,
            depth=current.depth if current else 0,
            nodes=len(engine.tree),
            llm_calls=engine.llm_calls,
            tokens=(engine.usage.input_tokens + extra_in, engine.usage.output_tokens + extra_out),
            cost=engine.cost + (waiting.cost if waiting else 0.0),
            llm=llm.name,
            trusted=is_trusted(engine.runner),
            agent=engine.display_name,
            state=self.run_state,
            reason_kind=self.reason_kind,
            reason=self.reason,
        )

    def say(self, kind: str, text: str) -> None:
        self.reason_kind, self.reason = kind, text
        self.update_status()

    # -- run state: this screen is its only writer ------------------------------------------

    def enter_state(self, state: RunState | str, kind: str = "", reason: str = "") -> None:
        """Where the run stands now (and why, when `reason` is given): the one place that sets it."""
        self.run_state = RunState(state)
        if reason:
            self.reason_kind, self.reason = kind or "info", reason
        self.update_status()  # the state is on the status line

    def on_run_state_changed(self, message: RunStateChanged) -> None:
        """A helper (the LLM control) says where the run stands; the screen sets it."""
        message.stop()
        self.enter_state(message.state, message.kind, message.reason)

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
            has_agent_view=bool(self.engine.view_title))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keys that cannot act are greyed in the footer (see `run_state.action_enabled`)."""
        return True if action_enabled(action, self.run_state) else None

    # -- engine messages (only this screen's driver reaches here) ------------------------------

    def on_engine_driver_started(self, message: EngineDriver.Started) -> None:
        if self.run_state not in (RunState.STARTING, RunState.REVIEWING):  # a fast proposal may come first
            self.enter_state(RunState.RUNNING, "info", f"{message.command}…")

    def on_engine_driver_events(self, message: EngineDriver.Events) -> None:
        self.apply_events(message.events)

    def apply_events(self, events: Iterable[ev.Event]) -> None:
        events = tuple(events)
        self.tree_view.apply(events)
        self.env_log.apply(events)
        self.variables.apply(events)
        for event in events:
            if isinstance(event, ev.ActionSent):
                self.running_line = (event.node_id or "", event.line) if event.line else None
            elif isinstance(event, (ev.NodeStarted, ev.NodeCompleted, ev.NodeError, ev.StubFound, ev.RunFinished)):
                self.running_line = None
            if isinstance(event, ev.ExpansionRequested):
                node = self.engine.tree.nodes.get(event.node_id or "")
                code = node.code.split("\n", 1)[0] if node else ""
                title = (
                    f"Prompt for {event.node_id} `{code}` — {event.purpose}, attempt {event.attempt}, "
                    f"{len(event.prompt):,} chars"
                )
                self.pending_prompt = (title, event.prompt)
                self.show_prompt(title, event.prompt)
            elif isinstance(event, (ev.ExpansionReceived, ev.RunFinished)):
                self.pending_prompt = None
            if isinstance(event, ev.ExpansionReceived) and self.submitted_node is not None:
                text = self.drafts.pop(self.submitted_node, None)
                if text is not None:
                    self.accepted_answers[self.submitted_node] = text
                self.submitted_node = None
            elif isinstance(event, ev.ExpansionRejected):
                self.submitted_node = None  # refused: its text stays the node's draft, to be corrected
        if self.run_state is RunState.RUNNING:
            current = self.tree_view.item(self.tree_view.current_id or "")
            if current is not None:
                self.tree_view.call_after_refresh(self.tree_view.scroll_to_node, current, False)
        self.update_status()

    async def on_engine_driver_stopped(self, message: EngineDriver.Stopped) -> None:
        if not self.is_attached:  # the app is closing: the panes are going
            return
        self.show_model_clock()  # a stopped run has nobody answering: the clock goes now, not at its next tick
        stop = message.result
        debugger = self.debugger
        if debugger.done:
            self.enter_state(RunState.DONE)
        elif debugger.awaiting_human:
            self.enter_state(RunState.AWAITING)
        else:
            self.enter_state(RunState.PAUSED)
        self.tree_view.follow()
        selected = self.tree_view.cursor_node
        if selected is not None:  # its status or output may have changed under the cursor
            node = self.engine.tree.nodes.get(selected.data or "")
            self.query_one(NodeDetail).show(node, self.line_of(node))
        if stop.reason.breakpoint is not None or self._breakpoints_dirty:
            self.refresh_breakpoints(highlight=stop.reason.breakpoint)
            self._breakpoints_dirty = stop.reason.breakpoint is not None
        self.say(stop.reason.kind, stop.reason.text)
        self.refresh_agent_view()
        self.llm_control.after_stop(stop)
        try:
            summaries = await self.engine.runner.variables()
        except Exception:  # noqa: BLE001 - the namespace may be mid-change in a thread
            summaries = None
        if not self.is_attached:  # this run was replaced (or the app closed) while we waited
            return
        if summaries is not None:
            self.variables.show(summaries)
        self.show_env_choices()
        self.evaluate_watches()
        if debugger.awaiting_human and isinstance(stop.event, ev.ExpansionRequested):
            await self.open_editor(stop.event, stop.reason.text if "refused" in stop.reason.text else "")
        else:
            message_text = "The run is over." if debugger.done else "No expansion is awaited."
            self.editor.close(message_text)
            if self.focused is self.editor.editor:
                self.tree_view.focus()  # step keys work again at once
        self.stops += 1

    def show_env_choices(self) -> None:
        """The actions the environment accepts now, when it can say (`env.choices()`, e.g. WebShop's
        clickables): read at a stop, when no step is running."""
        env = self.engine.env
        try:
            shown = list(env.choices()) if isinstance(env, HasChoices) else []
        except Exception:  # noqa: BLE001 - an environment that cannot say shows nothing
            shown = []
        self.variables.show_choices(shown)

    async def open_editor(self, event: ev.ExpansionRequested, note: str, force: bool = False) -> None:
        node = self.engine.tree.nodes[event.node_id or ""]
        try:
            known = await self.engine.runner.names()
        except Exception:  # noqa: BLE001
            known = frozenset()
        if event.purpose == "repair" and node.id not in self.drafts and node.id in self.accepted_answers:
            self.drafts[node.id] = self.accepted_answers[node.id]
        self.editor.open(node.id, node.code, known, attempt=event.attempt, purpose=event.purpose, note=note,
                         role=event.role)
        self.focus_editor(f"Type the expansion of {node.id}", force)

    def on_engine_driver_failed(self, message: EngineDriver.Failed) -> None:
        self.enter_state(RunState.DONE if self.debugger.done else RunState.PAUSED, "error", message.error)
        self.notify(message.error, title="Engine error", severity="error")
        self.stops += 1

    def line_of(self, node) -> int:
        """The line of `node`'s code that is running (waiting in run()), or 0."""
        if node is None or self.running_line is None or self.running_line[0] != node.id:
            return 0
        return self.running_line[1]

    # -- tree selection -----------------------------------------------------------------------

    @on(Tree.NodeHighlighted, "#code-tree")
    def show_node(self, event: Tree.NodeHighlighted) -> None:
        node = self.engine.tree.nodes.get(event.node.data or "")
        for detail in self.query(NodeDetail):
            detail.show(node, self.line_of(node))
        if node is None:
            return
        if node.expansions:
            last = node.expansions[-1]
            state = "accepted" if last.accepted else f"rejected: {last.reason}"
            title = (f"Prompt of {node.id} `{node.code.split(chr(10), 1)[0]}` — {last.purpose}, {state}, "
                     f"{len(last.prompt):,} chars")
            self.show_prompt(title, last.prompt)
        elif self.pending_prompt is not None:
            self.show_prompt(*self.pending_prompt)

    # -- actions ------------------------------------------------------------------------------

    def action_run_to_here(self) -> None:
        item = self.tree_view.cursor_node
        node = self.engine.tree.nodes.get(item.data or "") if item is not None else None
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
            self.notify("Type the expansion in the editor (e) and press ctrl+s.", title="Awaiting your expansion")
            self.show_editor()
            return
        if self.llm_control.reviewing is not None:
            self.notify("e edits it, ctrl+s accepts, ctrl+g regenerates, ctrl+o rejects.", title="Review the proposal")
            self.show_editor()
            return
        if self.driver.busy:
            self.notify("The engine is running: p pauses it.", severity="warning")
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

    def on_expansion_editor_submitted(self, message: ExpansionEditor.Submitted) -> None:
        self.submitted_node = message.node_id
        if self.llm_control.take_submission(message.text):  # a reviewed proposal
            return
        if not self.debugger.awaiting_human or self.driver.busy:
            self.notify("No expansion is awaited.", severity="warning")
            return
        self.editor.close(f"Submitted the expansion of {message.node_id}…")
        self.command_at = time.monotonic()
        self.driver.submit(message.text)

    def action_show_tab(self, tab: str) -> None:
        if tab == "tab-agent" and not self.query(AgentViewPane):
            self.notify(f"{self.engine.display_name} has no agent view: its tree is its state.", severity="warning")
            return
        self.query_one(TabbedContent).active = tab
        if tab == "tab-expand" and self.editor.is_open:
            self.editor.editor.focus()
        elif tab == "tab-breakpoints":
            for table in self.query("#bp-table"):
                table.focus()
        elif tab == "tab-prompt":
            for area in self.query("#prompt-text"):
                area.focus()
        elif tab == "tab-agent":
            self.query_one(AgentViewPane).focus()

    async def action_workspace(self) -> None:
        from recode_tui.console.workspace.launch import open_workspace

        await open_workspace(self)

    def action_search(self) -> None:
        self.pane_search.open()

    def on_search_bar_query(self, message: SearchBar.Query) -> None:
        self.pane_search.query(message)

    def on_search_bar_step(self, message: SearchBar.Step) -> None:
        self.pane_search.step(message)

    def on_search_bar_closed(self, message: SearchBar.Closed) -> None:
        self.pane_search.close(message)

    def action_switch_llm(self) -> None:
        self.model_keys.switch_llm()

    def action_type_answer(self) -> None:
        self.model_keys.type_answer()

    def action_review(self, verb: str) -> None:
        self.model_keys.review(verb)

    def on_review_bar_decided(self, message: ReviewBar.Decided) -> None:
        self.model_keys.decided(message)

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

    def action_follow(self) -> None:
        self.tree_view.follow(force=True)
        self.tree_view.focus()

    def action_toggle_breakpoint(self) -> None:
        item = self.tree_view.cursor_node
        node = self.engine.tree.nodes.get(item.data or "") if item is not None else None
        if node is None:
            return
        name = stub_name_of(node.code)
        if name is None:
            self.notify(f"{node.id} calls no placeholder: nothing to break on.", severity="warning")
            return
        self._toggle_breakpoint(BreakpointKind.STUB_NAME, name)

    def _toggle_breakpoint(self, kind: BreakpointKind, value: str) -> None:
        """Add the breakpoint, or remove it when it is there (`b` on a node or on a watch)."""
        existing = self.debugger.find_breakpoint(kind, value)
        if existing is not None:
            self.debugger.remove_breakpoint(existing.number)
            self.notify(f"breakpoint {existing.number} removed: {existing.describe()}")
        else:
            bp = self.debugger.add_breakpoint(kind, value)
            self.notify(f"breakpoint {bp.number}: {bp.describe()}")
        self.refresh_breakpoints()
        self.save_debug_settings()

    def on_breakpoints_pane_changed(self, message: BreakpointsPane.Changed) -> None:
        self._mark_breaking_watches()  # the pane has redrawn itself
        self.save_debug_settings()

    def save_debug_settings(self) -> None:
        """Keep breakpoints and watches with the session, so a resume brings them back."""
        control = self.session_control
        if control is not None:
            control.save_settings()

    def action_watch(self) -> None:
        from recode_tui.console.screens.watch_prompt import WatchPrompt

        def add(expression: str | None) -> None:
            if expression and not self.variables.watches.add(expression):
                self.notify(f"`{expression}` is already watched.", severity="warning")

        self.app.push_screen(WatchPrompt(), add)

    def action_shell(self) -> None:
        from recode_tui.console.screens.shell_prompt import ShellPrompt

        if self.debugger.done:
            self.notify("The run is over: nothing to change.", severity="warning")
            return
        if self.driver.busy:
            self.notify("The engine is running: pause it (p) first.", severity="warning")
            return
        self.app.push_screen(ShellPrompt(self.run_line))

    async def run_line(self, code: str) -> tuple[bool, str]:
        """Run the person's line at this stop; (ran, the value or the one-line reason)."""
        control = self.session_control
        if self.driver.busy or self.debugger.done or (control and control.busy):
            return False, "not at a stop: pause the run (p) first"
        try:
            event = await self.engine.run_statement(code)
        except Exception as exc:  # noqa: BLE001 - refused or raising: nothing changed
            text = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            self.say("error", f"! {code}: {text}")
            return False, text
        self.apply_events([event])
        self.evaluate_watches(new_stop=False)
        changed = ", ".join(c.name for c in event.changes)
        text = event.value or (f"changed {changed}" if changed else "done (nothing changed)")
        self.say("info", describe_event(event))
        return True, text

    def on_watch_list_break_on_change(self, message: WatchList.BreakOnChange) -> None:
        self._toggle_breakpoint(BreakpointKind.VALUE_CHANGED, message.expression)

    def on_watch_list_changed(self, message: WatchList.Changed) -> None:
        self.console.set_watches(message.expressions)
        self.save_debug_settings()
        self.evaluate_watches(new_stop=False)

    def evaluate_watches(self, new_stop: bool = True) -> None:
        """Recompute the watches, unless code is running (the next stop will)."""
        watches = self.variables.watches
        if watches.expressions and not self.driver.busy:
            watches.evaluate_all(self.engine.runner.evaluate, new_stop)
