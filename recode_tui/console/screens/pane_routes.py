"""Where a run's screen sends what its controllers ask for: each request (run/requests.py) to its pane.

`PaneRoutes` is the part of `DebugScreen` that knows the panes: it finds each one by
its class and hands it the request, so no controller, and no widget, holds another
widget. The panes themselves are composed by `DebugScreen`.
"""

from __future__ import annotations

from typing import Iterable

from textual.widget import AwaitMount
from textual.widgets import TabbedContent, TabPane

from agent.runtime import events as ev
from recode_tui.console.controllers.llm_control import LLMControl
from recode_tui.console.controllers.run_events import RunEvents
from recode_tui.console.run.hosts import RunScreen
from recode_tui.console.run.requests import (
    AddWatch,
    CloseEditor,
    EditExpansion,
    EvaluateWatches,
    FocusEditor,
    HandOver,
    LoadSkeleton,
    MarkWatches,
    RefreshAgentView,
    RefreshBreakpoints,
    ShowEditor,
    ShowEvents,
    ShowNode,
    ShowPrompt,
    SelectNode,
    ShowReview,
    ShowSession,
    ShowStop,
    ShowVariables,
    StatusChanged,
    StopShown,
    SubmitEditor,
)
from recode_tui.console.run.run_state import RunState
from recode_tui.console.run.run_status import agent_figures, model_clock
from recode_tui.console.widgets.agent_view import AgentViewPane
from recode_tui.console.widgets.breakpoints import BreakpointsPane
from recode_tui.console.widgets.code_tree import CodeTreeView
from recode_tui.console.widgets.env_log import EnvLog
from recode_tui.console.widgets.answer_editor import AnswerEditor, Proposal
from recode_tui.console.widgets.node_detail import NodeDetail
from recode_tui.console.widgets.observation_view import ObservationView
from recode_tui.console.widgets.prompt_view import PromptView
from recode_tui.console.widgets.review_panel import ReviewBar
from recode_tui.console.widgets.search_bar import SearchBar
from recode_tui.console.widgets.status_bar import StatusBar
from recode_tui.console.widgets.variables import VariablesPane


class PaneRoutes(RunScreen):
    """The panes of one run's screen, and the requests routed to them."""

    run_events: RunEvents  # the bookkeeping of the answers on their way (made by `DebugScreen`)
    _clock_shown = ""  # what the status line's model clock says now
    command_at: float  # when the last agent command was given (monotonic)
    peek: ObservationView | None = None  # F2's view of the observation, once made (`DebugScreen.make_peek`)

    # -- the panes, found by their class ---------------------------------------------------

    @property
    def tree_view(self) -> CodeTreeView:
        return self.query_one(CodeTreeView)

    @property
    def editor(self) -> AnswerEditor:
        return self.query_one(AnswerEditor)

    @property
    def editing(self) -> str | None:
        editor = next(iter(self.query(AnswerEditor)), None)  # none while the screen is put together or torn down
        return editor.node_id if editor is not None else None

    @property
    def env_log(self) -> EnvLog:
        return self.query_one(EnvLog)

    @property
    def observation_view(self) -> ObservationView:
        return self.query_one("#observation", ObservationView)

    @property
    def variables(self) -> VariablesPane:
        return self.query_one(VariablesPane)

    @property
    def llm_control(self) -> LLMControl:
        return self.query_one(LLMControl)

    @property
    def review_bar(self) -> ReviewBar:
        return self.query_one(ReviewBar)

    @property
    def search_bar(self) -> SearchBar:
        return self.query_one(SearchBar)

    @property
    def default_searchable(self) -> EnvLog:
        """What `/` searches when the focus is in no searchable pane: the environment log."""
        return self.env_log

    # -- what the agent did -----------------------------------------------------------------

    def apply_events(self, events: Iterable[ev.Event]) -> None:
        """A batch of events into the tree, the log, the observation and the variables."""
        events = tuple(events)
        # query_one is cached until the screen's widgets change; query() matches every widget each time
        peek = (self.peek,) if self.peek is not None else ()  # made at the first F2
        for pane in (self.tree_view, self.env_log, *peek, self.observation_view, self.variables):
            pane.apply(events)
        self.run_events.note(events)
        if self.run_state is RunState.RUNNING:  # the tree keeps the node being run in view
            tree = self.tree_view
            current = tree.item(tree.current_id or "")
            if current is not None:
                tree.call_after_refresh(tree.scroll_to_node, current, False)
        self.update_status()

    def on_show_events(self, message: ShowEvents) -> None:
        self.apply_events(message.events)

    def on_show_stop(self, message: ShowStop) -> None:
        self.show_model_clock()  # a stopped run has nobody answering: the clock goes now, not at its next tick
        self.tree_view.follow()
        node = self.selected_node()  # its status or output may have changed under the cursor
        if node is not None:
            self.query_one(NodeDetail).show(node, self.run_events.line_of(node))

    def on_show_node(self, message: ShowNode) -> None:
        detail = self.query_one_optional(NodeDetail)
        if detail is not None:
            detail.show(message.node, message.line)

    def on_show_variables(self, message: ShowVariables) -> None:
        if message.summaries is not None:
            self.variables.show(message.summaries)
        self.variables.show_choices(message.choices)

    def on_refresh_agent_view(self, message: RefreshAgentView) -> None:
        """Redraw the agent's tab from `agent.view()`: at stops only, never per event."""
        if not self.agent.traits.view_title:
            return  # an agent without a view of its own has no tab for it (ReCode: its tree is its state)
        pane = self.query_one_optional(AgentViewPane)
        if pane is not None:
            pane.show(self.agent.view())

    def on_select_node(self, message: SelectNode) -> None:
        self.tree_view.show_node(message.node_id)

    def on_stop_shown(self, message: StopShown) -> None:
        self.first_stop_shown.set()
        self.stop_shown.publish(self.run_state)

    # -- the status line and the prompt --------------------------------------------------------

    def update_status(self) -> None:
        self.query_one(StatusBar).show(episode=self.console.episode, **agent_figures(self.agent),
                                       state=self.run_state, reason_kind=self.reason_kind, reason=self.reason,
                                       short_reason=self.short_reason)

    def on_status_changed(self, message: StatusChanged) -> None:
        self.update_status()

    def on_show_session(self, message: ShowSession) -> None:
        for bar in self.query(StatusBar):
            bar.set_session(message.name, how=message.how, failed=message.failed, opening=message.opening)

    def show_model_clock(self) -> None:
        """While a model (not the person) answers, say so on the status line with the time so far."""
        control = self.llm_control
        text = model_clock(self.agent, self.debugger.human, control.reviewing is not None, control.asked_again_at)
        if text == self._clock_shown:  # most ticks: nobody answering, nothing to redraw or look up
            return
        self._clock_shown = text
        for bar in self.query(StatusBar):
            bar.set_activity(text)

    def show_prompt(self, title: str, prompt: str) -> None:
        """The prompt the Prompt tab shows: put in its pane now if the tab is on show, else when it
        next shows (`refresh_prompt_view`): a run a person answers asks at each stub, and a prompt is
        long (loading it into the text area cost more than the rest of the stop's panes)."""
        self.shown_prompt = (title, prompt)
        if self.query_one(TabbedContent).active == "tab-prompt":
            self.refresh_prompt_view()

    def refresh_prompt_view(self) -> AwaitMount | None:
        """The prompt's pane shows `shown_prompt`: made now if it is not yet (it shows it as it mounts)."""
        view = self.query_one_optional(PromptView)
        if view is None:
            return self.make_prompt_view()
        if self.shown_prompt is not None:
            view.show(*self.shown_prompt)
        return None

    def make_prompt_view(self) -> AwaitMount | None:
        """The prompt's pane, made at the first show of its tab: a run a person answers starts on the
        observation, and most are answered without a look at the prompt (the pane and its text area cost
        a twelfth of a start). A model's run starts on the prompt's tab: its pane is there from the start
        (behind a `Lazy`)."""
        tab = self.query_one_optional("#tab-prompt", TabPane)
        if tab is None or tab.children:  # made already, or still behind its `Lazy`
            return None
        return tab.mount(PromptView(id="prompt"))

    def on_show_prompt(self, message: ShowPrompt) -> None:
        self.show_prompt(message.title, message.prompt)

    # -- the editor and the review bar -----------------------------------------------------------

    def show_editor(self) -> None:
        """Show the editor tab; the focus stays (it moves only on `e` or a key asking for the editor)."""
        self.query_one(TabbedContent).active = "tab-expand"

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

    def on_edit_expansion(self, message: EditExpansion) -> None:
        proposal = Proposal(message.proposed, message.cut_at) if message.proposed is not None else None
        self.editor.open(message.node_id, message.code, message.known, attempt=message.attempt,
                         purpose=message.purpose, note=message.note, role=message.role, proposal=proposal)
        if message.focus_why:
            self.focus_editor(message.focus_why, message.force)

    def on_focus_editor(self, message: FocusEditor) -> None:
        self.focus_editor(message.why, message.force)

    def on_show_editor(self, message: ShowEditor) -> None:
        self.show_editor()

    def on_close_editor(self, message: CloseEditor) -> None:
        editor = self.editor
        editor.close(message.note)
        if message.refocus and self.focused is editor.editor:
            self.tree_view.focus()  # step keys work again at once

    def on_submit_editor(self, message: SubmitEditor) -> None:
        self.editor.submit()

    def on_load_skeleton(self, message: LoadSkeleton) -> None:
        self.editor.load_skeleton()

    async def on_show_review(self, message: ShowReview) -> None:
        bar = self.query_one_optional(ReviewBar)
        if bar is None:  # made at the first proposal: most runs review none (a tenth of a boot's CPU)
            if message.state == "hidden":
                return
            bar = ReviewBar(id="review-bar")
            await self.query_one("#tab-expand").mount(bar)
        if message.state == "proposal":
            bar.show_proposal(message.model, message.round)
        elif message.state == "rejected":
            bar.show_rejected()
        else:
            bar.hide()

    def on_hand_over(self, message: HandOver) -> None:
        self.llm_control.hand_over_after_answer(message.llm)

    # -- breakpoints and watches --------------------------------------------------------------

    def on_refresh_breakpoints(self, message: RefreshBreakpoints) -> None:
        for pane in self.query(BreakpointsPane):  # none until its tab first shows
            pane.refresh_rows(highlight=message.highlight)

    def on_mark_watches(self, message: MarkWatches) -> None:
        self.variables.watches.show_breaking(set(message.expressions))

    def on_add_watch(self, message: AddWatch) -> None:
        if not self.variables.watches.add(message.expression):
            self.notify(f"`{message.expression}` is already watched.", severity="warning")

    def on_evaluate_watches(self, message: EvaluateWatches) -> None:
        watches = self.variables.watches
        if watches.expressions and not self.driver.busy:
            watches.evaluate_all(self.agent.runner.evaluate, message.new_stop)


