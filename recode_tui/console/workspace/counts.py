"""The token table of a rendered prompt: the whole and each part."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from agent.runtime.prompt_parts import RenderedPrompt
from agent.llm.tokens import TokenCounter


def token_table(rendered: RenderedPrompt, counter: TokenCounter, baseline: int | None = None) -> Table:
    """Rows per part, then the total; `baseline` is the total before the edits (for the change)."""
    title = f"Prompt: {counter.count(rendered.text).label()}"
    table = Table(title=title, title_justify="left", show_header=False, box=None, padding=(0, 1), expand=True)
    table.add_column("part", style="bold")
    table.add_column("tokens", justify="right")
    table.add_column("chars", justify="right", style="dim")
    for part, text in rendered.parts.items():  # in the prompt's order
        table.add_row(part, counter.count(text).short(), f"{len(text):,} ch")
    total = counter.count(rendered.text)
    change = Text()
    if baseline is not None and total.tokens != baseline:
        delta = total.tokens - baseline
        change = Text(f" ({delta:+,} vs unedited)", style="yellow")
    table.add_row(Text("total"), Text(total.short(), style="bold") + change, f"{len(rendered.text):,} ch")
    return table
