"""Two runs side by side: the aligned rows above, each side's env log and LLM call at the selected row below.

Opens at the first divergence. `n`/`p` jump to the next/previous row that
differs, `d` back to the divergence, `t` switches between the node tree and
the step list (agents that build a tree), escape goes back. Under 120
columns the two side panes stack (A above B).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Container, VerticalScroll
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from agent.eval.rundiff.diff import RunDiff
from agent.eval.rundiff.evals import EvalDiff
from agent.runtime.safe_text import for_terminal
from recode_tui.console.widgets.key_line import DIFF_KEYS, EVAL_DIFF_KEYS, KeyLine
from recode_tui.setup.diffs import parting
from recode_tui.console.screens.diff_text import node_lines, node_side, step_lines, step_side
from recode_tui.console.widgets.diff_rows import DiffRows

STACK_BELOW = 120  # columns under which the two side panes stack


def summary(diff: RunDiff) -> Text:
    """The top line: both runs, and where they part."""
    a, b, d = diff.a, diff.b, diff.divergence

    def safe(text: str) -> str:
        return for_terminal(text, newlines=False)

    out = Text.assemble((" diff ", "bold reverse"), " ", (safe(f"{a.env} {a.episode}"), "bold"), "  ",
                        ("A ", "bold red"), safe(f"{a.agent}, {a.outcome.split(':')[0]}  "),
                        ("B ", "bold green"), safe(f"{b.agent}, {b.outcome.split(':')[0]}") + "\n")
    if d is None:
        out.append("the two runs are the same", "bold green")
    else:
        what = {"answer": "an LLM answer", "action": "an action or its observation", "end": "the end"}[d.kind]
        out.append(f"first divergence: {what}, before step {d.before_step}; {parting(d)}", "bold yellow")
    return out


class DiffScreen(Screen[None]):
    """One pair of runs; `view` is "nodes" (tree agents) or "steps"."""

    BINDINGS = [
        Binding("n,right_square_bracket", "jump(1)", "Next diff", id="diff.next"),
        Binding("p,N,left_square_bracket", "jump(-1)", "Prev diff", id="diff.previous"),
        Binding("d", "divergence", "Divergence", id="diff.divergence"),
        Binding("t", "toggle_view", "Nodes/steps", id="diff.toggle"),
        Binding("escape,q", "close", "Back", id="diff.close"),
    ]

    view: reactive[str] = reactive("steps", init=False)

    def __init__(self, diff: RunDiff, *, view: str | None = None, quits: bool = False) -> None:
        """`quits`: escape ends the app (the screen is all `tui --diff` shows); else it goes back."""
        super().__init__()
        self.diff = diff
        self.quits = quits
        self._built: dict[str, tuple[list, int]] = {}
        self._view = view or ("nodes" if diff.nodes else "steps")

    def compose(self) -> ComposeResult:
        yield Static(summary(self.diff), id="diff-meta")
        lines, marked = self._lines(self._view)
        yield DiffRows(lines, marked, id="diff-rows")
        with Container(id="diff-sides"):
            with VerticalScroll(id="diff-side-a", classes="diff-side"):
                yield Static(id="diff-a")
            with VerticalScroll(id="diff-side-b", classes="diff-side"):
                yield Static(id="diff-b")
        yield Footer()
        yield KeyLine(DIFF_KEYS, id="key-line")  # the footer's place below 100 columns (recode.tcss)

    def on_mount(self) -> None:
        self.set_reactive(DiffScreen.view, self._view)
        rows = self.query_one(DiffRows)
        self._titles()
        for name, run in (("a", self.diff.a), ("b", self.diff.b)):  # Text: a folder name is never markup
            self.query_one(f"#diff-side-{name}").border_title = Text(
                f"{run.name} {for_terminal(run.journal.session_id, newlines=False)}")
        rows.cursor = max(rows.marked, 0)
        self._fill(rows.cursor)
        rows.focus()

    def on_resize(self) -> None:
        self.set_class(self.size.width < STACK_BELOW, "-stacked")

    def _lines(self, view: str):
        """The rows of a view and its divergence row, built once (t switches back and forth)."""
        if view not in self._built:
            if view == "nodes" and self.diff.nodes is not None:
                self._built[view] = (node_lines(self.diff), self.diff.node_divergence_row)
            else:
                self._built[view] = (step_lines(self.diff), self.diff.step_divergence_row)
        return self._built[view]

    def _titles(self) -> None:
        rows = self.query_one(DiffRows)
        noun = "nodes by path and code" if self.view == "nodes" else "environment steps"
        changed = sum(line.op != "equal" for line in rows.lines)
        rows.border_title = f"A │ B: {noun} ({len(rows.lines)} rows, {changed} differ)"

    @on(DiffRows.Selected)
    def _selected(self, event: DiffRows.Selected) -> None:
        self._fill(event.index)

    def _fill(self, index: int) -> None:
        side = node_side if self.view == "nodes" else step_side
        self.query_one("#diff-a", Static).update(side(self.diff, index, "a"))
        self.query_one("#diff-b", Static).update(side(self.diff, index, "b"))

    def action_jump(self, by: int) -> None:
        """The next (or previous) row that differs from the equal rows around it."""
        rows = self.query_one(DiffRows)
        order = range(rows.cursor + 1, len(rows.lines)) if by > 0 else range(rows.cursor - 1, -1, -1)
        found = next((i for i in order if rows.lines[i].op != "equal"), None)
        if found is None:
            self.notify("no more differences that way", timeout=2)
            return
        rows.cursor = found

    def action_divergence(self) -> None:
        rows = self.query_one(DiffRows)
        if rows.marked >= 0:
            rows.cursor = rows.marked

    def action_toggle_view(self) -> None:
        if self.diff.nodes is None:
            self.notify(f"{self.diff.a.agent} builds no tree to align: only its steps", timeout=3)
            return
        self.view = "steps" if self.view == "nodes" else "nodes"

    def watch_view(self, view: str) -> None:
        lines, marked = self._lines(view)
        rows = self.query_one(DiffRows)
        rows.show(lines, marked, max(marked, 0))
        self._titles()
        self._fill(rows.cursor)

    def action_close(self) -> None:
        if self.quits:
            self.app.exit()
        else:
            self.app.pop_screen()


class EvalDiffScreen(Screen[None]):
    """Two evaluations: the common episodes, flipped first; enter opens one episode's diff."""

    BINDINGS = [Binding("escape,q", "app.quit", "Quit", id="diff-eval.quit")]

    def __init__(self, diff: EvalDiff) -> None:
        super().__init__()
        self.diff = diff

    def compose(self) -> ComposeResult:
        flipped = sum(e.flipped for e in self.diff.episodes)
        yield Static(Text.assemble((" diff ", "bold reverse"),
                                   for_terminal(f" A {self.diff.a}\n       B {self.diff.b}") + "\n",
                                   (f"{len(self.diff.episodes)} episodes in common, {flipped} flipped (first)",
                                    "bold")), id="diff-meta")
        options = []
        for index, item in enumerate(self.diff.episodes):
            won, won_b = ("won" if item.won_a else "lost"), ("won" if item.won_b else "lost")
            state = f"flipped {won} → {won_b}" if item.flipped else f"{won} in both"
            label = Text.assemble((for_terminal(f"{item.episode:<16}", newlines=False), "bold"),
                                  for_terminal(f"{item.task_type:<9}", newlines=False),
                                  (state, "bold yellow" if item.flipped else "dim"))
            if item.diff is None:
                label.append(for_terminal(f"  not diffed: {item.refused}", newlines=False), "red")
            options.append(Option(label, id=str(index), disabled=item.diff is None))
        yield OptionList(*options, id="diff-episodes")
        yield Footer()
        yield KeyLine(EVAL_DIFF_KEYS, id="key-line")

    @on(OptionList.OptionSelected)
    def _open(self, event: OptionList.OptionSelected) -> None:
        item = self.diff.episodes[int(event.option.id or 0)]
        if item.diff is not None:
            self.app.push_screen(DiffScreen(item.diff))


def show_parent_diff(app: App[None], folder: Path, warn: Callable[[str], None]) -> None:
    """`D`: the session in `folder` (a fork, a rewind) against the one it was made from, on the diff screen.

    Both journals are read and aligned in a thread (a long run takes a moment); the screen is
    pushed after. A session that is not a branch, or journals that cannot be compared, are `warn`ed.
    """
    from agent.eval.rundiff.diff import IncomparableRuns, diff_runs
    from agent.eval.rundiff.runs import parent_folder
    from agent.sessions.journal_read import JournalError, read_journal

    def show(found: RunDiff | str) -> None:
        if isinstance(found, str):
            warn(found)
        else:
            app.push_screen(DiffScreen(found))

    def build() -> None:
        try:
            journal = read_journal(folder, lenient=True)
            parent = parent_folder(journal)
            if parent is None:
                found: RunDiff | str = (f"{folder.name} is not a branch (or its parent is gone): "
                                        "D diffs a fork or a rewind against the session it came from")
            else:
                found = diff_runs(read_journal(parent, lenient=True), journal)
        except (JournalError, IncomparableRuns) as exc:
            found = str(exc)
        app.call_from_thread(show, found)

    app.run_worker(build, thread=True, group="diff-parent", exit_on_error=False)
