"""What a run's controllers ask its screen to show: messages the `DebugScreen` routes to its panes.

The controllers (controllers/), the LLM control and the session control never hold a pane: they
post one of these to the run's screen, the one owner of the panes, which hands it to the pane
it concerns (screens/pane_routes.py). A screen handles its messages one at a time in the order
they were posted, so a stop's requests are all shown before its `StopShown` is handled.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from textual.message import Message

if TYPE_CHECKING:
    from agent.llm import LLM
    from agent.runtime import events as ev
    from agent.runtime.tree import Node
    from agent.runtime.varlist import VariableSummary


@dataclass
class StatusChanged(Message, bubble=False):
    """Where the run stands, or why, changed: the status line is redrawn."""


@dataclass
class ShowEvents(Message, bubble=False):
    """Events the agent produced outside a driver command (the shell line, a replay): into the panes."""

    events: tuple[ev.Event, ...]


@dataclass
class ShowPrompt(Message, bubble=False):
    """The Prompt tab shows `prompt` under `title`."""

    title: str
    prompt: str


@dataclass
class EditExpansion(Message, bubble=False):
    """The editor opens on `node`'s expansion (an awaited answer, a proposal to review)."""

    node_id: str
    code: str
    known: frozenset[str]
    attempt: int
    purpose: str
    note: str
    role: str
    focus_why: str = ""  # given: the editor takes the focus too (see `DebugScreen.focus_editor`)
    force: bool = False
    proposed: str | None = None  # a model's answer under review: judged as the model's while unedited
    cut_at: int | None = None  # the model's max_tokens cut that answer


@dataclass
class FocusEditor(Message, bubble=False):
    """The editor takes the focus, unless keys were typed since the last command (`force`: even then)."""

    why: str
    force: bool = False


@dataclass
class ShowEditor(Message, bubble=False):
    """The editor's tab is shown; the focus stays where it is."""


@dataclass
class CloseEditor(Message, bubble=False):
    """No answer is awaited: the editor says `note`; `refocus` gives the focus back to the tree."""

    note: str
    refocus: bool = False


@dataclass
class SubmitEditor(Message, bubble=False):
    """The editor's text is submitted, as ctrl+s does."""


@dataclass
class LoadSkeleton(Message, bubble=False):
    """The editor starts over from the agent's answer format."""


@dataclass
class ShowReview(Message, bubble=False):
    """The review bar: a model's proposal (`model`, `round`), a rejected one, or hidden."""

    state: Literal["proposal", "rejected", "hidden"]
    model: str = ""
    round: int = 0


@dataclass
class ShowStop(Message, bubble=False):
    """A stop is shown: the tree follows the current node and the selected node's details are redrawn."""


@dataclass
class ShowVariables(Message, bubble=False):
    """The namespace at this stop, and the actions the environment accepts now (None: unchanged)."""

    summaries: list[VariableSummary] | None
    choices: list[str] = field(default_factory=list)


@dataclass
class ShowNode(Message, bubble=False):
    """The node pane shows `node` (waiting on `line` of its code when not 0)."""

    node: Node | None
    line: int = 0


@dataclass
class RefreshBreakpoints(Message, bubble=False):
    """The breakpoint list is redrawn (`highlight`: the number of the one a stop hit)."""

    highlight: int | None = None


@dataclass
class MarkWatches(Message, bubble=False):
    """The watches a `changes` breakpoint stops on are marked in the watch list."""

    expressions: frozenset[str]


@dataclass
class AddWatch(Message, bubble=False):
    """The watch list watches `expression` too."""

    expression: str


@dataclass
class EvaluateWatches(Message, bubble=False):
    """The watches are computed again, unless code is running (the next stop will)."""

    new_stop: bool = True


@dataclass
class RefreshAgentView(Message, bubble=False):
    """The agent's own tab is redrawn from the agent (at stops only)."""


@dataclass
class HandOver(Message, bubble=False):
    """A fork: the person answers first, then `llm` goes on (the LLM control's work)."""

    llm: LLM


@dataclass
class SelectNode(Message, bubble=False):
    """The code tree opens the way to `node_id` and puts its cursor there (`tui --at NODE`)."""

    node_id: str


@dataclass
class ShowSession(Message, bubble=False):
    """The status line names the open session (None: not journaled), how it was opened, its state."""

    name: str | None
    how: str
    failed: bool
    opening: bool


@dataclass
class StopShown(Message, bubble=False):
    """Every request of a stop (or an agent failure) is shown: the screen publishes its `stop_shown`."""


__all__ = [
    "AddWatch", "CloseEditor", "EditExpansion", "EvaluateWatches", "FocusEditor", "HandOver", "LoadSkeleton",
    "MarkWatches", "RefreshAgentView", "RefreshBreakpoints", "ShowEditor", "ShowEvents", "ShowNode", "ShowPrompt",
    "SelectNode", "ShowReview", "ShowSession", "ShowStop", "ShowVariables", "StatusChanged", "StopShown", "SubmitEditor",
]
