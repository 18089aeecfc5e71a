"""Re-expansion results side by side, each with a diff against the recorded answer.

One column per source (the recorded answer first); a person's column is an
editor. Pressing a column's F-key chooses that answer: the screen posts
dismisses with a `Choice` and the workspace decides what to do with it.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Static, TextArea

from agent.agents.recode.authoring import answer_diff, live_answer_problem
from recode_tui.console.widgets.answer_editor import cursor_blink_of

# The console's run keys would step the agent under this screen; here they only say so.
RUN_KEYS = Binding("n,s,o,u,c,b,e,r,B,W,i,R,F", "run_keys", show=False, id="workspace.run-keys")

PERSON_SKELETON = "<think>\n\n</think>\n<execute>\n\n</execute>\n"


@dataclass
class Candidate:
    source: str  # the LLM spec: "scripted:…", "profile:local", "human"
    text: str = ""
    error: str = ""  # the LLM failed: why
    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def person(self) -> bool:
        return self.source == "human"


def diff_text(recorded: str | None, answer: str) -> Text:
    if recorded is None:
        return Text("no recorded answer to compare with", style="dim")
    lines = answer_diff(recorded, answer)
    if not lines:
        return Text("same code as the recorded answer", style="green")
    out = Text()
    for line in lines[2:]:
        style = "green" if line.startswith("+") else "red" if line.startswith("-") else "cyan" if line.startswith("@@") else ""
        out.append(line + "\n", style=style)
    return out


class AnswerColumn(Vertical):
    """One answer: its source and verdict, its text, its diff against the recorded answer."""

    def __init__(self, number: int, candidate: Candidate, recorded: str | None, known: frozenset[str], **kw) -> None:
        super().__init__(classes="cmp-column", **kw)
        self.number = number
        self.candidate = candidate
        self.recorded = recorded
        self.known = known
        self._timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Static(id=f"cmp-title-{self.number}", classes="cmp-title")
        text = self.candidate.text or (PERSON_SKELETON if self.candidate.person else self.candidate.error)
        yield TextArea(
            text, id=f"cmp-text-{self.number}", classes="cmp-text", read_only=not self.candidate.person,
            soft_wrap=True, show_line_numbers=False,
        )
        with VerticalScroll(classes="cmp-diff-box"):
            yield Static(id=f"cmp-diff-{self.number}", classes="cmp-diff")

    def on_mount(self) -> None:
        self.refresh_verdict()

    @property
    def text(self) -> str:
        return self.query_one(TextArea).text

    def refresh_verdict(self) -> None:
        c = self.candidate
        title = Text(f"{self.number}  {c.source}", style="bold")
        if c.error:
            title.append(f"  failed: {c.error}", style="red")
        else:
            problem = live_answer_problem(self.text, self.known, person=c.person)
            title.append("  refused: " + problem if problem else "  valid", style="red" if problem else "green")
            if c.input_tokens or c.output_tokens:
                title.append(f"  {c.input_tokens:,} in / {c.output_tokens:,} out", style="dim")
        self.query_one(".cmp-title", Static).update(title)
        self.query_one(".cmp-diff", Static).update(diff_text(self.recorded, self.text) if not c.error else "")

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(0.2, self.refresh_verdict)


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
        RUN_KEYS,
        *[
            Binding(f"f{n}", f"choose({n})", f"Use {n}", id=f"compare.choose{n}",
                    priority=True, show=n <= 4)
            for n in range(1, 10)
        ],
    ]

    def __init__(self, node_id: str, code: str, recorded: str | None, candidates: list[Candidate],
                 known: frozenset[str], prompt_hash: str) -> None:
        super().__init__()
        self.node_id = node_id
        self.code = code
        self.recorded = recorded
        self.candidates = candidates
        self.known = known
        self.prompt_hash = prompt_hash

    def compose(self) -> ComposeResult:
        header = Text.assemble(
            ("Re-expansion of ", ""), (f"{self.node_id} `{self.code.splitlines()[0]}`", "bold"),
            (f" with prompt set {self.prompt_hash} — F1..F{len(self.candidates)} use an answer, esc goes back", "dim"),
        )
        yield Static(header, id="cmp-header")
        with Horizontal(id="cmp-columns"):
            with Vertical(classes="cmp-column cmp-recorded"):
                yield Static(Text("recorded in the session", style="bold"), classes="cmp-title")
                yield TextArea(self.recorded or "(not expanded yet)", classes="cmp-text", read_only=True, soft_wrap=True)
            for number, candidate in enumerate(self.candidates, start=1):
                yield AnswerColumn(number, candidate, self.recorded, self.known, id=f"cmp-col-{number}")
        yield Footer()

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
        return True

    def action_run_keys(self) -> None:
        self.notify("Close this screen (esc) to step the run.", severity="warning")

    def column(self, number: int) -> AnswerColumn | None:
        found = self.query(f"#cmp-col-{number}")
        return found.first(AnswerColumn) if found else None

    def action_choose(self, number: int) -> None:
        column = self.column(number)
        if column is None:
            return
        if column.candidate.error:
            self.notify(f"{column.candidate.source} gave no answer.", severity="warning")
            return
        self.dismiss(Choice(self.node_id, column.text, column.candidate.source))
