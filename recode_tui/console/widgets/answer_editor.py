"""The answer editor: the person answers an LLM call of any agent, validated as they type.

The live check is the one submit rule of every front end,
`agent.runtime.answer_check.check_answer`: the agent's own `judge` (ReCode's
code rule, ReAct's one action, CodeAct's one cell), its words for what an
accepted answer does, the confirmation an empty answer needs, and for a
model's proposal under review the run's rule for an answer cut at max_tokens.
An empty editor shows the agent's `answer_skeleton(purpose, role)`.

The text of every node's draft lives in `drafts` (owned by the run's screen), so
switching panes or tabs, resizing, or cancelling never loses it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol, cast, runtime_checkable

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.signal import Signal
from textual.timer import Timer
from textual.widgets import Button, Static, TextArea
from textual.worker import Worker, WorkerState

from agent.runtime.answer_check import AnswerCheck, check_answer, confirm_text, skeleton_cursor
from agent.runtime.stepper import Stepper
from recode_tui.console.support.textual_compat import KeyFirstTextArea

CHECK_DELAY = 0.1  # seconds of typing quiet before validating: a check takes under 1 ms, and a verdict
# later than a tenth of a second after the last key is a lag a person sees (keys 0.2-0.3 s apart fire it anyway)

_EXECUTE_CLOSE = re.compile(r"\s*</execute>", re.I)


@dataclass(frozen=True)
class Proposal:
    """A model's answer shown for review: judged as the model's own (`typed=False`, its cut) while unedited."""

    text: str
    cut_at: int | None = None


@runtime_checkable
class HoldsAgent(Protocol):
    """A screen that runs an agent (a run's `DebugScreen`); the editor also sits on screens that do not."""

    agent: Stepper


@runtime_checkable
class BlinkSetting(Protocol):
    """An app that says whether text cursors blink (the console's `--no-blink`)."""

    cursor_blink: bool


def cursor_blink_of(app: object) -> bool:
    """Whether the app's text cursors blink (they do unless it says otherwise)."""
    return app.cursor_blink if isinstance(app, BlinkSetting) else True


def next_line_indent(line: str) -> str:
    """The indent of a new line after `line`: the same, one level more after a colon."""
    indent = line[: len(line) - len(line.lstrip(" "))]
    code = line.split("#", 1)[0].rstrip() if "#" in line and "'" not in line and '"' not in line else line.rstrip()
    return indent + "    " if code.endswith(":") else indent


class CodeArea(KeyFirstTextArea):
    """The editor's text area: auto-indent like the plain mode, ctrl+a selects everything.

    TextArea inserts typed text before any public handler or binding sees the key,
    so enter, backspace and ctrl+a are taken first, in `key_first` (textual_compat).
    """

    BINDINGS = [
        Binding("ctrl+a", "select_all", "Select all", id="expansion.select-all", show=False),
        # Shown in the footer while typing: what Esc and ctrl+t do here (the screen's own keys are text now).
        Binding("escape", "leave", "Leave editor", id="expansion.leave"),
        Binding("ctrl+t", "screen.zoom", "Zoom", id="expansion.zoom"),
    ]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A closed (read-only) editor takes no text: Esc there is the screen's pause."""
        return not (action == "leave" and self.read_only)

    def action_leave(self) -> None:
        """Esc: the focus moves on, as TextArea does with Esc when tab indents (it takes the key first)."""
        self.screen.focus_next()

    async def key_first(self, event: events.Key) -> bool:
        if not self.read_only and event.key == "enter":
            row, column = self.cursor_location
            indent = next_line_indent(self.document[row][:column])
            start, end = self.selection
            self.restart_blink()
            self.replace("\n" + indent, start, end, maintain_selection_offset=False)
            return True
        if not self.read_only and event.key == "backspace":
            # Here, not as a binding: a binding runs once the key has bubbled up to the
            # app, after keys typed just behind it, so a fast `x<bs>y` would end as `y`.
            self.restart_blink()
            self.action_delete_left()
            return True
        if event.key == "ctrl+a":  # the same: ctrl+a then a fast answer must replace everything
            self.select_all()
            return True
        return False

    def action_delete_left(self) -> None:
        """Backspace in the indent goes back one level, as in the plain mode."""
        row, column = self.cursor_location
        if not self.read_only and self.selection.is_empty and column and not self.document[row][:column].strip(" "):
            self.delete((row, column - ((column - 1) % 4 + 1)), (row, column), maintain_selection_offset=False)
            return
        super().action_delete_left()


def draft_cursor(text: str) -> tuple[int, int]:
    """The end of the last line before `</execute>` (or of the text): where typing stopped."""
    lines = text.split("\n")
    closing = next((i for i, line in enumerate(lines) if _EXECUTE_CLOSE.match(line)), len(lines))
    row = max(0, closing - 1)
    return row, len(lines[row])


class AnswerEditor(Vertical):
    """Header, the code editor, the live check and a Submit button."""

    BINDINGS = [
        Binding("ctrl+r", "reset_skeleton", "Reset to skeleton", id="expansion.reset", show=False),
    ]

    @dataclass
    class Submitted(Message):
        """The person submits a valid expansion for `node_id`."""

        node_id: str
        text: str

    def __init__(self, drafts: dict[str, str], **kwargs) -> None:
        super().__init__(**kwargs)
        self.drafts = drafts
        self.node_id: str | None = None
        self.purpose = ""  # the open call's (`open`): '' reads as the agent's main call
        self.role = ""
        self.known: frozenset[str] = frozenset()
        self.proposal: Proposal | None = None  # a model's answer under review (judged as the model's while unedited)
        self._timer: Timer | None = None
        self._confirm_empty = False
        self.last_check: AnswerCheck | None = None
        # Published with each verdict once the check line shows it (typing paused, or a submit judged).
        self.check_shown: Signal[AnswerCheck] = Signal(self, "check_shown")
        # The last verdict and what it judged: submitting text the background check
        # already judged costs the event loop nothing.
        self._judged: tuple[tuple[object, ...], AnswerCheck] | None = None
        self._closed_with: str | None = "No expansion is awaited."
        self.at_root = False  # the open call expands the root: an empty answer would skip the whole task

    def compose(self) -> ComposeResult:
        yield Static("No expansion is awaited.", id="expand-header")
        # Highlighting loads tree-sitter (~150 ms): `enable_highlighting` after the first paint.
        # Empty until a call opens it: each agent's own answer format comes with its first call.
        # Soft wrap: a line longer than the editor never leaves it scrolled sideways, hiding every line's start.
        editor = CodeArea.code_editor("", language=None, id="expand-text", read_only=True, soft_wrap=True)
        editor.cursor_blink = cursor_blink_of(self.app)
        yield editor
        with Horizontal(id="expand-bar"):
            yield Static("", id="expand-check")
            submit = Button("Submit ⌃S", id="expand-submit", variant="primary", disabled=True)
            submit.can_focus = False  # a click or ⌃S: esc or tab out of the editor lands on a pane, marked as focused
            yield submit

    def enable_highlighting(self) -> None:
        editor = self.editor
        if editor.language is None:
            try:
                editor.language = "python"
            except Exception:  # noqa: BLE001 - no tree-sitter: plain text still works
                pass

    def _agent(self) -> Stepper | None:
        """The agent of the run this editor answers for: its screen's (a run's screen holds one)."""
        screen = self.screen  # the editor sits on screens of several kinds
        return screen.agent if isinstance(screen, HoldsAgent) and isinstance(screen.agent, Stepper) else None

    @property
    def editor(self) -> TextArea:
        return self.query_one("#expand-text", TextArea)

    @property
    def is_open(self) -> bool:
        return self.node_id is not None

    def take_focus(self) -> bool:
        """`e`: the text takes the focus while an answer is awaited (a closed editor keeps none)."""
        if self.is_open:
            self.editor.focus()
        return self.is_open

    @property
    def skeleton(self) -> str:
        """The open call's answer format (the agent's), shown in an empty editor and by ctrl+r."""
        agent = self._agent()
        return agent.answer_skeleton(self.purpose, self.role) if agent is not None else ""

    def open(self, node_id: str, code: str, known: frozenset[str], attempt: int = 1,
             purpose: str = "", note: str = "", role: str = "", proposal: Proposal | None = None) -> None:
        """Start (or resume) the draft for `node_id`, an LLM call of `purpose` by `role`; `proposal`: the
        draft is a model's answer under review, judged as the run judges the model's answer."""
        self.enable_highlighting()
        self.node_id, self.known = node_id, known
        self.purpose, self.role = purpose, role
        agent = self._agent()
        self.at_root = agent is not None and agent.tree.root.id == node_id
        self.proposal = proposal
        self._closed_with = None
        self._confirm_empty = False
        text = self.drafts.get(node_id)
        editor = self.editor
        editor.read_only = False
        if text is None:
            text = self.skeleton
            self.drafts[node_id] = text
            editor.load_text(text)
            editor.cursor_location = self._skeleton_cursor(text)
        elif editor.text != text:
            editor.load_text(text)
            editor.cursor_location = draft_cursor(text)  # a restored draft: carry on typing where it stopped
        hint = agent.traits.answer_words.format_hint if agent is not None else ""
        verb = (purpose or (agent.traits.main_purpose if agent is not None else "")).capitalize() or "Answer"
        header = Text.assemble(
            (f"{verb} {node_id}  ", "bold"),
            (code.split("\n", 1)[0], "bold magenta"),
            (f"   ({role})" if role else "", "cyan"),
            (f"   attempt {attempt}" if attempt > 1 else "", "yellow"),
            (f"   {hint}" if hint else "   in the format shown (⌃R restores it)", "dim"),
        )
        if note:
            header.append(f"\n{note}", "bold red")
        self.query_one("#expand-header", Static).update(header)
        self.query_one("#expand-submit", Button).disabled = False
        self._check_now()

    def close(self, message: str = "No expansion is awaited.") -> None:
        """Nothing to answer now; the text stays (it is the node's draft)."""
        if self.node_id is None and self._closed_with == message:
            return  # nothing changes: no repaint
        self._closed_with = message
        self.node_id = None
        self.editor.read_only = True
        self.query_one("#expand-header", Static).update(message)
        self.query_one("#expand-submit", Button).disabled = True
        self.query_one("#expand-check", Static).update("")

    # -- live validation -------------------------------------------------------------

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if event.text_area is not self.editor or self.node_id is None:
            return
        self.drafts[self.node_id] = self.editor.text
        self._confirm_empty = False
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(CHECK_DELAY, self._check_in_background)

    def check(self, text: str) -> AnswerCheck:
        """The agent's verdict on `text` for the open call, by the one submit rule (`check_answer`): a
        proposal left as the model gave it is judged as the run will judge it (cut at max_tokens too)."""
        agent = self._agent()
        if agent is None:
            return AnswerCheck(False, "no run to answer for")
        as_proposed = self.proposal is not None and text.strip() == self.proposal.text.strip()
        return check_answer(agent, text, self.purpose, self.role, known=self.known, typed=not as_proposed,
                            cut_at=self.proposal.cut_at if as_proposed and self.proposal else None,
                            at_root=self.at_root)

    def _judging(self, text: str) -> tuple[object, ...]:
        """What a verdict depends on besides the agent: the open call and the text."""
        return (self.node_id, self.purpose, self.role, self.known, self.proposal, self.at_root, text)

    def _check_in_background(self) -> None:
        """Judge the text in a thread: a long answer's check never holds up keys or paints."""
        key = self._judging(self.editor.text)
        text = self.editor.text
        self.run_worker(lambda: (key, self.check(text)), thread=True, exclusive=True, group="expansion-check")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "expansion-check" or event.state != WorkerState.SUCCESS:
            return
        key, check = cast("tuple[tuple[object, ...], AnswerCheck]", event.worker.result)  # what the worker returns
        if self.node_id is not None and key == self._judging(self.editor.text):
            self._judged = (key, check)
            self._show(check)

    def _check_now(self) -> AnswerCheck:
        key = self._judging(self.editor.text)
        if self._judged is not None and self._judged[0] == key:
            check = self._judged[1]
        else:
            check = self.check(self.editor.text)
            self._judged = (key, check)
        self._show(check)
        return check

    def _show(self, check: AnswerCheck) -> None:
        self.last_check = check
        if check.needs_confirming and self.at_root:  # valid, but it gives up the task: a warning, not a tick
            shown = Text(f"! {check.message}", style="bold yellow")
        else:
            style = "green" if check.ok else "bold red"
            shown = Text(f"{'✓' if check.ok else '✗'} {check.message}", style=style)
        line = self.query_one("#expand-check", Static)
        if line.content != shown:  # the same verdict again (a pause in typing that changed nothing): no re-layout
            line.update(shown)
        self.check_shown.publish(check)

    # -- submitting ----------------------------------------------------------------

    def submit(self) -> bool:
        """Validate now; post Submitted if valid, else show the reason. The text always stays."""
        if self.node_id is None:
            self.app.notify("No expansion is awaited.", severity="warning")
            return False
        check = self._check_now()
        agent = self._agent()
        if not check.ok:
            noun = agent.traits.answer_words.noun if agent is not None else "answer"
            self.app.notify(f"Refused: {check.message}", title=f"{noun.capitalize()} refused", severity="error")
            return False
        if check.needs_confirming and not self._confirm_empty and agent is not None:
            self._confirm_empty = True
            self.query_one("#expand-check", Static).update(Text(confirm_text(agent, "⌃S", self.at_root), style="bold yellow"))
            return False
        self.post_message(self.Submitted(self.node_id, self.editor.text))
        return True

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "expand-submit":
            event.stop()
            self.submit()

    def _skeleton_cursor(self, skeleton: str) -> tuple[int, int]:
        agent = self._agent()
        return skeleton_cursor(agent, skeleton) if agent is not None else (0, 0)

    def load_skeleton(self) -> None:
        """Put the open call's answer format in the editor, the cursor where typing starts."""
        skeleton = self.skeleton
        self.editor.load_text(skeleton)
        self.editor.cursor_location = self._skeleton_cursor(skeleton)
        if self.node_id is not None:
            self.drafts[self.node_id] = skeleton

    def action_reset_skeleton(self) -> None:
        if self.node_id is not None:
            self.load_skeleton()
            self._check_now()
