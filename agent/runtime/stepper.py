"""The agent seam: what every agent is to the debugger, the journal, replay, eval and the console.

An agent is a stepper: `await step()` does the smallest unit of work and
returns the event that says what happened. Each agent (ReCode, ReAct, ...)
subclasses `Stepper` and writes its episode as one async generator
(`episode`, with the public helpers below); this class owns what they
share, so no layer above needs to know which agent it drives:

- the loop (`step`, `run`, `stop`, `close`, `done`, `finished`), inherited
  from `agent.runtime.step_loop.StepLoop`, the plumbing no agent overrides,
- the LLM call with its generic events (`ask`: requested, failed, rejected
  with the reason and re-asked, answered), the LLM per role and the counts,
- environment actions as events (`act`: action sent, observation received),
- the structure to draw (`tree`: ReCode's code tree; other agents draw their
  turns, cells, plan steps or subtasks as nodes of the same kind),
- statements a person runs at a stop (`run_statement`), kept for replays.

What an author uses beside the class lives in small modules re-exported here:
`agent.runtime.agent_view` (what `view()` returns), `agent.runtime.costs`
(the per-role counts), `agent.runtime.actions` (the action caps, end reasons).
The event types are in `agent.runtime.events`; `LLMRequested/Received/Rejected`
are the generic LLM-call events (their `purpose` and `role` say which call).
"""

from __future__ import annotations

import inspect
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, AsyncIterator, Callable, ClassVar, Mapping

from agent.llm import LLM, Completion, LLMError, StubContext, Usage
from agent.llm.routing import RoutedLLM
from agent.runtime.actions import (
    MAX_ACTION_CHARS,
    MAX_REFUSED_ACTIONS,
    TooManyRefusals,
    check_refusals,
    cut_action,
    end_reason,
    too_long,
)
from agent.runtime.agent_view import AgentView, ViewLine, ViewSection
from agent.runtime.capabilities import ScriptedAnswer
from agent.runtime.costs import (
    MAIN_ROLE,
    RoleStats,
    Stats,
    Tally,
    answered_event,
    exchange_record,
    rejected_event,
    timed,
)
from agent.runtime.cut import cut_verdict
from agent.runtime.events import (
    ActionSent,
    Event,
    LLMAnswered,
    LLMFailed,
    LLMRequested,
    NodeCompleted,
    NodeError,
    NodeStarted,
    ObservationReceived,
    RunFinished,
    RunStarted,
    VariablesChanged,
)
from agent.runtime.limits import Limits  # defined apart so the command line's parser can read its defaults cheaply
from agent.runtime.prompts import PromptContext, PromptSet, RecentActions, rejected_text, rewrite_note
from agent.runtime.runner import ActionRequest, CodeRunner, NodeOutcome
from agent.runtime.step_loop import StepLoop
from agent.runtime.step_loop import T as T  # old code imported the stepper's TypeVar
from agent.runtime.tree import CodeTree, Node, NodeStatus
from agent.runtime.verdict import Verdict, oversized
from envs.base import Env

# Names agent authors and tests import from here (the extension API), defined in their own modules.
__all__ = [
    "MAIN_ROLE", "MAX_ACTION_CHARS", "MAX_REFUSED_ACTIONS", "AgentView", "Answer", "Limits", "RoleStats", "Stats",
    "Stepper", "TooManyRefusals", "ViewLine", "ViewSection", "cut_action", "too_long",
]


@dataclass(frozen=True)
class Answer:
    """An accepted LLM answer, handed from `ask` to the agent (not an event: the agent
    yields its own `LLMAnswered` once it knows the child nodes)."""

    completion: Completion
    prompt: str
    verdict: Verdict
    attempt: int


class Stepper(StepLoop):
    """One agent's run over one environment episode, one event per `step()`.

    Subclasses set the class attributes and write `episode` (older agents:
    `_episode`). The constructor is the same for every agent, so the registry
    builds any of them the same way: `(env, llm, runner, limits=...,
    prompts=..., options=...)`.
    """

    name: ClassVar[str] = "agent"  # the registry name (`--agent NAME`), recorded in journals
    display_name: ClassVar[str] = "Agent"  # as the status line shows it
    roles: ClassVar[tuple[str, ...]] = (MAIN_ROLE,)  # the LLM roles, in the order the console lists them
    every_call_words: ClassVar[str] = "every LLM call"  # how the default breakpoint reads for this agent
    structure_title: ClassVar[str] = "Steps"  # the title of the pane that draws `tree`
    default_prompts: ClassVar[Path | None] = None  # the prompt set used when --prompts is not given
    option_defaults: ClassVar[dict[str, Any]] = {}  # agent options (--agent-option KEY=VALUE) and defaults
    # An agent whose runner keeps no variables says what it keeps instead (the console's Variables
    # pane shows it in place of an empty table); '' for ReCode and CodeAct, whose code keeps them.
    variables_note: ClassVar[str] = ""
    root_code: ClassVar[str] = "task"
    main_prompt_file: ClassVar[str] = "expand.txt"  # what makes a folder this agent's prompt set
    view_title: ClassVar[str] = ""  # the title of the console's agent tab; "" = the agent has no view
    # What the agent offers the front ends (agent.runtime.capabilities says what each one means):
    answers_are_code: ClassVar[bool] = False  # its answers are Python (transcripts fence them as code)
    code_tree: ClassVar[bool] = False  # its answers expand a code tree (`export --tree`)
    prompt_workspace: ClassVar[bool] = False  # the console's prompt workspace (`W`) edits its prompt set
    demo_scripts: ClassVar[Mapping[str, Path]] = {}  # environment -> the script `--llm demo` plays there

    @classmethod
    def gold_answers(cls, actions: list[str]) -> list[ScriptedAnswer] | None:
        """Its own answers that play a known action sequence (`--llm gold`), or None: it cannot."""
        return None

    def __init__(
        self,
        env: Env,
        llm: LLM,
        runner: CodeRunner,
        limits: Limits = Limits(),
        prompts: PromptSet | None = None,
        options: dict[str, Any] | None = None,
    ) -> None:
        if runner is None:
            raise TypeError(f"{type(self).__name__} needs a runner: build one with "
                            "agent.sandbox.settings.RunnerSettings().make_runner()")
        super().__init__(env, runner)
        self.llm = llm  # the LLM of every role that has none of its own (the console's L switches it)
        self.role_llms: dict[str, LLM] = {}
        self.limits = limits
        if prompts is None:
            prompts = PromptSet(self.default_prompts) if self.default_prompts else PromptSet()
        self.prompts = prompts
        self.options: dict[str, Any] = {**self.option_defaults, **(options or {})}
        self.preset = ""  # the named preset the run was built with (agent.agents.presets), for the journal
        self.tree: CodeTree = CodeTree(self.root_code)
        self.current: Node | None = None
        self.task = ""
        self.llm_calls = 0
        self.usage, self._tally = Usage(), Tally()  # the run's tokens, as the tally counts them
        self.cost = 0.0
        self.llm_seconds = 0.0  # waiting for answers, all calls together
        self.person_seconds = 0.0  # a person typing or reviewing answers, kept apart from llm_seconds
        self.llm_failures = 0  # model calls that raised LLMError
        self.role_stats: dict[str, RoleStats] = {}
        self.finished_reason = ""  # set when a limit stops the run mid-episode
        self.refused_actions = 0  # actions refused as too long: they take no step, so they are capped apart
        self.recent = RecentActions()  # the last actions, for prompts that show them
        self.observers.append(self.recent.observe)
        self.answering_since: float | None = None  # monotonic time the LLM was asked, while it answers

    # -- what a subclass writes ----------------------------------------------------

    def episode(self) -> AsyncIterator[Event]:
        """The run, as one async generator of events ending with `self.finish(...)` (or `close_root`).

        A new agent overrides this one, using the public helpers below (`start_episode` or
        `reset_env`, `add_child`, `started`, `ask`, `accepted`, `act`, `completed`, `close_root`, `finish`),
        as the five bundled agents do; an agent written for the older private hook `_episode` still runs.
        """
        return self._episode()

    def _episode(self) -> AsyncIterator[Event]:
        """The run (the name agents written before `episode` override)."""
        raise NotImplementedError(f"{type(self).__name__} must define episode()")

    def judge(self, text: str, purpose: str, role: str = MAIN_ROLE, *, typed: bool = True,
              known: frozenset[str] = frozenset()) -> Verdict:
        """Would this answer be accepted for a call of `purpose`/`role`? The console's editor
        judges what a person types with it, live; the agent judges every answer with it."""
        raise NotImplementedError

    def answer_skeleton(self, purpose: str, role: str = MAIN_ROLE) -> str:
        """The expected answer format, shown in an empty editor when a person answers."""
        return ""

    def cut_answer(self, text: str, purpose: str, role: str = MAIN_ROLE) -> str | None:
        """The part of an answer cut at max_tokens that is whole by itself (judged, then acted on), or None:
        refused with `cut_missing` and asked again (the default; helpers in `agent.runtime.cut`)."""
        return None

    def cut_missing(self, purpose: str, role: str = MAIN_ROLE) -> str:
        """What a cut answer lacked, in the agent's words ("before </execute>"), for the refusal."""
        return "before it ended"

    def describe_answer(self, verdict: Verdict, purpose: str, role: str = MAIN_ROLE) -> str:
        """What an accepted answer will do, as the editor's check line says it ('' : the verdict's summary)."""
        return ""

    def view(self) -> AgentView | None:
        """The agent's own state for a person (its plan, its window, its turns), or None.

        The console draws it in a tab titled `view_title` and asks for it once per
        stop, never per event: it must be cheap and must not change the run.
        """
        return None

    # -- the LLMs by role -----------------------------------------------------------

    def llm_for(self, role: str = MAIN_ROLE) -> LLM:
        own = self.role_llms.get(role)
        if own is not None:
            return own
        # one LLM per role handed over whole (a fork's hand-back)
        return self.llm.for_role(role) if isinstance(self.llm, RoutedLLM) else self.llm

    def set_llm(self, llm: LLM, role: str | None = None) -> None:
        """Give `role` its own LLM; no role: the LLM of every role without one of its own."""
        if role is None or role == MAIN_ROLE:
            self.llm = llm
        else:
            self.role_llms[role] = llm

    # -- public API (the loop itself is StepLoop's: step, run, stop, close, run_statement) ----------

    def stats(self) -> Stats:
        """The run's counts so far."""
        return Stats(
            steps=self.env.steps, llm_calls=self.llm_calls, input_tokens=self.usage.input_tokens,
            output_tokens=self.usage.output_tokens, cost=self.cost, llm_seconds=self.llm_seconds,
            person_seconds=self.person_seconds, llm_failures=self.llm_failures,
            roles={role or "main": s.to_dict() for role, s in self.role_stats.items()},
        )

    # -- shared pieces of an episode: the public extension API -----------------------

    async def start_episode(self) -> RunStarted:
        """Reset the environment (in its thread), take its task, start the root: the run's first event."""
        reset = await self.reset_env()
        self.task = reset.instruction
        root = self.tree.root
        root.status = NodeStatus.RUNNING
        self.current = root
        return RunStarted(root.id, task=reset.instruction, instruction=reset.instruction,
                          observation=reset.observation, task_type=self.env.task_type)

    def add_child(self, parent: Node, label: str) -> Node:
        """A new node under `parent` (a turn, a cell, a plan step), pending until `started`."""
        return self.tree.add_children(parent, [label])[0]

    def started(self, node: Node) -> NodeStarted:
        """Mark `node` as the one at work: the console's tree draws and follows it from this event."""
        self.current = node
        node.status = NodeStatus.RUNNING
        return NodeStarted(node.id, code=node.code, depth=node.depth)

    def accepted(self, node: Node, answer: Answer, *, purpose: str, role: str = MAIN_ROLE,
                 blocks: tuple[str, ...] | None = None, child_ids: tuple[str, ...] = ()) -> LLMAnswered:
        """The event for an accepted `Answer` of `ask` on `node`: the verdict's blocks and thought unless
        given, the answer's counts and times; `child_ids` are nodes the answer made (drawn under `node`)."""
        node.thought = answer.verdict.thought
        return self.answered(node.id, answer.completion, thought=answer.verdict.thought,
                             blocks=answer.verdict.blocks if blocks is None else blocks, child_ids=child_ids,
                             purpose=purpose, role=role)

    def completed(self, node: Node, output: str = "") -> NodeCompleted:
        """`node`'s work is done."""
        node.status = NodeStatus.COMPLETED
        return NodeCompleted(node.id, output=output)

    def failed(self, node: Node, error: str) -> NodeError:
        """`node` failed with `error` (one line)."""
        node.status, node.error = NodeStatus.ERROR, error
        return NodeError(node.id, code=node.code, error=error)

    def finish(self, success: bool, reason: str) -> RunFinished:
        """The run's last event: its result, counts and costs. Yield it and return."""
        return self._finish(success, reason)

    async def _env_step(self, action: str) -> str:
        """One environment step, off the event loop: the env's own `step_async` when it has one
        (ScienceWorld's waits on its simulator thread, saving a hop), else `step` in the env thread.

        Only a `step_async` of the env's own class counts: a wrapper that checks or records `step`
        (a replay) and hands other names to the env it wraps must not be bypassed.
        """
        # dynamic: looked up on the env's own class, never through a wrapper's __getattr__ (see above)
        step_async = getattr(type(self.env), "step_async", None)  # dynamic: an optional method of the class
        if step_async is not None:
            return await step_async(self.env, action)
        return await self._in_env_thread(self.env.step, action)

    def _count_refusal(self, refusal: str) -> None:
        if refusal:
            self.refused_actions += 1
            check_refusals(self.refused_actions)

    async def act(self, node: Node, action: str, line: int = 0) -> AsyncIterator[Event]:
        """Send one action to the environment: the action event, then the observation event."""
        number = self.env.steps + 1
        refusal = too_long(action)
        self._count_refusal(refusal)
        shown = cut_action(action) if refusal else action
        yield ActionSent(node.id, action=shown, step=number, line=line)
        observation = refusal or await self._env_step(action)
        node.observations.append(observation)
        yield ObservationReceived(node.id, action=shown, observation=observation, step=number,
                                  done=self.env.done, won=self.env.won, refused=bool(refusal))

    def prompt_context(self) -> PromptContext:
        """What a call's prompt may show besides its own input: the task, the last actions, the steps
        left (ReCode's sub-calls; the prompt workspace shows it for any agent)."""
        left = max(0, self.env.max_steps - self.env.steps)
        return PromptContext(self.task, self.recent.last(), left, self.env.max_steps)

    async def close_root(self, root: Node, reason: str = "") -> AsyncIterator[Event]:
        """End the episode: the root completes on a win, else errs with why it ended. An episode the
        environment ended says the environment's reason (the step limit, its own); one the agent stopped
        says `reason`, or that the agent stopped after so many steps. Yields the root's event and `RunFinished`."""
        self.current = root
        if self.env.won:
            yield self.completed(root, "won")
            yield self._finish(True, "won")
            return
        if not self.env.done:
            reason = reason or (f"the agent stopped after {self.env.steps} of {self.env.max_steps} steps "
                                "without finishing the task")
        else:
            reason = self.end_reason()
        yield self.failed(root, reason)
        yield self._finish(False, reason)

    _close_root = close_root  # the name agents written before the public API use

    async def run_code(self, node: Node, code: str | None = None) -> AsyncIterator[Event | NodeOutcome]:
        """Run code (the node's own by default) in the runner, one action at a time: each `run()` is an
        action event and an observation event, so a debugger can stop between two actions of a loop.
        Then the `VariablesChanged` of what the code changed, and last the runner's `NodeOutcome`
        (not an event: the agent settles it)."""
        await self.runner.start(node.code if code is None else code)
        while True:
            message = await self.runner.next_message()
            if isinstance(message, NodeOutcome):
                if message.changes:
                    yield VariablesChanged(node.id, changes=message.changes)
                yield message
                return
            assert isinstance(message, ActionRequest)
            number = self.env.steps + 1
            refusal = too_long(message.action)
            self._count_refusal(refusal)
            shown = cut_action(message.action) if refusal else message.action
            yield ActionSent(node.id, action=shown, step=number, line=message.line)
            observation = refusal or await self._env_step(message.action)
            yield ObservationReceived(node.id, action=shown, observation=observation, step=number,
                                      done=self.env.done, won=self.env.won, refused=bool(refusal))
            self.runner.answer(observation, stop=self.env.done)

    answered = staticmethod(answered_event)  # the accepted-answer event for a completion, with its counts

    def rewrite_note(self, reason: str, answer: str = "") -> str:
        """What is added to the prompt after a refused answer: the answer and why it was refused
        (the same rule for every agent; `rejected` says how an agent shows its answers)."""
        shown, reason = self.rejected(answer, reason)
        return rewrite_note(self.prompts, reason, shown)

    def rejected(self, answer: str, reason: str) -> tuple[str, str]:
        """A rejected answer as the retry prompt shows it, and the reason as it says it. Agents whose
        answers are code show the code numbered from its first line (`agent.runtime.prompts.rejected_code`)."""
        return rejected_text(answer), reason

    async def ask_child(
        self,
        parent: Node,
        label: str,
        prompt: Callable[[], Any],
        purpose: str,
        judge: Callable[[Completion], Verdict],
    ) -> AsyncIterator[Event | Answer]:
        """A new child of `parent` (a ReAct turn, a CodeAct cell) asked of the LLM: its `NodeStarted`,
        the call's events, then the `Answer`. After too many refusals the child errs and the
        episode finishes instead (no `Answer`). `prompt()` (plain or awaitable) is built once the
        child has started, so a statement typed at that stop is in it; the child is `self.current`."""
        node = self.tree.add_children(parent, [label])[0]
        self.current = node
        node.status = NodeStatus.RUNNING
        yield NodeStarted(node.id, code=node.code, depth=node.depth)
        text = prompt()
        if inspect.isawaitable(text):
            text = await text
        answered = False
        async for item in self.ask(node, text, purpose, judge, context=StubContext(code=node.code, name="",
                                                                                   purpose=purpose)):
            answered = answered or isinstance(item, Answer)
            yield item
        if not answered:  # too many invalid answers
            node.status, node.error = NodeStatus.ERROR, self.finished_reason
            yield NodeError(node.id, code=node.code, error=node.error)
            yield self._finish(False, self.finished_reason)

    async def ask(
        self,
        node: Node,
        base_prompt: str,
        purpose: str,
        judge: Callable[[Completion], Verdict],
        role: str = MAIN_ROLE,
        context: StubContext | None = None,
    ) -> AsyncIterator[Event | Answer]:
        """One LLM call with its events: requested, failures (each retried), rejected and re-asked
        with the reason (up to `max_rewrite` times), and finally the accepted `Answer`.

        After too many refusals `finished_reason` is set and no `Answer` comes.
        """
        note = ""
        for attempt in range(1, self.limits.max_rewrite + 2):
            prompt = base_prompt + note
            yield LLMRequested(node.id, prompt=prompt, attempt=attempt, purpose=purpose, role=role)
            call = context if context is not None else StubContext(code=node.code, name="", purpose=purpose)
            call = replace(call, attempt=attempt)
            completion = None
            failures = 0
            while completion is None:
                began = time.monotonic()
                self.answering_since = began
                try:
                    completion = await self.llm_for(role).complete(prompt, call)
                except LLMError as exc:
                    self.answering_since = None
                    failures += 1
                    self.llm_failures += 1
                    yield LLMFailed(node.id, error=str(exc), attempt=failures, seconds=time.monotonic() - began,
                                    role=role, retry=exc.retry)
                finally:
                    self.answering_since = None
            completion = timed(completion, time.monotonic() - began)
            self._count(completion, role)
            verdict = oversized(completion.text)
            if verdict is None and completion.cut_at is not None:  # the model's answer, cut: the agent's rule
                completion, verdict = cut_verdict(completion, self.cut_answer(completion.text, purpose, role),
                                                  self.cut_missing(purpose, role))
            if verdict is None:
                # Off the event loop (the console's): a long answer takes a while to judge, and the
                # person's keys must still work meanwhile. In the env thread, where the agent's other
                # environment calls are (ReAct's judge asks the env which commands it takes).
                verdict = await self.in_env_thread(judge, completion)
            if completion.judged is not None:  # the response cache keeps only what an agent took
                completion.judged(verdict.accepted)
            if not verdict.accepted:
                node.llm_calls.append(exchange_record(prompt, completion, False, purpose, verdict.message))
                yield rejected_event(node.id, completion, verdict.message, attempt=attempt, purpose=purpose,
                                     role=role)
                note = self.rewrite_note(verdict.message, completion.text)
                continue
            node.llm_calls.append(exchange_record(prompt, completion, True, purpose))
            yield Answer(completion, prompt, verdict, attempt)
            return
        self.finished_reason = (
            f"rewrite limit: {self.limits.max_rewrite + 1} invalid answers in a row for `{node.code}`"
        )

    def _count(self, completion: Completion, role: str = MAIN_ROLE) -> None:
        self.llm_calls += 1
        self.usage = self._tally.add(completion)
        self.cost += completion.cost
        self.llm_seconds += completion.seconds or 0.0
        self.person_seconds += completion.person_seconds
        self.role_stats.setdefault(role, RoleStats()).add(completion)

    def _finish(self, success: bool, reason: str) -> RunFinished:
        extra: dict[str, Any] = {}
        if set(self.role_stats) - {MAIN_ROLE}:  # an agent with several roles: each one costed apart
            extra["roles"] = self.stats().roles
        return RunFinished(
            self.current.id if self.current else None,
            success=success,
            reason=reason,
            steps=self.env.steps,
            llm_calls=self.llm_calls,
            input_tokens=self.usage.input_tokens,
            output_tokens=self.usage.output_tokens,
            cost=self.cost,
            llm_seconds=self.llm_seconds,
            person_seconds=self.person_seconds,
            llm_failures=self.llm_failures,
            extra=extra,
        )

    def end_reason(self) -> str:
        """Why the episode ended without a win, as the environment tells it."""
        return end_reason(self.env)

