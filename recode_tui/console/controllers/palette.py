"""The console's own actions in the command palette (ctrl+p), next to Textual's.

Built from the bindings, so a command exists exactly when its key does, and its
help line names the key (after a user keymap) to learn it for next time.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Iterable

from textual.app import SystemCommand
from textual.binding import Binding, BindingType

if TYPE_CHECKING:
    from textual.app import App
    from textual.dom import DOMNode

# binding id -> the palette's title (what a person would search for)
TITLES = {
    "step.next": "Step: next event",
    "step.into": "Step into",
    "step.over": "Step over",
    "step.out": "Step out",
    "run.continue": "Continue",
    "run.pause": "Pause the run",
    "run.to-here": "Run to here: continue until the selected node starts",
    "shell.open": "Run a Python line in the namespace (at a stop)",
    "run.interrupt": "Interrupt the running node",
    "breakpoint.toggle": "Toggle a breakpoint on the selected node",
    "expansion.submit": "Submit the expansion",
    "view.editor": "View: answer editor",
    "view.prompt": "View: prompt",
    "view.breakpoints": "View: breakpoints",
    "view.follow": "View: jump to the current node",
    "view.zoom": "Zoom the focused pane (or restore)",
    "view.panes": "View: swap tree/node and variables/log (narrow terminals)",
    "view.workspace": "Prompt workspace",
    "watch.add": "Watch an expression",
    "app.help": "Help: every key",
    "llm.switch": "Switch the LLM",
    "llm.type": "Type the awaited answer yourself",
    "review.regenerate": "Review: regenerate the proposal",
    "review.reject": "Review: reject the proposal",
    "session.rewind": "Session: rewind to the selected node",
    "session.fork": "Session: fork at the selected stub",
    "session.list": "Session: list sessions",
    "session.diff-parent": "Session: diff this branch against its parent",
    "search.find": "Find in the focused pane",
}
SKIP = {"app.quit"}  # Textual lists Quit already


def binding_commands(app: App, namespace: DOMNode, bindings: Iterable[BindingType],
                     keymap: dict[str, str]) -> Iterable[SystemCommand]:
    """One palette command per binding with an id, running the binding's action on `namespace` (its screen)."""
    for binding in bindings:
        if not isinstance(binding, Binding) or not binding.id or binding.id in SKIP:  # a tuple has no id
            continue
        key = keymap.get(binding.id, binding.key)
        keys = ", ".join(app.get_key_display(Binding(k.strip(), "")) for k in key.split(","))
        help_text = f"key {keys}" + (f" · {binding.tooltip}" if binding.tooltip else "")
        yield SystemCommand(TITLES.get(binding.id, binding.description), help_text, partial(app.run_action, binding.action, namespace))
