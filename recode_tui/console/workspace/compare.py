"""Re-expansion results side by side, each with a diff against the recorded answer.

One column per source (the recorded answer first); a person's column is an
editor with the answer editor's keys. Every column is judged by the one submit
rule (`agent.runtime.answer_check.SubmitRule`: the agent's judge, its words, an
empty answer submitted twice), a model's answer as the run judges a model's.
Pressing a column's F-key (ctrl+s: the person's column) chooses that answer:
the screen dismisses with a `Choice` and the workspace decides what to do with it.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.signal import Signal
from textual.timer import Timer
from textual.widgets import Static, TextArea

from agent.runtime.answer_check import AnswerCheck, SubmitRule
from agent.runtime.prompt_parts import PromptParts
from agent.runtime.stepper import Stepper
from recode_tui.console.widgets.answer_editor import CHECK_DELAY, CodeArea, cursor_blink_of
from recode_tui.console.widgets.key_line import KeyLine, compare_keys
from recode_tui.console.widgets.key_footer import KeyFooter
from recode_tui.console.support.zoom import zoom_focused

# The console's run keys would step the agent under this screen; here they only say so.
RUN_KEYS = Binding("n,s,o,u,c,b,e,r,B,W,i,R,F", "run_keys", show=False, id="workspace.run-keys")


@dataclass
class Candidate:
    source: str  # the LLM spec: "scripted:…", "profile:local", "human"
    text: str = ""
    error: str = ""  # the LLM failed: why
    input_tokens: int = 0
    output_tokens: int = 0
    cut_at: int | None = None  # the model's max_tokens cut its answer (judged as the run judges it)

    @property
    def person(self) -> bool:
        return self.source == "human"


def diff_text(recorded: str | None, answer: str, parts: PromptParts) -> Text:
    if recorded is None:
        return Text("no recorded answer to compare with", style="dim")
    lines = parts.answer_diff(recorded, answer)
    if not lines:
        return Text("same code as the recorded answer", style="green")
    out = Text()
    for line in lines[2:]:
        style = "green" if line.startswith("+") else "red" if line.startswith("-") else "cyan" if line.startswith("@@") else ""
        out.append(line + "\n", style=style)
    return out


class AnswerColumn(Vertical):
    """One answer: its source and verdict, its text, its diff against the recorded answer."""

    def __init__(self, number: int, candidate: Candidate, recorded: str | None, rule: SubmitRule, **kw) -> None:
        super().__init__(classes="cmp-column", **kw)
        self.number = number
        self.candidate = candidate
        self.recorded = recorded
        self.rule = rule
        self.last_check: AnswerCheck | None = None
        self._said: tuple[str, Text] | None = None  # a line said about this text (a confirmation to give)
        self._timer: Timer | None = None
        # Published with each verdict once the column shows it (and its diff): typing paused, or a line said.
        self.verdict_shown: Signal[AnswerCheck | None] = Signal(self, "verdict_shown")

    def compose(self) -> ComposeResult:
        yield Static(id=f"cmp-title-{self.number}", classes="cmp-title")
        rule = self.rule
        skeleton = rule.agent.answer_skeleton(rule.purpose, rule.role)
        text = self.candidate.text or (skeleton if self.candidate.person else self.candidate.error)
        area = (CodeArea if self.candidate.person else TextArea)(
            text, id=f"cmp-text-{self.number}", classes="cmp-text", read_only=not self.candidate.person,
            soft_wrap=True, show_line_numbers=False,
        )
        yield area
        with VerticalScroll(classes="cmp-diff-box"):
            yield Static(id=f"cmp-diff-{self.number}", classes="cmp-diff")

    def on_mount(self) -> None:
        self.refresh_verdict()

    @property
    def text(self) -> str:
        return self.query_one(TextArea).text

    def check(self) -> AnswerCheck:
        """The agent's verdict on this column's text: a person's as typed, a model's as the run takes it."""
        person = self.candidate.person
        return self.rule.check(self.text, typed=person, cut_at=None if person else self.candidate.cut_at)

    def refusal(self, key: str) -> str:
        """Why choosing this column with `key` does not go through ('' when it does)."""
        person = self.candidate.person
        return self.rule.refusal(self.text, key, typed=person, cut_at=None if person else self.candidate.cut_at)

    def show_line(self, text: str, style: str) -> None:
        """A line under the column's title (a confirmation to give, a refusal), kept while the text stays."""
        self._said = (self.text, Text(text, style=style))
        self.refresh_verdict()

    def refresh_verdict(self) -> None:
        c = self.candidate
        title = Text(f"F{self.number}  {c.source}", style="bold")
        if c.error:
            title.append(f"  failed: {c.error}", style="red")
        else:
            check = self.last_check = self.check()
            if c.input_tokens or c.output_tokens:
                title.append(f"  {c.input_tokens:,} in / {c.output_tokens:,} out", style="dim")
            if not check.ok:
                title.append(f"\n✗ refused: {check.message}", style="bold red")
            elif check.needs_confirming and self.rule.at_root:
                title.append(f"\n! {check.message}", style="bold yellow")
            else:
                title.append(f"\n✓ {check.message}", style="green")
        if self._said is not None and self._said[0] == self.text:
            title.append("\n")
            title.append_text(self._said[1])
        self.query_one(".cmp-title", Static).update(title)
        parts = self.rule.agent.traits.prompt_workspace  # the agent's, whose answers are compared
        self.query_one(".cmp-diff", Static).update(
            diff_text(self.recorded, self.text, parts) if not c.error and parts is not None else "")
        self.verdict_shown.publish(None if c.error else self.last_check)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(CHECK_DELAY, self.refresh_verdict)  # as the answer editor's check


@dataclass(frozen=True)
class Choice:
    """The answer picked to continue the run with, and which source wrote it."""

    node_id: str
    text: str
    source: str


class CompareScreen(Screen["Choice | None"]):
    """The recorded answer and the new ones, side by side."""

    BINDINGS = [
        Binding("escape", "dismiss(None)", "Back", id="compare.back", priority=True),
        Binding("ctrl+s", "submit_person", "Submit typed", id="compare.submit", priority=True),
        Binding("ctrl+t", "zoom", "Zoom the focused column (or restore)", id="compare.zoom", priority=True),
        RUN_KEYS,
        *[
            Binding(f"f{n}", f"choose({n})", f"Use {n}", id=f"compare.choose{n}",
                    priority=True, show=n <= 4)
            for n in range(1, 10)
        ],
    ]

    def __init__(self, node_id: str, code: str, recorded: str | None, candidates: list[Candidate],
                 known: frozenset[str], prompt_hash: str, agent: Stepper, purpose: str) -> None:
        super().__init__()
        self.node_id = node_id
        self.code = code
        self.recorded = recorded
        self.candidates = candidates
        self.known = known
        self.prompt_hash = prompt_hash
        self.agent = agent
        self.rule = SubmitRule(agent, purpose, known=known, at_root=agent.tree.root.id == node_id)

    def compose(self) -> ComposeResult:
        count = len(self.candidates)
        keys = "F1 uses the answer" if count == 1 else f"F1..F{count} use an answer"
        header = Text.assemble(
            ("Re-expansion of ", ""), (f"{self.node_id} `{self.code.splitlines()[0]}`", "bold"),
            (f" with prompt set {self.prompt_hash} — {keys}, esc goes back", "dim"),
        )
        yield Static(header, id="cmp-header")
        with Horizontal(id="cmp-columns"):
            with Vertical(classes="cmp-column cmp-recorded"):
                yield Static(Text("recorded in the session", style="bold"), classes="cmp-title")
                yield TextArea(self.recorded or "(not expanded yet)", classes="cmp-text", read_only=True, soft_wrap=True)
            for number, candidate in enumerate(self.candidates, start=1):
                yield AnswerColumn(number, candidate, self.recorded, self.rule, id=f"cmp-col-{number}")
        yield KeyFooter()
        person = any(c.person for c in self.candidates)
        yield KeyLine(compare_keys(len(self.candidates), person), id="key-line")  # below 100 columns (recode.tcss)

    def on_mount(self) -> None:
        blink = cursor_blink_of(self.app)
        for area in self.query(TextArea):
            area.cursor_blink = blink
        first = self.column(1)
        if first is not None:
            first.query_one(TextArea).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """f1..f9 only for the columns there are: the footer offers no key that does nothing."""
        if action == "choose" and parameters and int(str(parameters[0])) > len(self.candidates):
            return False
        if action == "submit_person":
            return self.person_column() is not None
        return True

    def action_run_keys(self) -> None:
        self.notify("Close this screen (esc) to step the run.", severity="warning")

    def action_zoom(self) -> None:
        zoom_focused(self, ("cmp-column",))

    def column(self, number: int) -> AnswerColumn | None:
        found = self.query(f"#cmp-col-{number}")
        return found.first(AnswerColumn) if found else None

    def person_column(self) -> AnswerColumn | None:
        return next((c for c in self.query(AnswerColumn) if c.candidate.person), None)

    def action_submit_person(self) -> None:
        column = self.person_column()
        if column is not None:
            self.choose(column, "⌃S")

    def action_choose(self, number: int) -> None:
        column = self.column(number)
        if column is not None:
            self.choose(column, f"F{number}")

    def choose(self, column: AnswerColumn, key: str) -> None:
        """Use `column`'s answer, by the submit rule every editor applies."""
        if column.candidate.error:
            self.notify(f"{column.candidate.source} gave no answer.", severity="warning")
            return
        reason = column.refusal(key)
        if reason and column.check().ok:  # an empty answer: the same key again applies it
            column.show_line(reason, "bold yellow")
            return
        if reason:
            noun = self.agent.traits.answer_words.noun
            column.show_line(f"✗ {reason}", "bold red")
            self.notify(f"Refused: {reason}", title=f"{noun.capitalize()} refused", severity="error")
            return
        self.dismiss(Choice(self.node_id, column.text, column.candidate.source))
