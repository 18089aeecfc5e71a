"""A node's code (highlighted), thought, observations, error, and what each LLM answer cost."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from agent.runtime.tree import LLMExchange, Node, NodeStatus
from recode_tui.setup.shown import shown

MAX_OBSERVATION_LINES = 200


class NodeDetail(VerticalScroll):
    """Read-only detail of the selected node (Rich Syntax, never a TextArea)."""

    def __init__(self, *, awaiting_llm_word: str = NodeStatus.AWAITING_LLM.words, id: str | None = None) -> None:
        """`awaiting_llm_word`: the agent's word for a node waiting on its LLM call (ReCode's `stub`)."""
        super().__init__(id=id)
        self.awaiting_llm_word = awaiting_llm_word

    def compose(self):
        yield Static("", id="detail-body")

    _key: tuple | None = None
    shown_id = ""  # the node shown ('' for none)

    def show(self, node: Node | None, line: int = 0) -> None:
        """`line`: the line of the node's code running now (pudb's arrow), 0 for none."""
        bodies = self.query("#detail-body")
        if not bodies:  # not composed yet, or already taken down: an agent swap (resume) recomposes the panes
            return
        body = bodies.first(Static)
        key = None if node is None else (
            node.id, node.status, len(node.observations), node.error, node.thought, len(node.children),
            len(node.llm_calls), line,
        )
        if key == self._key and key is not None:
            return  # nothing new: no re-layout
        self._key = key
        self.shown_id = node.id if node is not None else ""
        from rich.syntax import Syntax  # pygments: imported on first use, after the first paint

        if node is None:
            body.update("")
            return
        parts: list = [
            Text.assemble(
                (f"{node.id}", "bold"),
                (f"  {self.awaiting_llm_word if node.status is NodeStatus.AWAITING_LLM else node.status.words}", "magenta"),
                (f"  depth {node.depth}", "dim"),
                (f"  {len(node.children)} children" if node.children else "", "dim"),
            ),
            Syntax(node.code, "python", theme="ansi_dark", word_wrap=True, background_color="default",
                   line_numbers=bool(line), highlight_lines={line} if line else None),
        ]
        if line:
            parts.append(Text(f"▶ running line {line}", style="bold yellow"))
        if node.thought:
            parts.append(Text.assemble(("thought ", "bold cyan"), shown(node.thought, newlines=True)))
        if node.children:  # what the stub became, not just the bare call
            parts.append(Text("expanded into", style="bold cyan"))
            for child in node.children:
                parts.append(Text.assemble((f"  {child.id} ", "dim"), shown(child.code.split("\n", 1)[0]),
                                           (" …" if "\n" in child.code else "", "dim")))
        if node.observations:
            lines = node.observations
            cut = len(lines) - MAX_OBSERVATION_LINES
            if cut > 0:
                lines = lines[-MAX_OBSERVATION_LINES:]
            parts.append(Text("observations", style="bold cyan"))
            if cut > 0:
                parts.append(Text(f"  … {cut} earlier lines", style="dim"))
            parts.append(shown("\n".join(f"  {line}" for line in lines), newlines=True))
        if node.error:
            parts.append(Text.assemble(("error ", "bold red"), shown(node.error, "red", newlines=True)))
        rejected = [e for e in node.llm_calls if not e.accepted]
        if rejected:
            parts.append(Text.assemble(("rejected answers ", "bold yellow"), str(len(rejected)), ": ",
                                       shown(rejected[-1].reason, newlines=True)))
        if node.llm_calls:
            parts.append(exchange_usage(node.llm_calls))
        body.update(Group(*parts))


def exchange_usage(exchanges: list[LLMExchange]) -> Text:
    """One line per LLM answer of the node: who answered, tokens in+out, cost, time taken, the verdict."""
    text = Text("answers", style="bold cyan")
    for number, exp in enumerate(exchanges, start=1):
        verdict = "accepted" if exp.accepted else "rejected"
        text.append(
            f"\n  #{number} {exp.purpose} by {exp.source or '?'}: "
            f"tokens {exp.input_tokens}+{exp.output_tokens} · ${exp.cost:.4f} · {exp.seconds:.2f} s · {verdict}"
        )
        if exp.person_seconds:
            text.append(f" · person {exp.person_seconds:.2f} s", style="magenta")
        if exp.proposed is not None and exp.proposed.strip() != exp.answer.strip():
            text.append(" · differs from the model's proposal", style="yellow")
    return text
