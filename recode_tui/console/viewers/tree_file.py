"""`recode-tui tui --open-tree FILE`: an exported plan tree in the console's tree view, read-only.

Nothing runs: there is no agent, only the tree (`recode.plan.v1`) with each
node's detail. The file is validated first; a bad file is one line of error.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Footer, Static, Tree

from agent.runtime import events as ev
from agent.runtime.tree import CodeTree
from agent.sessions.export import PlanFormatError, tree_from_document
from recode_tui.setup.usage import UsageError
from recode_tui.console.widgets.code_tree import CodeTreeView
from recode_tui.console.widgets.node_detail import NodeDetail


def load_tree_file(path: str | Path) -> tuple[CodeTree, dict[str, Any]]:
    """The tree and its `meta`; UsageError with one line when the file is not a plan tree."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot read tree file {path}: {exc.strerror}") from None
    except ValueError as exc:
        raise UsageError(f"{path} is not JSON: {exc}") from None
    try:
        tree = tree_from_document(data)
    except PlanFormatError as exc:
        raise UsageError(f"{path} is not a recode.plan.v1 tree: {exc}") from None
    return tree, dict(data.get("meta") or {})


def meta_line(path: str | Path, meta: dict[str, Any]) -> Text:
    success = meta.get("success")
    verdict = "won" if success else "unfinished" if success is None else "failed"
    return Text.assemble(
        (" ReCode ", "bold reverse"), " ", ("read-only tree ", "bold"), (str(path), "cyan"),
        ("  │  ", "dim"), (str(meta.get("task", "")), "bold"),
        ("  │  ", "dim"), (verdict, "bold green" if success else "bold red" if success is False else "yellow"),
        f"  {meta.get('steps', '?')} steps, {meta.get('llm_calls', '?')} LLM calls",
        (f"  │  session {meta['session']}", "dim") if meta.get("session") else "",
    )


class TreeFileApp(App[None]):
    """The code tree and node detail of a saved run; q quits."""

    CSS_PATH = str(Path(__file__).resolve().parent.parent / "recode.tcss")
    TITLE = "recode-tui tree"
    BINDINGS = [Binding("q", "quit", "Quit", id="tree-file.quit")]

    def __init__(self, path: str | Path, tree: CodeTree, meta: dict[str, Any]) -> None:
        super().__init__()
        self.path, self.code_tree, self.meta = path, tree, meta

    def compose(self) -> ComposeResult:
        yield Static(meta_line(self.path, self.meta), id="tree-file-meta")
        with Vertical(id="left"):
            yield CodeTreeView(self.code_tree, id="code-tree")
            yield NodeDetail(id="detail")
        yield Footer()

    def on_mount(self) -> None:
        view = self.query_one(CodeTreeView)
        view.border_title = "Code tree (read-only)"
        self.query_one("#detail").border_title = "Node"
        # The same expansions that built the tree, so the view lays it out as the console did.
        view.apply(
            ev.LLMAnswered(node.id, child_ids=tuple(c.id for c in node.children))
            for node in self.code_tree.walk()
            if node.children
        )
        view.focus()

    @on(Tree.NodeHighlighted, "#code-tree")
    def show_node(self, event: Tree.NodeHighlighted) -> None:
        self.query_one(NodeDetail).show(self.code_tree.nodes.get(event.node.data or ""))


def run_tree_file(path: str) -> int:
    tree, meta = load_tree_file(path)
    TreeFileApp(path, tree, meta).run()
    return 0
