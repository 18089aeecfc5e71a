"""What the agent did, in one run's panes: each batch of events, each stop, an agent failure,
and the events a resume, rewind or fork replayed.

`RunEvents` is a controller the debug screen holds; the screen's `AgentDriver`
handlers hand it their messages. It owns the bookkeeping of the answers on their
way (the open request's prompt, the answer submitted until the agent takes it,
each node's last accepted answer for a repair) and the line a node is waiting on,
and says what each stop shows by posting requests (run/requests.py) to the run's
screen, which routes them to its panes. It is given the run's screen as
`hosts.RunScreen` and the run's `StopTools`.
"""

from __future__ import annotations

import time
from typing import Iterable

from agent.llm import Purpose
from agent.runtime import events as ev
from agent.runtime.debugger import Stop, StopReason, describe_event
from agent.runtime.event_text import finish_verdict
from agent.runtime.tree import Node
from recode_tui.console.run.hosts import RunScreen
from recode_tui.console.run.requests import (
    CloseEditor,
    EditExpansion,
    RefreshAgentView,
    ShowNode,
    ShowPrompt,
    ShowStop,
    ShowVariables,
    StopShown,
)
from recode_tui.console.run.run_state import RunState
from recode_tui.console.controllers.stop_tools import StopTools


def answered_title(node: Node, purpose: str, verdict: str, prompt: str) -> str:
    """The prompt pane's title for a call of `node` that has ended (`verdict`: accepted, rejected: why)."""
    return f"Prompt of {node.id} `{node.code.split(chr(10), 1)[0]}` — {purpose}, {verdict}, {len(prompt):,} chars"


class RunEvents:
    """The agent's events and stops of one run, and what its panes are asked to show of them."""

    def __init__(self, run: RunScreen, stop_tools: StopTools) -> None:
        self.run = run
        self.stop_tools = stop_tools
        self.pending_prompt: tuple[str, str] | None = None  # (title, prompt) of the open request
        self.asked: ev.LLMRequested | None = None  # the request whose prompt the pane shows, until it is answered
        # An accepted answer leaves the drafts: the node's next call (a Plan-and-Execute turn, a
        # ReCAP refine) starts from the agent's template; a repair starts from the answer that failed.
        self.submitted_node: str | None = None  # the node of the answer submitted, until it is taken
        self.accepted_answers: dict[str, str] = {}  # node id -> its last accepted answer, for a repair
        self.running_line: tuple[str, int] | None = None  # (node id, line) of the node's last run() call

    def note(self, events: Iterable[ev.Event]) -> None:
        """The bookkeeping of a batch of events the panes are shown: the open request, the answers taken."""
        run = self.run
        for event in events:
            if isinstance(event, ev.ActionSent):
                self.running_line = (event.node_id or "", event.line) if event.line else None
            elif isinstance(event, (ev.NodeStarted, ev.NodeCompleted, ev.NodeError, ev.StubFound, ev.RunFinished)):
                self.running_line = None
            if isinstance(event, ev.LLMRequested):
                node = run.agent.tree.nodes.get(event.node_id or "")
                code = node.code.split("\n", 1)[0] if node else ""
                title = (
                    f"Prompt for {event.node_id} `{code}` — {event.purpose}, attempt {event.attempt}, "
                    f"{len(event.prompt):,} chars"
                )
                self.pending_prompt, self.asked = (title, event.prompt), event
                run.post_message(ShowPrompt(title, event.prompt))
            elif isinstance(event, (ev.LLMAnswered, ev.LLMRejected)) and self.asked is not None \
                    and event.node_id == self.asked.node_id:
                # the pane says how the call ended, as it does for a node selected later: the same title
                # whichever comes last (the tree's cursor reaching the node, or this event)
                verdict = "accepted" if isinstance(event, ev.LLMAnswered) else f"rejected: {event.reason}"
                node = run.agent.tree.nodes.get(event.node_id or "")
                if node is not None:
                    run.post_message(ShowPrompt(answered_title(node, self.asked.purpose, verdict, self.asked.prompt),
                                                self.asked.prompt))
            if isinstance(event, (ev.LLMAnswered, ev.RunFinished)):
                self.pending_prompt, self.asked = None, None
            if isinstance(event, ev.LLMAnswered) and self.submitted_node is not None:
                text = run.drafts.pop(self.submitted_node, None)
                if text is not None:
                    self.accepted_answers[self.submitted_node] = text
                self.submitted_node = None
            elif isinstance(event, ev.LLMRejected):
                self.submitted_node = None  # refused: its text stays the node's draft, to be corrected

    def stopped(self, stop: Stop) -> None:
        """Where the run stands at `stop`, and why; the screen shows the rest (`after_stop`) once the
        LLM control has had its word on the stop."""
        run = self.run
        run.post_message(ShowStop())
        debugger = run.debugger
        if debugger.done:
            run.enter_state(RunState.DONE)
        elif debugger.awaiting_human:
            run.enter_state(RunState.AWAITING)
        else:
            run.enter_state(RunState.PAUSED)
        self.stop_tools.after_stop(stop)
        # The task rarely fits the status line: the Observation tab below has it whole.
        short = "run started: the task is in the Observation tab (O)" if isinstance(stop.event, ev.RunStarted) else ""
        run.say(stop.reason.kind, stop.reason.text, short)
        run.post_message(RefreshAgentView())

    async def after_stop(self, stop: Stop) -> None:
        """The namespace, the watches and the editor at `stop`; then the stop is counted as shown."""
        run = self.run
        debugger = run.debugger
        try:
            summaries = await run.agent.runner.variables()
        except Exception:  # noqa: BLE001 - the namespace may be mid-change in a thread
            summaries = None
        if not run.is_attached:  # this run was replaced (or the app closed) while we waited
            return
        run.post_message(ShowVariables(summaries, self.env_choices()))
        self.stop_tools.evaluate_watches()
        if debugger.awaiting_human and isinstance(stop.event, ev.LLMRequested):
            await self.open_editor(stop.event, stop.reason.text if "refused" in stop.reason.text else "")
        else:
            run.post_message(CloseEditor("The run is over." if debugger.done else "No expansion is awaited.",
                                         refocus=True))
        if run.session_control is not None:  # a journal write that failed during the command is said at its stop
            run.session_control.check_journal()
        run.post_message(StopShown())

    def failed(self, error: str) -> None:
        run = self.run
        run.enter_state(RunState.DONE if run.debugger.done else RunState.PAUSED, "error", error)
        run.notify(error, title="Agent error", severity="error")
        run.post_message(StopShown())

    def env_choices(self) -> list[str]:
        """The actions the environment accepts now, when it can say (`env.choices()`, e.g. WebShop's
        clickables): read at a stop, when no step is running."""
        env = self.run.agent.env
        try:
            return list(env.choices())
        except Exception:  # noqa: BLE001 - an environment that cannot say shows nothing
            return []

    async def open_editor(self, event: ev.LLMRequested, note: str, force: bool = False) -> None:
        """The editor on the expansion `event` awaits, with the focus unless keys were typed meanwhile."""
        run = self.run
        node = run.agent.tree.nodes[event.node_id or ""]
        try:
            known = await run.agent.runner.names()
        except Exception:  # noqa: BLE001
            known = frozenset()
        if event.purpose == Purpose.REPAIR and node.id not in run.drafts and node.id in self.accepted_answers:
            run.drafts[node.id] = self.accepted_answers[node.id]
        run.post_message(EditExpansion(node.id, node.code, known, event.attempt, event.purpose, note, event.role,
                                       focus_why=f"Type the {run.agent.traits.answer_words.noun} of {node.id}", force=force))

    def line_of(self, node: Node | None) -> int:
        """The line of `node`'s code that is running (waiting in run()), or 0."""
        if node is None or self.running_line is None or self.running_line[0] != node.id:
            return 0
        return self.running_line[1]

    def node_selected(self, node_id: str) -> None:
        """The tree's cursor is on `node_id`: its details, and the prompt of its last LLM call."""
        run = self.run
        node = run.agent.tree.nodes.get(node_id)
        run.post_message(ShowNode(node, self.line_of(node)))
        if node is None:
            return
        if node.llm_calls:
            last = node.llm_calls[-1]
            state = "accepted" if last.accepted else f"rejected: {last.reason}"
            run.post_message(ShowPrompt(answered_title(node, last.purpose, state, last.prompt), last.prompt))
        elif self.pending_prompt is not None:
            run.post_message(ShowPrompt(*self.pending_prompt))

    def replay_stop(self, events: list[ev.Event], how: str) -> Stop:
        """Where a replay (`how`: resumed, rewound, forked) ended: the debugger is set there, and the stop to show."""
        debugger = self.run.debugger
        for event in events:
            if isinstance(event, ev.StubFound):
                debugger.stub_name = event.name
            elif isinstance(event, ev.NodeError):
                debugger.stub_name = ""
        last = next((e for e in reversed(events) if not isinstance(e, ev.StatementRun)), events[-1])
        debugger.last_event, debugger.events_seen = last, len(events)
        if isinstance(last, ev.RunFinished):
            verdict = finish_verdict(last, "episode won", "episode failed")
            reason = StopReason("finished", f"{how}: {verdict} — {last.steps} steps")
        elif debugger.awaiting_human:
            reason = StopReason("human", f"{how}: awaiting your expansion of {last.node_id}")
        else:
            reason = StopReason("step", f"{how} at: {describe_event(last)}")
        stop = Stop(last, reason, len(events))
        debugger.last_stop, debugger.stopped_at = stop, time.monotonic()
        return stop
