"""A node's code (highlighted), thought, observations, error, and what each LLM answer cost."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.strip import Strip
from textual.visual import Visual, visualize

from agent.runtime.tree import LLMExchange, Node, NodeStatus
from recode_tui.console.support.textual_compat import SteadyScrollbars
from recode_tui.setup.shown import shown

MAX_OBSERVATION_LINES = 200


class NodeDetail(SteadyScrollbars, can_focus=True):
    """Read-only detail of the selected node (Rich Syntax, never a TextArea).

    The pane draws its own lines (a line-API `ScrollView`), wrapped to its width: a node with more or
    fewer lines than the last changes only the pane's scrollable height, never a widget's size, so a
    stop costs the screen one layout, not a cascade of them (a body widget that grows is resized by
    one layout, which asks for another, and its scrollbar coming or going for a third)."""

    ALLOW_MAXIMIZE = False  # zoomed by the console's own `z` (screen.maximized), as the other panes
    DEFAULT_CSS = """
    NodeDetail {
        overflow-x: hidden;
    }
    """

    def __init__(self, *, awaiting_llm_word: str = NodeStatus.AWAITING_LLM.words, id: str | None = None) -> None:
        """`awaiting_llm_word`: the agent's word for a node waiting on its LLM call (ReCode's `stub`)."""
        super().__init__(id=id)
        self.awaiting_llm_word = awaiting_llm_word
        self.content: RenderableType = ""  # what the pane shows: a Rich renderable
        self._lines: list[Strip] = []  # `content` drawn for `_lines_size`
        self._lines_size = Size(0, 0)  # the pane's inner size the lines were drawn for
        self._lines_style: object = None  # the pane's style the lines were drawn in

    _key: tuple | None = None
    shown_id = ""  # the node shown ('' for none)

    def _draw(self) -> None:
        """Draw `content` to the pane's width, as a Static of that width would, and size the scrollable
        area to it: the width left of the scrollbar when the lines need one."""
        width, height = self.content_size
        if width <= 0:
            return
        visual = visualize(self, self.content)
        lines = Visual.to_strips(self, visual, width, None, self.visual_style)
        scrollbar = len(lines) > height and self.styles.overflow_y == "auto"
        if scrollbar:
            width -= self.styles.scrollbar_size_vertical
            lines = Visual.to_strips(self, visual, width, None, self.visual_style)
        self._lines, self._lines_size, self._lines_style = lines, self.content_size, self.visual_style
        if scrollbar != self.show_vertical_scrollbar:
            # shown or hidden now, so the layout the new height asks for places it (Textual would decide
            # it during that layout, and ask for another)
            self.show_vertical_scrollbar = scrollbar
            self.vertical_scrollbar.display = scrollbar
        # A layout only when the scrollable area changes: lines that fit leave it the pane's height, so
        # a node of fewer lines than the last, both fitting, lays nothing out (nothing scrolls either way).
        self.virtual_size = Size(width, max(len(lines), height))
        self.refresh()

    def on_resize(self, event: events.Resize) -> None:
        """A new width wraps the lines again; a new height may want the scrollbar, or no longer."""
        if self.content_size != self._lines_size:
            self._draw()

    def notify_style_update(self) -> None:
        """Another theme (or any change of the pane's colours): the lines drawn again in it."""
        super().notify_style_update()
        if self._lines and self.visual_style != self._lines_style:
            self._draw()

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        style = self.visual_style.rich_style
        index = scroll_y + y
        if index >= len(self._lines):
            return Strip.blank(width, style)
        return self._lines[index].crop_extend(scroll_x, scroll_x + width, style)

    def update(self, content: RenderableType) -> None:
        """Show `content` in place of what the pane shows."""
        self.content = content
        self._draw()

    def show(self, node: Node | None, line: int = 0) -> None:
        """`line`: the line of the node's code running now (pudb's arrow), 0 for none."""
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
            self.update("")
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
        self.update(Group(*parts))


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
