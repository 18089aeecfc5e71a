"""Breakpoints, watches and the shell line: what the person sets up to look into a run at its stops.

`StopTools` is a controller the debug screen holds (`b`, `w`, `!`, the breakpoint
list's and the watch list's messages). It is given the run's screen as
`hosts.RunScreen`; the set-up it changes lives in the run's `Debugger` and the
app's watch list, and is kept with the session (`debug.json`) at every change.
What the lists show it asks the screen for (run/requests.py).
"""

from __future__ import annotations

from agent.runtime.breakpoints import BreakpointKind
from agent.runtime.debugger import Stop, describe_event
from recode_tui.console.run.hosts import RunScreen
from recode_tui.console.run.requests import AddWatch, EvaluateWatches, MarkWatches, RefreshBreakpoints, ShowEvents


class StopTools:
    """Breakpoints, watches and the shell line of one run."""

    def __init__(self, run: RunScreen) -> None:
        self.run = run
        self.breakpoints_dirty = False  # the list shows a highlight or stale hit counts

    # -- breakpoints ----------------------------------------------------------------------

    def toggle_on_selected(self) -> None:
        """`b`: a breakpoint on the selected node's stub name, or off again."""
        run = self.run
        node = run.selected_node()
        if node is None:
            return
        name = run.agent.placeholder_of(node.code)
        if name is None:
            run.notify(f"{node.id} calls no placeholder: nothing to break on.", severity="warning")
            return
        self.toggle(BreakpointKind.STUB_NAME, name)

    def toggle(self, kind: BreakpointKind, value: str) -> None:
        """Add the breakpoint, or remove it when it is there (`b` on a node or on a watch)."""
        run, debugger = self.run, self.run.debugger
        existing = debugger.find_breakpoint(kind, value)
        if existing is not None:
            debugger.remove_breakpoint(existing.number)
            run.notify(f"breakpoint {existing.number} removed: {existing.describe()}")
        else:
            bp = debugger.add_breakpoint(kind, value)
            run.notify(f"breakpoint {bp.number}: {bp.describe()}")
        self.refresh_breakpoints()
        self.save_settings()

    def pane_changed(self) -> None:
        """The breakpoint list changed one (and has redrawn itself)."""
        self.mark_breaking_watches()
        self.save_settings()

    def refresh_breakpoints(self, highlight: int | None = None) -> None:
        self.run.post_message(RefreshBreakpoints(highlight))
        self.mark_breaking_watches()

    def after_stop(self, stop: Stop) -> None:
        """Highlight the breakpoint a stop hit; clear the highlight at the next stop."""
        if stop.reason.breakpoint is not None or self.breakpoints_dirty:
            self.refresh_breakpoints(highlight=stop.reason.breakpoint)
            self.breakpoints_dirty = stop.reason.breakpoint is not None

    def mark_breaking_watches(self) -> None:
        self.run.post_message(MarkWatches(frozenset(
            bp.value for bp in self.run.debugger.breakpoints
            if bp.kind is BreakpointKind.VALUE_CHANGED and bp.enabled
        )))

    def save_settings(self) -> None:
        """Keep breakpoints and watches with the session, so a resume brings them back."""
        control = self.run.session_control
        if control is not None:
            control.save_settings()

    # -- watches --------------------------------------------------------------------------

    def add_watch(self) -> None:
        """`w`: ask for an expression and watch it."""
        from recode_tui.console.screens.watch_prompt import WatchPrompt

        def add(expression: str | None) -> None:
            if expression:
                self.run.post_message(AddWatch(expression))

        self.run.app.push_screen(WatchPrompt(), add)

    def watches_changed(self, expressions: tuple[str, ...]) -> None:
        self.run.console.set_watches(expressions)
        self.save_settings()
        self.evaluate_watches(new_stop=False)

    def evaluate_watches(self, new_stop: bool = True) -> None:
        """Recompute the watches, unless code is running (the next stop will)."""
        self.run.post_message(EvaluateWatches(new_stop))

    # -- the shell line ---------------------------------------------------------------------

    def open_shell(self) -> None:
        """`!`: a Python line in the run's namespace, at a stop."""
        from recode_tui.console.screens.shell_prompt import ShellPrompt

        run = self.run
        if run.debugger.done:
            run.notify("The run is over: nothing to change.", severity="warning")
            return
        if run.driver.busy:
            run.notify("The agent is running: pause it (p) first.", severity="warning")
            return
        run.app.push_screen(ShellPrompt(self.run_line))

    async def run_line(self, code: str) -> tuple[bool, str]:
        """Run the person's line at this stop; (ran, the value or the one-line reason)."""
        run = self.run
        control = run.session_control
        if run.driver.busy or run.debugger.done or (control and control.busy):
            return False, "not at a stop: pause the run (p) first"
        try:
            event = await run.agent.host.run_statement(code)
        except Exception as exc:  # noqa: BLE001 - refused or raising: nothing changed
            text = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            run.say("error", f"! {code}: {text}")
            return False, text
        run.post_message(ShowEvents((event,)))
        self.evaluate_watches(new_stop=False)
        changed = ", ".join(c.name for c in event.changes)
        text = event.value or (f"changed {changed}" if changed else "done (nothing changed)")
        run.say("info", describe_event(event))
        return True, text
