"""The console's keys for models and the sandbox: switch the LLM, type one answer,
review a proposal, interrupt a running node.

A mixin of `DebugScreen`, kept apart so the screen module stays about layout
and the engine's messages. Every binding has an id for user keymaps.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import TabbedContent

from recode_tui.console.llm_control import LLMControl, is_human, llm_choices
from recode_tui.console.run_state import RunState
from recode_tui.console.screen_host import DebugScreenHost
from recode_tui.console.widgets.review_panel import ReviewBar

MODEL_BINDINGS = [
    Binding("L", "switch_llm", "LLM", id="llm.switch", tooltip="Switch the LLM of the paused run"),
    Binding("t", "type_answer", "Type it", id="llm.type", show=False,
            tooltip="Type the awaited expansion yourself; the LLM answers again after it"),
    Binding("ctrl+g", "review('regenerate')", "Regenerate", id="review.regenerate", show=False),
    Binding("ctrl+o", "review('reject')", "Reject", id="review.reject", show=False),
    Binding("i", "interrupt", "Interrupt", id="run.interrupt",
            tooltip="Stop the running node (interrupt, then kill and restore)"),
]


class ModelActions(DebugScreenHost):
    """Actions over `self.llm_control`, `self.engine`, `self.driver` and `self.debugger`."""

    @property
    def llm_control(self) -> LLMControl:
        return self.query_one(LLMControl)

    @property
    def review_bar(self) -> ReviewBar:
        return self.query_one(ReviewBar)

    def show_editor(self) -> None:
        """Show the editor tab; the focus stays (it moves only on `e` or a key asking for the editor)."""
        self.query_one(TabbedContent).active = "tab-expand"

    # -- switching the LLM -------------------------------------------------------------

    def action_switch_llm(self) -> None:
        from recode_tui.console.screens.llm_picker import LLMPicker

        if self.driver.busy:
            self.notify("Pause the run first (p): the LLM is switched between steps.", severity="warning")
            return
        current = getattr(self.engine.llm, "name", "?")
        choices = llm_choices(current, self.llm_control.profiles_path)
        self.app.push_screen(LLMPicker(choices, current), self._switch_to)

    async def _switch_to(self, spec: str | None) -> None:
        from recode_tui.setup import UsageError

        if not spec:
            return
        try:
            name = self.llm_control.switch(spec)
        except UsageError as exc:
            self.notify(str(exc), title="Cannot switch the LLM", severity="error")
            return
        self.notify(f"the LLM is now {name}")
        await self._after_switch()

    async def _after_switch(self) -> None:
        """Open or close the editor to match who answers the awaited expansion."""
        debugger = self.debugger
        if debugger.done:
            return
        if debugger.awaiting_human:
            request = self.llm_control.request_event()
            if request is not None:
                await self._open_editor(request, "", force=True)
                after = self.llm_control.restore_after
                then = f"; then {after.name} answers again" if after is not None else ""
                self.enter_state(RunState.AWAITING, "human",
                                 f"awaiting your answer for {request.node_id}: ctrl+s submits{then}")
        else:
            self.editor.close("No expansion is awaited: c asks the LLM.")
            self.enter_state(RunState.PAUSED)
        self.update_status()

    def action_type_answer(self) -> None:
        debugger = self.debugger
        if self.driver.busy or debugger.done or self.llm_control.request_event() is None:
            self.notify("t types the expansion the run is paused at (after an LLM failure or at a stub).",
                        severity="warning")
            return
        if not self.llm_control.type_once():
            self.focus_editor("Type the answer", force=True)
            return
        self.call_later(self._after_switch)

    def on_llmcontrol_switched(self, message: LLMControl.Switched) -> None:
        self.update_status()

    # -- review ---------------------------------------------------------------------

    def action_review(self, verb: str) -> None:
        control = self.llm_control
        done = control.regenerate() if verb == "regenerate" else control.reject()
        if not done:
            self.notify("No proposal is awaiting review.", severity="warning")

    def on_review_bar_decided(self, message: ReviewBar.Decided) -> None:
        if message.verb == "accept":
            self.editor.submit()
        else:
            self.action_review(message.verb)

    # -- the sandbox ------------------------------------------------------------------

    def action_interrupt(self) -> None:
        interrupt = getattr(self.engine.runner, "interrupt", None)
        if self.debugger.done or not callable(interrupt):
            self.notify("Nothing to interrupt.", severity="warning")
            return
        interrupt()
        self.say("paused", "interrupting the running node (it is killed and restored if it does not stop)…")


__all__ = ["MODEL_BINDINGS", "ModelActions", "is_human"]
