"""The debug screen's keys, in footer order, each with the id user keymaps, the help and the palette use.

The keys of each controller are defined beside it (`MODEL_BINDINGS`, `SESSION_BINDINGS`,
`SEARCH_BINDINGS`, `VIEW_BINDINGS`); this list puts them in the order the footer shows.
"""

from __future__ import annotations

from textual.binding import Binding, BindingType

from recode_tui.console.controllers.model_actions import MODEL_BINDINGS
from recode_tui.console.controllers.search_actions import SEARCH_BINDINGS
from recode_tui.console.controllers.session_actions import SESSION_BINDINGS
from recode_tui.console.controllers.view_actions import VIEW_BINDINGS

# The console's keys, in footer order. Help and quit are the app's actions, listed here
# so the footer keeps them in place; the app binds them too, for the screens above this one.
DEBUG_BINDINGS: list[BindingType] = [
    # Help first: at 80 columns the footer cannot show every key, and this one lists them all.
    Binding("question_mark,f1", "app.help", "Help", id="app.help"),
    Binding("n", "step('next')", "Next", id="step.next", tooltip="Run to the next agent event"),
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
    Binding("O", "show_tab('tab-observation')", "Observation", id="view.observation",
            tooltip="The task and the observation at hand, whole: wrapped, scrolled (z gives it the screen)"),
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
