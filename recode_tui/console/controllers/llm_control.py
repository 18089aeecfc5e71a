"""Which LLM answers, and what the console does when it fails or proposes.

The agent asks `agent.llm` afresh at every call, so switching is just
assigning it while the run is paused. This non-visual widget owns that:
switching to another spec, typing one answer as the human and then handing
back, wrapping models in `ReviewLLM` in review mode, and showing a review
proposal in the answer editor. The agent and the LLMs know nothing of it.
It lives on the `DebugScreen` of its run and acts on that run; where the run
stands it says with a `RunStateChanged` message, which the screen applies, and
what the editor and the review bar show with the screen's requests (run/requests.py).
"""

from __future__ import annotations

import time

from dataclasses import dataclass

from textual.message import Message
from textual.widget import Widget

from agent.llm import LLM, Purpose, is_interactive
from agent.runtime import events as ev
from agent.runtime.debugger import Stop
from agent.runtime.stepper import Stepper
from agent.runtime.tree import NodeStatus
from mockllm.human import HumanLLM
from mockllm.review import Proposal, ReviewLLM
from recode_tui.console.run.hosts import RunScreen
from recode_tui.console.run.requests import CloseEditor, EditExpansion, FocusEditor, LoadSkeleton, ShowEditor, ShowReview
from recode_tui.console.run.run_state import RunState, RunStateChanged

FAILURE_HINT = "c retry · L switch LLM · t type the answer"


def is_human(llm: LLM) -> bool:
    return is_interactive(llm)


def llm_choices(current: str, profiles_path: str | None) -> list[tuple[str, str]]:
    """(spec, description) of every LLM the picker offers; profiles come from the profiles file."""
    from agent.llm.profiles import ProfileError, find_profiles_file, load_profiles

    choices = [("human", "type every expansion yourself"), ("demo", "the bundled demo script")]
    try:
        book = load_profiles(find_profiles_file(profiles_path))
    except ProfileError as exc:
        choices.append(("", f"(profiles: {exc})"))
        book = None
    if book is not None:
        for name, profile in book.profiles.items():
            where = profile.base_url or "api.openai.com"
            choices.append((f"profile:{name}", f"{profile.model} at {where}"))
    base = current.removeprefix("review:")
    if base not in {spec for spec, _ in choices} and ":" in base:
        choices.append((base, "the LLM this run started with"))
    return choices


class LLMControl(Widget):
    """Switches `agent.llm`, shows LLM failures, and runs the review of proposals."""

    DEFAULT_CSS = "LLMControl { display: none; }"

    @dataclass
    class ProposalReady(Message):
        """The model proposed an answer that the person must review."""

        proposal: Proposal

    @dataclass
    class Switched(Message):
        """`agent.llm` changed; `label` is its name."""

        label: str

    def __init__(self, profiles_path: str | None = None, review: bool = False) -> None:
        super().__init__()
        self.profiles_path = profiles_path
        self.review_mode = review
        self.restore_after: LLM | None = None  # the LLM to hand back to after one typed answer
        self.choose_after = False  # a fork's answer is typed: L chooses who answers after it
        self.reviewing: Proposal | None = None
        self.asked_again_at: float | None = None  # monotonic time of the last regenerate (the model clock's start)
        self.last_request: ev.LLMRequested | None = None
        self.kept_drafts: dict[str, str] = {}  # node id -> the person's text the run opened with (a resume's draft)

    def on_mount(self) -> None:
        self.kept_drafts = dict(self.run.drafts)
        agent = self.agent
        agent.host.observers.append(self._observe)
        self._install(agent.host.llm)

    @property
    def run(self) -> RunScreen:
        """The debug screen of this control's run (its agent, editor, status line)."""
        screen = self.screen
        assert isinstance(screen, RunScreen), "the LLM control lives on a run's screen"
        return screen

    @property
    def agent(self) -> Stepper:
        return self.run.agent

    def _enter(self, state: RunState, kind: str = "", reason: str = "") -> None:
        """Tell the run's screen where the run stands; the screen is the one that sets it.

        Posted to the screen itself (not bubbled), so it is queued ahead of any stop
        the agent reports after what this control does next.
        """
        self.run.post_message(RunStateChanged(state, kind, reason))

    @property
    def review(self) -> ReviewLLM | None:
        llm = self.agent.host.llm
        return llm if isinstance(llm, ReviewLLM) else None

    def _observe(self, event: ev.Event) -> None:
        if isinstance(event, ev.LLMRequested):
            self.last_request = event

    def _install(self, llm: LLM) -> None:
        """Make `llm` the agent's LLM, wrapped for review when review mode is on."""
        if self.review_mode and not is_human(llm) and not isinstance(llm, ReviewLLM):
            llm = ReviewLLM(llm)
        if isinstance(llm, ReviewLLM):
            llm.on_proposal = lambda proposal: self.post_message(self.ProposalReady(proposal))
        self.agent.host.llm = llm
        self.post_message(self.Switched(llm.name))

    # -- switching -------------------------------------------------------------

    def switch(self, spec: str) -> str:
        """Answer from now on with `spec`; raises UsageError (one line) for a bad spec."""
        from recode_tui.setup.build import episode_of, make_llm
        from recode_tui.setup.sessions import session_game

        control = self.run.session_control
        session = control.session if control is not None else None
        # `gold` and `demo` are the run's own: its episode (the session's) and its agent, never the default game
        episode = episode_of(session_game(session.folder)) if session is not None else None
        llm = make_llm(spec, self.profiles_path, episode, agent_name=self.agent.name)
        if control is not None:  # journaled: a resume or a fork goes on with this LLM
            control.record_llm(spec, self.profiles_path)
        if self.choose_after and self.restore_after is not None and is_human(self.agent.host.llm):
            self.restore_after = llm  # the person still writes the forked answer; this LLM goes on after it
            self.post_message(self.Switched("human"))
            return f"human, then {llm.name}"
        self.restore_after = None
        self._install(llm)
        return self.agent.host.llm.name

    def hand_over_after_answer(self, llm: LLM) -> None:
        """A fork: the person is answering; `llm` (or the one chosen with L meanwhile) goes on after it."""
        self.restore_after, self.choose_after = llm, True
        self.post_message(self.Switched("human"))

    def type_once(self) -> bool:
        """The person answers the awaited expansion; the LLM before comes back after it is taken."""
        if is_human(self.agent.host.llm):
            return False
        self.restore_after = self.agent.host.llm
        self.agent.host.llm = HumanLLM()
        self.post_message(self.Switched("human"))
        return True

    def after_stop(self, stop: Stop) -> None:
        """Hand back after a typed answer was taken; offer the ways out of an LLM failure."""
        if self.restore_after is not None and isinstance(stop.event, (ev.LLMAnswered, ev.RunFinished)):
            previous, self.restore_after = self.restore_after, None
            self.choose_after = False
            self._install(previous)
        if isinstance(stop.event, ev.LLMFailed):
            event = stop.event
            again = f", attempt {event.attempt}" if event.attempt > 1 else ""
            # The ways out first: a long error is cut at the end of the line.
            self.run.say("llm_error", f"LLM failed on {event.node_id}{again} ({FAILURE_HINT}): {event.error}")
            self.app.notify(stop.event.error, title="LLM failed: the run is paused", severity="error")

    def request_event(self) -> ev.LLMRequested | None:
        """The expansion an answer is awaited for (also after an LLM failure)."""
        last = self.run.debugger.last_event
        if isinstance(last, ev.LLMRequested):
            return last
        if isinstance(last, ev.LLMFailed) and self.last_request is not None:
            return self.last_request
        return None

    # -- review ------------------------------------------------------------------

    async def on_llmcontrol_proposal_ready(self, message: ProposalReady) -> None:
        await self.show_proposal(message.proposal)

    async def show_proposal(self, proposal: Proposal) -> None:
        run = self.run
        node = self.agent.current
        if node is None or self.review is None:
            return
        self.reviewing = proposal
        kept = self.kept_drafts.pop(node.id, None)  # typed in the review editor before a quit: offered back
        offered_back = bool(kept and kept.strip() and kept != proposal.text)
        run.drafts[node.id] = kept if offered_back and kept is not None else proposal.text
        context = proposal.context
        purpose = context.purpose if context else (
            Purpose.REPAIR if node.status is NodeStatus.ERROR else self.agent.traits.main_purpose)
        request = self.last_request
        attempt = request.attempt if request is not None and request.node_id == node.id else 1
        try:
            known = await self.agent.runner.names()
        except Exception:  # noqa: BLE001 - only the live check loses precision
            known = frozenset()
        model = self.review.model.name if self.review else "the model"
        again = f", round {proposal.round}" if proposal.round > 1 else ""
        role = request.role if request is not None and request.node_id == node.id else ""
        if offered_back:  # the person's own text: judged as typed, as the journal will record it
            run.post_message(EditExpansion(node.id, node.code, known, attempt, purpose,
                                           f"your answer from before the quit (⌃G asks {model} again): review it",
                                           role))
        else:
            cut = (f"; cut at max_tokens={proposal.cut_at}, judged as the run judges it (the line below)"
                   if proposal.cut_at is not None else "")
            run.post_message(EditExpansion(node.id, node.code, known, attempt, purpose,
                                           f"proposed by {model}{again}: review it{cut}", role,
                                           proposed=proposal.text, cut_at=proposal.cut_at))
        run.post_message(ShowReview("proposal", model, proposal.round))
        self._enter(RunState.REVIEWING, "human", f"review the proposal for {node.id}: ⌃S accept · e edit it first · "
                    "⌃G regenerate · ⌃O reject and type your own")
        # It arrives whenever the model answers: the focus stays put, so command keys
        # typed meanwhile never land in the proposed code; `e` moves it.
        run.post_message(ShowEditor())

    def take_submission(self, text: str) -> bool:
        """Apply the editor's text as the reviewed answer; False when no review is open."""
        review = self.review
        if review is None or not review.waiting:
            return False
        self.reviewing = None
        self.run.post_message(ShowReview("hidden"))
        self.run.post_message(CloseEditor("Applied; the run goes on…"))
        self._enter(RunState.RUNNING)
        review.accept(text)
        return True

    def regenerate(self) -> bool:
        review = self.review
        if review is None or not review.waiting:
            return False
        self.reviewing = None
        self.run.post_message(ShowReview("hidden"))
        self.run.post_message(CloseEditor(f"Asking {review.model.name} again…"))
        self._enter(RunState.RUNNING, "info", "regenerating…")
        self.asked_again_at = time.monotonic()
        review.regenerate()
        return True

    def reject(self) -> bool:
        """Throw the proposal away: the editor starts from the skeleton; ⌃S applies the typed text."""
        review = self.review
        if review is None or not review.waiting or review.rejected:
            return False
        review.reject()
        run = self.run
        run.post_message(LoadSkeleton())  # the agent's answer format
        run.post_message(ShowReview("rejected"))
        run.say("human", "proposal rejected: type your own answer, ⌃S applies it")
        run.post_message(FocusEditor("Type your own answer", force=True))
        return True
