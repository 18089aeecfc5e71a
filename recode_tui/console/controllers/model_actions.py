"""The console's keys for models and the sandbox: switch the LLM, type one answer,
review a proposal, interrupt a running node.

`ModelKeys` is a controller the debug screen holds. What it changes is the LLM
control's (`agent.llm`, the review) and the runner's; it is given the run's
screen (as `hosts.RunScreen`), its `LLMControl` and its `RunEvents` (which opens
the editor on an awaited answer), and asks the screen for the rest with the
requests of run/requests.py. Every binding has an id for user keymaps.
"""

from __future__ import annotations

from textual.binding import Binding

from recode_tui.console.controllers.run_events import RunEvents
from recode_tui.console.run.hosts import Interruptible, RunScreen
from recode_tui.console.run.requests import CloseEditor, FocusEditor, StatusChanged, SubmitEditor
from recode_tui.console.controllers.llm_control import LLMControl, llm_choices
from recode_tui.console.run.run_state import RunState, RunStateChanged

MODEL_BINDINGS = [
    Binding("L", "switch_llm", "LLM", id="llm.switch", tooltip="Switch the LLM of the paused run"),
    Binding("t", "type_answer", "Type it", id="llm.type", show=False,
            tooltip="Type the awaited expansion yourself; the LLM answers again after it"),
    Binding("ctrl+g", "review('regenerate')", "Regenerate", id="review.regenerate", show=False),
    Binding("ctrl+o", "review('reject')", "Reject", id="review.reject", show=False),
    Binding("i", "interrupt", "Interrupt", id="run.interrupt",
            tooltip="Stop the running node (interrupt, then kill and restore)"),
]


class ModelKeys:
    """`L`, `t`, the review keys and `i` of one run."""

    def __init__(self, run: RunScreen, control: LLMControl, run_events: RunEvents) -> None:
        self.run = run
        self.control = control
        self.run_events = run_events

    # -- switching the LLM -------------------------------------------------------------

    def switch_llm(self) -> None:
        from recode_tui.console.screens.llm_picker import LLMPicker

        run = self.run
        if run.driver.busy:
            run.notify("Pause the run first (p): the LLM is switched between steps.", severity="warning")
            return
        current = run.agent.host.llm.name
        choices = llm_choices(current, self.control.profiles_path)
        run.app.push_screen(LLMPicker(choices, current), self.switch_to)

    async def switch_to(self, spec: str | None) -> None:
        from recode_tui.setup.usage import UsageError

        if not spec:
            return
        try:
            name = self.control.switch(spec)
        except UsageError as exc:
            self.run.notify(str(exc), title="Cannot switch the LLM", severity="error")
            return
        self.run.notify(f"the LLM is now {name}")
        await self.after_switch()

    async def after_switch(self) -> None:
        """Open or close the editor to match who answers the awaited expansion."""
        run, debugger = self.run, self.run.debugger
        if debugger.done:
            return
        if debugger.awaiting_human:
            request = self.control.request_event()
            if request is not None:
                await self.run_events.open_editor(request, "", force=True)
                after = self.control.restore_after
                then = f"; then {after.name} answers again" if after is not None else ""
                # posted after the editor's request, so the state changes once the editor is open
                run.post_message(RunStateChanged(RunState.AWAITING, "human",
                                                 f"awaiting your answer for {request.node_id}: ctrl+s submits{then}"))
        else:
            run.post_message(CloseEditor("No expansion is awaited: c asks the LLM."))
            run.post_message(RunStateChanged(RunState.PAUSED))
        run.post_message(StatusChanged())

    def type_answer(self) -> None:
        run = self.run
        if run.driver.busy or run.debugger.done or self.control.request_event() is None:
            run.notify("t types the expansion the run is paused at (after an LLM failure or at a stub).",
                       severity="warning")
            return
        if not self.control.type_once():
            run.post_message(FocusEditor("Type the answer", force=True))
            return
        run.call_later(self.after_switch)

    # -- review ---------------------------------------------------------------------

    def review(self, verb: str) -> None:
        control = self.control
        done = control.regenerate() if verb == "regenerate" else control.reject()
        if not done:
            self.run.notify("No proposal is awaiting review.", severity="warning")

    def decided(self, verb: str) -> None:
        """A button of the review bar: accept submits the editor's text, the others are the keys'."""
        if verb == "accept":
            self.run.post_message(SubmitEditor())
        else:
            self.review(verb)

    # -- the sandbox ------------------------------------------------------------------

    def interrupt(self) -> None:
        run = self.run
        runner = run.agent.runner
        if run.debugger.done or not isinstance(runner, Interruptible):
            run.notify("Nothing to interrupt.", severity="warning")
            return
        runner.interrupt()
        run.say("paused", "interrupting the running node (it is killed and restored if it does not stop)…")


__all__ = ["MODEL_BINDINGS", "ModelKeys"]
