"""The status line: where the run is, what it cost, and why it stopped."""

from __future__ import annotations

from rich.text import Text
from textual.timer import Timer
from textual.widget import Widget

STATE_STYLES = {
    "starting": ("◌ starting", "bold blue"),
    "paused": ("‖ paused", "bold yellow"),
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
    "paused": ("‖", "bold yellow"),
    "step": ("→", "bold cyan"),
    "error": ("!", "bold red"),
    "llm_error": ("!", "bold red"),
    "info": ("·", "dim"),
}


SEP = (" │ ", "dim")
RUNNING_SAID_AFTER = 0.1  # seconds a command runs before the line says so (a step is shown sooner)


class StatusBar(Widget):
    """Two lines: the run's numbers and state, then the last stop reason.

    Fixed height and render-based: an update repaints two lines, never the layout.
    Neither line ever wraps: line one drops its least useful parts to fit the
    width (the run state stays), line two drops the session's name when it does not
    fit whole; only a part too long for the line alone is cut with `…`.

    A command is said to be running once it has run for `RUNNING_SAID_AFTER`: most steps
    stop sooner, and the line then goes from one stop to the next without a flash of
    `running` in between (and the terminal without a frame to draw it).
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._text = Text()
        self._parts: list[tuple[Text, int]] = []  # line one, by priority (see `show`)
        self._reason = Text()  # line two
        self._short_reason = Text()  # line two when `_reason` does not fit
        self._session = Text()  # where the run is journaled: the end of line two
        self._activity = Text()  # shown instead of the reason while it lasts (a model answering)
        self._state = ""  # the run's state, as last given
        self._state_shown = ""  # the run's state the line says
        self._running_said: Timer | None = None  # set while a command's `running` waits to be said
        self._given: tuple[object, ...] = ()  # the figures `show` was last given

    def set_session(self, name: str | None, *, how: str = "new", failed: bool = False, opening: bool = False) -> None:
        """The session part, set by the session control (it changes rarely, apart from `show`).

        `name`: the session folder's (None: no session is open, `opening` one or not journaled);
        `how` it was opened (new, resumed, rewound, forked); `failed`: its journal could not be written.
        """
        if name is None:
            self._session = Text("resuming…" if opening else "not journaled", "dim")
        elif failed:
            self._session = Text.assemble(("✗ journal ", "bold red"), (name, "red"))
        else:
            mark = {"resumed": "↻ ", "rewound": "↳ ", "forked": "↳ "}.get(how, "")
            self._session = Text.assemble((f"{mark}session ", "dim"), (name, "cyan"))
        self._paint()

    def set_activity(self, text: str) -> None:
        """What the run is waiting for now ('' for nothing): line two shows it instead of the reason."""
        activity = Text.assemble(" ", ("◷", "bold cyan"), " ", (text, "cyan")) if text else Text()
        if activity != self._activity:
            self._activity = activity
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
        score: float | None = None,
        reward: float | None = None,
        nodes: int,
        llm_calls: int,
        tokens: tuple[int, int],
        cost: float,
        state: str,
        reason_kind: str = "info",
        reason: str = "",
        short_reason: str = "",
        llm: str = "",
        trusted: bool = False,
        agent_name: str = "ReCode",
    ) -> None:
        given = (episode, task_type, steps, max_steps, depth, score, reward, nodes, llm_calls, tokens, cost, state,
                 reason_kind, reason, short_reason, llm, trusted, agent_name)
        if given == self._given:
            return  # what the line says already (a stop gives its figures three or four times)
        self._given = given
        label, style = STATE_STYLES.get(state, (state, "bold"))
        if state == "done" and "won" in reason:
            style = "bold green"
        elif state == "done":
            style = "bold red"
        # (part, priority): on a narrow terminal the lowest priorities go first; the state never.
        parts: list[tuple[Text, int]] = [
            (Text.assemble((f" {agent_name} ", "bold reverse"), " ", (episode, "bold")), 8),
            (Text(f" · {task_type}", "cyan"), 2),
            (Text.assemble(SEP, (label, style)), 10),
            (Text("  TRUSTED ", "bold reverse red"), 9) if trusted else (Text(), 0),
            (Text.assemble(SEP, f"steps {steps}/{max_steps}"), 7),
            (Text.assemble(SEP, (f"score {score}/100", "bold")), 7) if score is not None else (Text(), 0),
            (Text.assemble(SEP, (f"reward {reward:.2f}", "bold")), 7) if reward is not None else (Text(), 0),
            (Text.assemble(SEP, f"depth {depth}"), 3),
            (Text.assemble(SEP, f"nodes {nodes}"), 3),
            (Text.assemble(SEP, f"LLM calls {llm_calls}"), 4),
            (Text.assemble(SEP, f"tokens {tokens[0]}+{tokens[1]}"), 1),
            (Text.assemble(SEP, f"${cost:.4f}"), 4),
            (Text.assemble(SEP, (f"LLM {short_label(llm)}", "cyan")), 6) if llm else (Text(), 0),
        ]
        self._parts = [(text, priority) for text, priority in parts if text]
        icon, icon_style = REASON_ICONS.get(reason_kind, REASON_ICONS["info"])
        reason_style = "bold" if reason_kind != "info" else "dim"
        self._reason = Text.assemble(" ", (icon, icon_style), " ", (reason or "", reason_style))
        self._short_reason = Text.assemble(" ", (icon, icon_style), " ", (short_reason, reason_style)) if short_reason else Text()
        self._state = state
        if state == "running" and self._state_shown != "running":
            if self._running_said is None:  # said once the command has run a moment, with the figures of then
                self._running_said = self.set_timer(RUNNING_SAID_AFTER, self._say_running)
            return
        if self._running_said is not None:
            self._running_said.stop()
            self._running_said = None
        self._paint()

    def _say_running(self) -> None:
        self._running_said = None
        self._paint()

    def on_resize(self) -> None:
        self._paint()

    def _paint(self) -> None:
        width = max(10, (self.size.width or 160) - 1)
        reason = self._activity or self._reason
        if not self._activity and self._short_reason and reason.cell_len > width:
            reason = self._short_reason
        line1 = fit_parts(self._parts, width)
        line2 = reason.copy()
        session = self._session.copy()
        # The stop reason first: the session's name only when it fits whole (`S` lists the sessions).
        if session and session.cell_len <= width - 3 - reason.cell_len:
            line2.truncate(width - session.cell_len - 3, overflow="ellipsis", pad=True)
            line2 = Text.assemble(line2, (" │ ", "dim"), session)
        line2.truncate(width, overflow="ellipsis")
        text = Text("\n").join([line1, line2])
        self._state_shown = self._state
        if text != self._text:
            self._text = text
            self.refresh()


def short_label(text: str, limit: int = 32) -> str:
    """An LLM label that fits: long script paths keep their start and their file name."""
    if len(text) <= limit:
        return text
    keep = limit - 1
    return f"{text[: keep // 3]}…{text[-(keep - keep // 3):]}"


def fit_parts(parts: list[tuple[Text, int]], width: int) -> Text:
    """Join `parts` in order within `width` cells: drop the lowest priorities first, then cut with `…`."""
    kept = list(parts)
    while len(kept) > 1 and sum(text.cell_len for text, _ in kept) > width:
        lowest = min(range(len(kept)), key=lambda i: (kept[i][1], -i))
        if kept[lowest][1] >= 10:
            break  # never drop the run state: cut the line instead
        del kept[lowest]
    line = Text.assemble(*(text for text, _ in kept))
    line.truncate(width, overflow="ellipsis")
    return line
