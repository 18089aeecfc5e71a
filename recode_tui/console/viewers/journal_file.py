"""`recode-tui tui --open JOURNAL`: a recorded session, read-only, without running any of its code.

Resuming replays a session, which runs its answers and `!` statements again
(in the sandbox). This viewer runs nothing: the tree is rebuilt from the
journal's answers (`agent.sessions.journal_view`), each node's detail shows what the
records say, and the log lists every answer, action with its observation,
`!` statement (not run) and the end. No environment, no sandbox worker.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, RichLog, Static, Tree

from agent.runtime import events as ev
from agent.sessions.journal_read import JournalError, read_journal
from agent.sessions.listing import find_session
from recode_tui.setup.places import sessions_dir_from
from agent.sessions.journal_view import NOT_SHOWN, JournalView, read_view
from agent.sessions.old_values import UNRECORDED_PURPOSE
from recode_tui.setup.usage import UsageError
from recode_tui.console.widgets.code_tree import CodeTreeView
from recode_tui.console.widgets.node_detail import NodeDetail


def load_journal_view(ref: str, sessions: str | None = None) -> JournalView:
    """The view of a session id, folder or journal file; UsageError with one line when it cannot be read."""
    try:
        return read_view(read_journal(find_session(sessions_dir_from(sessions), ref), lenient=True))
    except JournalError as exc:
        raise UsageError(str(exc)) from None


def record_lines(view: JournalView) -> list[Text]:
    """The log: every record in order, as plain Text (never markup: the journal may come from anyone)."""
    lines: list[Text] = []
    for record in view.journal.records:
        kind, node_id = record.get("type"), str(record.get("node_id") or "")
        if kind == "answer":
            verdict = "answer" if record.get("accepted") else "rejected answer"
            lines.append(Text.assemble((f"{node_id} ", "cyan"), (f"{verdict} ", "bold"),
                                       (f"({record.get('purpose', UNRECORDED_PURPOSE)}, {record.get('source', '')})", "dim")))
            lines += [Text("  " + line) for line in str(record.get("answer", "")).strip().splitlines()]
        elif kind == "action":
            lines.append(Text.assemble((f"{node_id} ", "cyan"), (f"> {record.get('action')}", "bold"),
                                       f"  {record.get('observation')}"))
        elif kind == "statement":
            lines.append(Text.assemble((f"{node_id} ", "cyan"), ("! ", "bold"), str(record.get("code", "")),
                                       ("  (recorded, not run here)", "dim")))
        elif kind == "llm_failed":
            lines.append(Text.assemble((f"{node_id} ", "cyan"), ("LLM failed: ", "bold red"), str(record.get("error"))))
        elif kind == "finished":
            won = bool(record.get("success"))
            lines.append(Text("WON" if won else f"NOT WON: {record.get('reason')}", "bold green" if won else "bold red"))
    if view.journal.finished is None:
        lines.append(Text("unfinished", "yellow"))
    return lines


def meta_line(view: JournalView) -> Text:
    finished = view.journal.finished
    verdict = "unfinished" if finished is None else "won" if finished.get("success") else "failed"
    return Text.assemble(
        (f" {view.agent} ", "bold reverse"), " ", ("read-only session, nothing runs ", "bold"),
        (str(view.journal.folder), "cyan"), ("  │  ", "dim"), (view.task, "bold"), ("  │  ", "dim"),
        (verdict, "bold green" if verdict == "won" else "bold red" if verdict == "failed" else "yellow"),
    )


class JournalFileApp(App[None]):
    """The tree, node detail and record log of a journal; q quits."""

    CSS_PATH = str(Path(__file__).resolve().parent.parent / "recode.tcss")
    TITLE = "recode-tui session (read-only)"
    BINDINGS = [Binding("q", "quit", "Quit", id="journal-file.quit")]

    def __init__(self, view: JournalView) -> None:
        super().__init__()
        self.view = view

    def compose(self) -> ComposeResult:
        yield Static(meta_line(self.view), id="journal-file-meta")
        with Horizontal(id="panes"):
            with Vertical(id="left"):
                yield CodeTreeView(self.view.tree, id="code-tree")
                yield NodeDetail(id="detail")
            yield RichLog(id="env-log", wrap=True, markup=False)
        yield Static(Text("not shown (only running shows it): " + "; ".join(self.view.not_shown()), "dim"),
                     id="journal-file-missing")
        yield Footer()

    def on_mount(self) -> None:
        view = self.query_one(CodeTreeView)
        view.border_title = "Code tree (from the journal, read-only)"
        self.query_one("#detail").border_title = "Node"
        log = self.query_one(RichLog)
        log.border_title = "Journal: answers, actions, statements"
        for line in record_lines(self.view):
            log.write(line)
        view.apply(
            ev.LLMAnswered(node.id, child_ids=tuple(c.id for c in node.children))
            for node in self.view.tree.walk()
            if node.children
        )
        view.focus()

    @on(Tree.NodeHighlighted, "#code-tree")
    def show_node(self, event: Tree.NodeHighlighted) -> None:
        self.query_one(NodeDetail).show(self.view.tree.nodes.get(event.node.data or ""))


def run_journal_file(ref: str, sessions: str | None = None) -> int:
    JournalFileApp(load_journal_view(ref, sessions)).run()
    return 0
