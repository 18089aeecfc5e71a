"""The ReCode engine as a stepper: `await engine.step()` does one unit of work.

The run is written as one straight-line async generator (`_drive`) that
yields an event after every unit of work; `step()` resumes it once. Between
two calls nothing runs: the node's code is blocked inside `run()`, the
environment is idle, no LLM call is in flight. That is what lets a debugger
stop between any two actions of a loop.
"""

from __future__ import annotations

import ast
import asyncio
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any, AsyncIterator, Callable, TypeVar

from agent.answer_rule import judge_answer
from agent.codeblocks import InvalidAnswer, safe_parse
from agent.events import (
    ActionSent,
    Event,
    ExpansionReceived,
    ExpansionRejected,
    ExpansionRequested,
    LLMFailed,
    NodeCompleted,
    NodeError,
    NodeSkipped,
    NodeStarted,
    ObservationReceived,
    RunFinished,
    RunStarted,
    StatementRun,
    StubFound,
    VariablesChanged,
)
from agent.llm import LLM, Completion, LLMError, StubContext, Usage
from agent.replay import RecordedStatement, ReplayMismatch
from agent.prompt import PromptContext, PromptSet, RecentActions, build_expand_prompt, build_repair_prompt, call_arguments, rewrite_note  # noqa: E501
from agent.runner import ActionRequest, CodeRunner, NodeOutcome
from agent.tree import CodeTree, Expansion, Node, NodeStatus
from envs.base import Env

ROOT_CODE = "solve(instruction, observation)"

T = TypeVar("T")


@dataclass(frozen=True)
class Limits:
    """Run limits (spec §4). The environment's step limit lives on the Env."""

    max_depth: int = 10
    max_rewrite: int = 5  # re-asks after an invalid answer; one more invalid answer stops the run
    max_retry: int = 5  # repairs: how deep a chain of "this node raised, rewrite it" may go
    end_on_error: bool = False  # the paper's code: the first node that raises ends the episode (no repair)


class Engine:
    """One ReCode run over one environment episode.

    The runner is required: user paths build it with `agent.runners`; there is
    no in-process default an omission could fall back to. The code check goes
    with the runner (the sandbox's static checks) unless one is given.
    """

    def __init__(
        self,
        env: Env,
        llm: LLM,
        runner: CodeRunner,
        limits: Limits = Limits(),
        prompts: PromptSet | None = None,
        code_check: Callable[[str], str | None] | None = None,
    ) -> None:
        if runner is None:
            raise TypeError("Engine needs a runner: build one with agent.runners.RunnerSettings().make_runner()")
        self.env = env
        self.llm = llm
        self.runner: CodeRunner = runner
        self.limits = limits
        self.prompts = prompts or PromptSet()
        # extra refusal reasons: the sandbox's static checks, taken from the runner unless given
        self.code_check = code_check if code_check is not None else getattr(runner, "check", None)
        self.preset = ""  # the named preset the run was built with (agent.presets), for the journal
        self.observers: list[Callable[[Event], None]] = []  # e.g. the session journal
        self.tree: CodeTree = CodeTree(ROOT_CODE)
        self.current: Node | None = None
        self.task = ""
        self.llm_calls = 0
        self.usage = Usage()
        self.cost = 0.0
        self.llm_seconds = 0.0  # waiting for answers, all calls together
        self.person_seconds = 0.0  # a person typing or reviewing answers, kept apart from llm_seconds
        self.llm_failures = 0  # model calls that raised LLMError
        self.finished: RunFinished | None = None
        self.finished_reason = ""  # set when a limit stops the run mid-episode
        self.recent = RecentActions()  # the last actions, for the prompt's $recent_actions
        self.observers.append(self.recent.observe)
        self.answering_since: float | None = None  # monotonic time the LLM was asked, while it answers
        self.events_emitted = 0  # events so far (statements in, LLM failures out): where a statement ran
        self._last_node: str | None = None
        # A replay's recorded statements (`!` at a stop), each run again after the same event count.
        self.pending_statements: deque[RecordedStatement] = deque()
        self._env_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="env")
        self._events: AsyncIterator[Event] = self._drive()

    # -- public API ----------------------------------------------------------

    async def step(self) -> Event:
        """Do the next smallest unit of work and say what happened."""
        if self.finished is not None:
            return self.finished
        if self.pending_statements and self.pending_statements[0].after <= self.events_emitted:
            return await self._replay_statement(self.pending_statements.popleft())
        try:
            event = await self._events.__anext__()
        except StopAsyncIteration:  # pragma: no cover - _drive always ends with RunFinished
            assert self.finished is not None
            return self.finished
        if isinstance(event, RunFinished):
            self.finished = event
            self._env_thread.shutdown(wait=False)
        self._notify(event)
        return event

    async def run_statement(self, code: str) -> StatementRun:
        """Run the person's statement or expression at a stop, through the runner and its checks.

        Raises with the one-line reason when it is refused or raises (nothing changed then).
        The event goes to the observers, so the journal keeps it for replays.
        """
        if self.finished is not None:
            raise RuntimeError("the run has ended")
        value, changes = await self.runner.execute(code)
        event = StatementRun(self._last_node, code=code, value=value, changes=changes, after=self.events_emitted)
        if changes or not _is_expression(code):  # a look that changed nothing needs no replay
            self._notify(event)
        return event

    async def _replay_statement(self, recorded: RecordedStatement) -> Event:
        try:
            value, changes = await self.runner.execute(recorded.code)
        except Exception as exc:  # noqa: BLE001 - the recording said it ran
            return await self.stop(f"replay mismatch: the statement `{recorded.code}` typed at a stop "
                                   f"now fails: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")
        event = StatementRun(self._last_node, code=recorded.code, value=value, changes=changes,
                             after=self.events_emitted)
        self._notify(event)
        return event

    def _notify(self, event: Event) -> None:
        if not isinstance(event, LLMFailed):  # a replay answers from the journal: no failures to count
            self.events_emitted += 1
        if event.node_id is not None:
            self._last_node = event.node_id
        for observer in self.observers:
            observer(event)

    @property
    def done(self) -> bool:
        return self.finished is not None

    async def run(self, on_event: Callable[[Event], Any] | None = None) -> RunFinished:
        """A batch run: step until the end. Nobody is there to fix an LLM failure, so it ends the run."""
        while True:
            event = await self.step()
            if isinstance(event, LLMFailed):
                event = await self.stop(f"LLM error: {event.error}")
            if on_event is not None:
                on_event(event)
            if isinstance(event, RunFinished):
                return event

    async def stop(self, reason: str) -> RunFinished:
        """End the run now (unsuccessful) with a reason; later `step()`s return the same result."""
        if self.finished is None:
            await self._events.aclose()
            self.finished = self._finish(self.env.won, "won" if self.env.won else reason)
            self._env_thread.shutdown(wait=False)
            self._notify(self.finished)
        return self.finished

    async def close(self) -> None:
        await self.runner.close()
        self._env_thread.shutdown(wait=False)

    # -- the run -------------------------------------------------------------

    async def _in_env_thread(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._env_thread, fn, *args)

    async def _drive(self) -> AsyncIterator[Event]:
        try:
            async for event in self._episode():
                yield event
        except ReplayMismatch as exc:
            yield self._finish(False, f"replay mismatch: {exc}")
        except Exception as exc:  # noqa: BLE001 - an engine bug must still end the run cleanly
            yield self._finish(False, f"internal error: {type(exc).__name__}: {exc}")

    async def _episode(self) -> AsyncIterator[Event]:
        reset = await self._in_env_thread(self.env.reset)
        self.task = reset.instruction
        await self.runner.set_variables({"instruction": reset.instruction, "observation": reset.observation})
        yield RunStarted(
            self.tree.root.id,
            task=reset.instruction,
            instruction=reset.instruction,
            observation=reset.observation,
            task_type=self.env.task_type,
        )
        node = self.tree.next_pending(None)
        while node is not None and not self.env.done:
            self.current = node
            node.status = NodeStatus.RUNNING
            yield NodeStarted(node.id, code=node.code, depth=node.depth)
            outcome: NodeOutcome | None = None
            async for event in self._execute(node):
                if isinstance(event, NodeOutcome):
                    outcome = event
                else:
                    yield event
            assert outcome is not None
            if outcome.changes:
                yield VariablesChanged(node.id, changes=outcome.changes)
            async for event in self._settle(node, outcome):
                yield _with_times(event, node, outcome)
            if self.finished_reason:
                yield self._finish(False, self.finished_reason)
                return
            node = self.tree.next_pending(node)
        if self.env.won:
            yield self._finish(True, "won")
        elif self.env.done:
            yield self._finish(False, _end_reason(self.env))
        else:
            yield self._finish(False, "no pending nodes left and the task is not done")

    async def _execute(self, node: Node) -> AsyncIterator[Event | NodeOutcome]:
        """Run one node's code, one action at a time."""
        await self.runner.start(node.code)
        while True:
            message = await self.runner.next_message()
            if isinstance(message, NodeOutcome):
                yield message
                return
            assert isinstance(message, ActionRequest)
            number = self.env.steps + 1
            yield ActionSent(node.id, action=message.action, step=number, line=message.line)
            observation = await self._in_env_thread(self.env.step, message.action)
            yield ObservationReceived(
                node.id,
                action=message.action,
                observation=observation,
                step=number,
                done=self.env.done,
                won=self.env.won,
            )
            self.runner.answer(observation, stop=self.env.done)

    async def _settle(self, node: Node, outcome: NodeOutcome) -> AsyncIterator[Event]:
        """Record a node's outcome; expand a stub or repair an error."""
        node.observations = outcome.output.rstrip("\n").split("\n") if outcome.output else []
        if outcome.status == "completed" or (outcome.status == "aborted" and self.env.won):
            node.status = NodeStatus.COMPLETED
            yield NodeCompleted(node.id, output=outcome.output)
        elif outcome.status == "aborted":
            node.status = NodeStatus.ERROR
            node.error = f"episode ended during this node: step limit ({self.env.max_steps}) reached"
            yield NodeError(node.id, code=node.code, error=node.error, output=outcome.output)
        elif outcome.status == "stub":
            node.status = NodeStatus.STUB
            yield StubFound(node.id, name=outcome.stub_name, code=node.code, depth=node.depth)
            if node.depth >= self.limits.max_depth:
                self.finished_reason = (
                    f"depth limit: `{outcome.stub_name}` at depth {node.depth} is not expanded "
                    f"(max_depth {self.limits.max_depth})"
                )
                return
            async for event in self._expand(node, outcome.stub_name, "expand", outcome):
                yield event
        else:
            node.status = NodeStatus.ERROR
            node.error = outcome.error
            yield NodeError(node.id, code=node.code, error=outcome.error, output=outcome.output)
            if self.limits.end_on_error:
                error = (outcome.error.strip() or "an error").splitlines()[-1]  # the exception line
                code = (node.code.strip().splitlines() or [""])[0]
                self.finished_reason = f"node error: {node.id} `{code}` raised {error} (end on error)"
                return
            if node.repairs < self.limits.max_retry:
                async for event in self._expand(node, "", "repair", outcome):
                    yield event

    async def _expand(
        self, node: Node, stub_name: str, purpose: str, outcome: NodeOutcome
    ) -> AsyncIterator[Event]:
        """Ask the LLM for the node's children; re-ask with the reason when invalid."""
        base_prompt = await self._prompt_for(node, stub_name, purpose, outcome)
        known = await self.runner.names()
        note = ""
        for attempt in range(1, self.limits.max_rewrite + 2):
            prompt = base_prompt + note
            yield ExpansionRequested(node.id, prompt=prompt, attempt=attempt, purpose=purpose)
            context = StubContext(code=node.code, name=stub_name, purpose=purpose, attempt=attempt)
            completion = None
            failures = 0
            while completion is None:
                began = time.monotonic()
                self.answering_since = began
                try:
                    completion = await self.llm.complete(prompt, context)
                except LLMError as exc:
                    self.answering_since = None
                    failures += 1
                    self.llm_failures += 1
                    yield LLMFailed(node.id, error=str(exc), attempt=failures, seconds=time.monotonic() - began)
                finally:
                    self.answering_since = None
            completion = _timed(completion, time.monotonic() - began)
            self._count(completion)
            try:
                blocks, thought = self._check_answer(completion, known)
            except InvalidAnswer as exc:
                reason = str(exc)
                node.expansions.append(self._record(prompt, completion, False, purpose, reason))
                yield ExpansionRejected(
                    node.id, raw=completion.text, reason=reason, attempt=attempt,
                    source=completion.source, proposed=completion.proposed, seconds=completion.seconds,
                    person_seconds=completion.person_seconds,
                )
                note = rewrite_note(self.prompts, reason)
                continue
            node.expansions.append(self._record(prompt, completion, True, purpose))
            node.thought = thought
            children = self.tree.add_children(node, blocks)
            for child in children:
                child.repairs = node.repairs + (purpose == "repair")
            yield ExpansionReceived(
                node.id,
                raw=completion.text,
                thought=thought,
                blocks=tuple(blocks),
                child_ids=tuple(c.id for c in children),
                source=completion.source,
                input_tokens=completion.usage.input_tokens,
                output_tokens=completion.usage.output_tokens,
                cost=completion.cost,
                proposed=completion.proposed,
                seconds=completion.seconds,
                person_seconds=completion.person_seconds,
            )
            if not blocks and purpose == "expand":
                node.status = NodeStatus.SKIP
                yield NodeSkipped(node.id)
            return
        self.finished_reason = (
            f"rewrite limit: {self.limits.max_rewrite + 1} invalid answers in a row for `{node.code}`"
        )

    def _check_answer(self, completion: Completion, known: frozenset[str]) -> tuple[list[str], str]:
        typed = completion.source in ("human", "model+edited")  # a person may type bare code
        verdict = judge_answer(completion.text, known, typed=typed,
                               trusted=self.code_check is None, code_check=self.code_check)
        if not verdict.accepted:
            raise InvalidAnswer(verdict.message)
        return list(verdict.blocks), verdict.thought

    async def _prompt_for(self, node: Node, stub_name: str, purpose: str, outcome: NodeOutcome) -> str:
        env_name, task_type = self.env.name, self.env.task_type
        if purpose == "expand":
            args = call_arguments(node.code, stub_name)
            if args.literals:
                await self.runner.set_variables(args.literals)
            if args.expressions:
                try:
                    await self.runner.bind_expressions(args.expressions)
                except Exception:  # noqa: BLE001 - an unbindable argument is just not listed
                    pass
            lines = await self.runner.prompt_lines(list(args.names))
            return build_expand_prompt(self.prompts, env_name, task_type, node.code, lines, self.prompt_context())
        lines = await self.runner.prompt_lines(_loaded_names(node.code))
        return build_repair_prompt(
            self.prompts, env_name, task_type, node.code, lines, outcome.error, outcome.output, self.prompt_context()
        )

    def prompt_context(self) -> PromptContext:
        """What a sub-call cannot see in its arguments: the task, the last actions, the steps left."""
        left = max(0, self.env.max_steps - self.env.steps)
        return PromptContext(self.task, self.recent.last(), left, self.env.max_steps)

    def _count(self, completion: Completion) -> None:
        self.llm_calls += 1
        self.usage = self.usage + completion.usage
        self.cost += completion.cost
        self.llm_seconds += completion.seconds or 0.0
        self.person_seconds += completion.person_seconds

    @staticmethod
    def _record(prompt: str, completion: Completion, accepted: bool, purpose: str, reason: str = "") -> Expansion:
        return Expansion(
            prompt=prompt,
            answer=completion.text,
            source=completion.source,
            accepted=accepted,
            reason=reason,
            input_tokens=completion.usage.input_tokens,
            output_tokens=completion.usage.output_tokens,
            cost=completion.cost,
            purpose=purpose,
            proposed=completion.proposed,
            seconds=completion.seconds or 0.0,
            person_seconds=completion.person_seconds,
        )

    def _finish(self, success: bool, reason: str) -> RunFinished:
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
        )


def _timed(completion: Completion, elapsed: float) -> Completion:
    """Fill in how long an answer took, when its LLM did not say: a person's typing is person time."""
    if completion.seconds is not None:
        return completion
    if completion.source == "human" and not completion.person_seconds:
        return replace(completion, seconds=0.0, person_seconds=elapsed)
    return replace(completion, seconds=elapsed)


def _is_expression(code: str) -> bool:
    try:
        compile(code, "<shell>", "eval")
    except SyntaxError:
        return False
    return True


def _loaded_names(code: str) -> list[str]:
    """Names a piece of code reads, in order of first use."""
    try:
        tree = safe_parse(code)
    except SyntaxError:
        return []
    loads = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    loads.sort(key=lambda n: (n.lineno, n.col_offset))
    return list(dict.fromkeys(n.id for n in loads))


def _with_times(event: Event, node: Node, outcome: NodeOutcome) -> Event:
    """The node's own time and the restore time (sandbox) on its completed/error event."""
    if isinstance(event, (NodeCompleted, NodeError)) and event.node_id == node.id:
        return replace(event, seconds=outcome.seconds, restore_seconds=outcome.restore_seconds)
    return event


def _end_reason(env: Any) -> str:
    """Why an environment ended an unwon episode: the step limit, or the env's own reason
    (`failure`, `end_reason`: a simulator that hung, a task failed) when it ended before it."""
    failure = getattr(env, "failure", "") or ""
    if failure:
        return failure
    if env.steps < env.max_steps:
        own = getattr(env, "end_reason", "") or ""
        if own:
            return own
    return f"step limit reached ({env.max_steps} steps)"
