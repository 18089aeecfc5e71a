"""The status line: where the run is, what it cost, and why it stopped."""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

STATE_STYLES = {
    "starting": ("◌ starting", "bold blue"),
    "paused": ("⏸ paused", "bold yellow"),
    "running": ("▶ running", "bold green"),
    "awaiting expansion": ("✎ awaiting expansion", "bold magenta"),
    "reviewing": ("✎ reviewing a proposal", "bold magenta"),
    "done": ("■ done", "bold"),
}

REASON_ICONS = {
    "breakpoint": ("●", "bold red"),
    "condition_error": ("●", "bold red"),
    "human": ("✎", "bold magenta"),
    "finished": ("■", "bold"),
    "paused": ("⏸", "bold yellow"),
    "step": ("→", "bold cyan"),
    "error": ("!", "bold red"),
    "llm_error": ("!", "bold red"),
    "info": ("·", "dim"),
}


class StatusBar(Widget):
    """Two lines: the run's numbers and state, then the last stop reason.

    Fixed height and render-based: an update repaints two lines, never the layout.
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._text = Text()
        self._lines = (Text(), Text())
        self._session = Text()  # where the run is journaled: the end of line two

    def set_session(self, text: Text) -> None:
        """The session part, set by the session control (it changes rarely, apart from `show`)."""
        self._session = text
        self._paint()

    def render(self) -> Text:
        return self._text

    @property
    def text(self) -> str:
        return self._text.plain

    def show(
        self,
        *,
        episode: str,
        task_type: str,
        steps: int,
        max_steps: int,
        depth: int,
        nodes: int,
        llm_calls: int,
        tokens: tuple[int, int],
        cost: float,
        state: str,
        reason_kind: str = "info",
        reason: str = "",
        llm: str = "",
        trusted: bool = False,
    ) -> None:
        label, style = STATE_STYLES.get(state, (state, "bold"))
        if state == "done" and "won" in reason:
            style = "bold green"
        elif state == "done":
            style = "bold red"
        sep = (" │ ", "dim")
        line1 = Text.assemble(
            (" ReCode ", "bold reverse"),
            " ",
            (episode, "bold"),
            (f" · {task_type}", "cyan"),
            sep,
            (label, style),  # early: the run state must never be cut off
            ("  TRUSTED ", "bold reverse red") if trusted else "",
            sep,
            f"steps {steps}/{max_steps}",
            sep,
            f"depth {depth}",
            sep,
            f"nodes {nodes}",
            sep,
            f"LLM calls {llm_calls}",
            sep,
            f"tokens {tokens[0]}+{tokens[1]}",
            sep,
            f"${cost:.4f}",
            sep,
            (f"LLM {short_label(llm)}", "cyan") if llm else "",
        )
        icon, icon_style = REASON_ICONS.get(reason_kind, REASON_ICONS["info"])
        line2 = Text.assemble(" ", (icon, icon_style), " ", (reason or "", "bold" if reason_kind != "info" else "dim"))
        self._lines = (line1, line2)
        self._paint()

    def _paint(self) -> None:
        line1, reason = self._lines
        width = max(10, (self.size.width or 160) - 1)
        line2 = reason.copy()
        if self._session:
            line2.truncate(max(10, width - len(self._session) - 3), overflow="ellipsis", pad=True)
            line2 = Text.assemble(line2, (" │ ", "dim"), self._session)
        line2.truncate(width, overflow="ellipsis")
        text = Text("\n").join([line1, line2])
        if text != self._text:
            self._text = text
            self.refresh()


def short_label(text: str, limit: int = 32) -> str:
    """An LLM label that fits: long script paths keep their start and their file name."""
    if len(text) <= limit:
        return text
    keep = limit - 1
    return f"{text[: keep // 3]}…{text[-(keep - keep // 3):]}"
