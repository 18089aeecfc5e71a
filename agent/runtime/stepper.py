"""The agent seam: what an agent author writes with, and nothing of the host's.

An agent is a stepper: `await step()` does the smallest unit of work and
returns the event that says what happened. Each agent (ReCode, ReAct, ...)
subclasses `Stepper`, declares its `traits` and class attributes and writes its episode as one
async generator (`episode`) of the events the helpers below build. The helpers
are all declared here, on the one class an author meets; what they stand on is
composed, not inherited:

- the host's side (driving `episode()`, observers, the event count, the replay
  queue, the LLM of each role, `stop`, `prepare`, the finished record) is the
  agent's `host`, an `agent.runtime.run_handle.RunHandle`; `step`, `run` and
  `close` here hand to it;
- the LLM call's loop (`ask`) is `agent.runtime.asking`;
- the action path (`act`, `run_code`) is `agent.runtime.acting.ActionPath`.

The public names an instance shows are listed in docs/extending.md ("What an agent
instance shows"; tests/test_agent_seam.py holds it). What an author uses beside the class lives in
small modules, imported from there: `agent.runtime.agent_view` (what `view()` returns),
`agent.runtime.costs` (the counts, `MAIN_ROLE`), `agent.runtime.actions` (the action caps, end
reasons), `agent.runtime.limits` (`Limits`), `agent.runtime.asking` (`Answer`).
The event types are in `agent.runtime.events`.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any, AsyncIterator, Callable, ClassVar, TypeVar

from agent.llm import LLM, CallContext, Completion
from agent.runtime.acting import ActionPath
from agent.runtime.actions import MAX_ACTION_CHARS, MAX_REFUSED_ACTIONS, TooManyRefusals, cut_action, end_reason, too_long
from agent.runtime.agent_view import AgentView, ViewLine, ViewSection
from agent.runtime.asking import PERSON_SOURCES, Answer, asked
from agent.runtime.capabilities import ScriptedAnswer
from agent.runtime.costs import MAIN_ROLE, RoleStats, Stats, answered_event
from agent.runtime.events import (
    AgentNote,
    Event,
    LLMAnswered,
    NodeCompleted,
    NodeError,
    NodeSkipped,
    NodeStarted,
    RunFinished,
    RunStarted,
)
from agent.runtime.limits import Limits  # defined apart so the command line's parser can read its defaults cheaply
from agent.runtime.prompts import PromptContext, PromptSet, RecentActions, rejected_text
from agent.runtime.run_handle import EndRun, RunHandle
from agent.runtime.runner import CodeRunner, NodeOutcome
from agent.runtime.traits import TRAIT_NAMES, AgentTraits
from agent.runtime.tree import CodeTree, Node, NodeStatus
from agent.runtime.verdict import Verdict
from envs.base import Env, Reset

T = TypeVar("T")

__all__ = ["Stepper"]  # the seam; what an author uses beside it is imported from its own module


class Stepper:
    """One agent's run over one environment episode, one event per `step()`.

    Subclasses set the class attributes and write `episode`. The constructor is
    the same for every agent, so the registry builds any of them the same way:
    `(env, llm, runner, limits=..., prompts=..., options=...)`.
    """

    name: ClassVar[str] = "agent"  # the registry name (`--agent NAME`), recorded in journals
    roles: ClassVar[tuple[str, ...]] = (MAIN_ROLE,)  # the LLM roles, in the order the console lists them
    default_prompts: ClassVar[Path | None] = None  # the prompt set used when --prompts is not given
    main_prompt_file: ClassVar[str] = "expand.txt"  # what makes a folder this agent's prompt set
    option_defaults: ClassVar[dict[str, Any]] = {}  # agent options (--agent-option KEY=VALUE) and defaults
    # Its words and what it offers the front ends, one record (agent.runtime.traits says what each means).
    traits: ClassVar[AgentTraits] = AgentTraits()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """An agent declaring a trait loose (`display_name = ...`, as before the record) would be ignored
        by every front end: refuse it at class creation, saying where it goes."""
        super().__init_subclass__(**kwargs)
        loose = sorted(TRAIT_NAMES & set(vars(cls)))
        if loose:
            raise TypeError(f"{cls.__name__} declares {', '.join(loose)} as class attributes: declare them in "
                            f"`traits = AgentTraits({loose[0]}=...)` (agent.runtime.traits)")

    @classmethod
    def gold_answers(cls, actions: list[str]) -> list[ScriptedAnswer] | None:
        """Its own answers that play a known action sequence (`--llm gold`), or None: it cannot."""
        return None

    @classmethod
    def placeholder_of(cls, code: str) -> str | None:
        """The name a `stub NAME` breakpoint on a node of this `code` breaks on (`b` in the console), or
        None: the node calls nothing the agent asks its LLM for."""
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
        self.env = env
        self.runner: CodeRunner = runner
        self.limits = limits
        if prompts is None:
            prompts = PromptSet(self.default_prompts) if self.default_prompts else PromptSet()
        self.prompts = prompts
        self.options: dict[str, Any] = {**self.option_defaults, **(options or {})}
        self.tree: CodeTree = CodeTree(self.traits.root_code)
        self.current: Node | None = None  # the node at work (the console follows it)
        self.task = ""
        self.first_observation = ""  # the environment's first observation, after the task
        self.stats = Stats()  # the run's counts so far: calls, tokens, cost, times, failures, refused actions
        self.finished_reason = ""  # set to end the run mid-episode (`ask`: too many refusals)
        self.recent = RecentActions()  # the last actions, for prompts that show them
        self.notes: list[AgentNote] = []  # the agent's decisions so far (replans, re-injections), for its view
        # The host's side of the run: what a front end, a session or eval drives and sets.
        self.host = RunHandle(self.episode, self._finish, env, runner, llm, warm_runner=self.traits.answers_are_code)
        self.host.observers.append(self._observe)
        self._actions = ActionPath(env, runner, self.stats, self.host.in_env_thread)

    def _observe(self, event: Event) -> None:
        self.recent.observe(event)
        if isinstance(event, AgentNote):
            self.notes.append(event)

    # -- how a host drives it (docs/architecture.md: `event = await agent.step()`) -----

    async def step(self) -> Event:
        """Do the next smallest unit of work and say what happened (`host.step`)."""
        return await self.host.step()

    async def run(self, on_event: Callable[[Event], Any] | None = None) -> RunFinished:
        """A batch run: step until the end; an LLM failure ends it (`host.run`)."""
        return await self.host.run(on_event)

    async def close(self) -> None:
        """Let go of the runner and the environment's thread (`host.close`); the caller closes the env."""
        await self.host.close()

    # -- what a subclass writes ----------------------------------------------------

    def episode(self) -> AsyncIterator[Event]:
        """The run, as one async generator of events: `open_episode`'s, then the agent's own, built
        with the helpers below, ending with `close_root` or `finish`."""
        raise NotImplementedError(f"{type(self).__name__} must define episode()")

    def option_problem(self) -> str:
        """Why the agent options cannot be used ('' when they can): `open_episode` ends the run with it."""
        return ""

    def view(self) -> AgentView | None:
        """The agent's own state for a person (its plan, its window, its turns), or None.

        The console draws it in a tab titled `traits.view_title` and asks for it once per
        stop, never per event: it must be cheap and must not change the run.
        """
        return None

    # -- what it says about its answers (hooks; the editors call them as a person types) -------

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

    def cut_kept(self, purpose: str, role: str = MAIN_ROLE) -> str:
        """What `cut_answer` keeps of a cut answer, in the agent's words ("through its first whole
        `Action:` line"), for the editor's check line in review mode."""
        return "its whole part kept"

    def describe_answer(self, verdict: Verdict, purpose: str, role: str = MAIN_ROLE) -> str:
        """What an accepted answer will do, as the editor's check line says it ('' : the verdict's summary)."""
        return ""

    def rejected(self, answer: str, reason: str) -> tuple[str, str]:
        """A rejected answer as the retry prompt shows it, and the reason as it says it. Agents whose
        answers are code show the code numbered from its first line (`agent.runtime.prompts.rejected_code`)."""
        return rejected_text(answer), reason

    # -- the episode's opening ---------------------------------------------------------

    async def open_episode(self, *, start_root: bool = True) -> AsyncIterator[Event]:
        """The run's first events, the same for every agent: the environment reset (in its thread), its
        task and first observation kept (`task`, `first_observation`; an agent whose answers are code
        finds them as the variables `instruction` and `observation`), the root's code set from
        `traits.task_code`, `RunStarted`, and the root's `NodeStarted` unless `start_root` is False (an
        agent that starts the root itself). Options `option_problem` refuses end the run first."""
        problem = self.option_problem()
        if problem:
            raise EndRun(problem)
        reset = await self.reset_env()
        self.task, self.first_observation = reset.instruction, reset.observation
        if self.traits.answers_are_code:
            await self.runner.set_variables({"instruction": reset.instruction, "observation": reset.observation})
        root = self.tree.root
        if self.traits.task_code:
            root.code = self.traits.task_code.format(instruction=reset.instruction)
        yield RunStarted(root.id, task=reset.instruction, instruction=reset.instruction,
                         observation=reset.observation, task_type=self.env.task_type)
        if start_root:
            yield self.started(root)

    # -- the nodes: each helper sets the node's state and builds its event -------------

    def started(self, node: Node) -> NodeStarted:
        """Mark `node` as the one at work: the console's tree draws and follows it from this event."""
        self.current = node
        node.status = NodeStatus.RUNNING
        return NodeStarted(node.id, code=node.code, depth=node.depth)

    def completed(self, node: Node, output: str = "", *, seconds: float = 0.0,
                  restore_seconds: float = 0.0) -> NodeCompleted:
        """`node`'s work is done; `seconds` its code's own time, `restore_seconds` the sandbox's (a runner's node)."""
        node.status = NodeStatus.COMPLETED
        return NodeCompleted(node.id, output=output, seconds=seconds, restore_seconds=restore_seconds)

    def failed(self, node: Node, error: str, *, output: str = "", seconds: float = 0.0,
               restore_seconds: float = 0.0) -> NodeError:
        """`node` failed with `error` (kept as `node.error`); `output` what it printed before."""
        node.status, node.error = NodeStatus.ERROR, error
        return NodeError(node.id, code=node.code, error=error, output=output, seconds=seconds,
                         restore_seconds=restore_seconds)

    def skipped(self, node: Node) -> NodeSkipped:
        """`node` will not run (an empty expansion, a plan step a replan dropped)."""
        node.status = NodeStatus.SKIP
        return NodeSkipped(node.id)

    def accepted(self, node: Node, answer: Answer, *, purpose: str = "", role: str = MAIN_ROLE,
                 child_ids: tuple[str, ...] = ()) -> LLMAnswered:
        """The event for an accepted `Answer` of `ask` on `node`, whose thought becomes `node.thought`:
        the verdict's blocks, the answer's counts and times; `child_ids` are nodes the answer made
        (drawn under `node`). An answer reported on another node than it made is `answered(...)`."""
        node.thought = answer.verdict.thought
        return self.answered(node.id, answer.completion, thought=answer.verdict.thought,
                             blocks=answer.verdict.blocks, child_ids=child_ids, purpose=purpose, role=role)

    answered = staticmethod(answered_event)  # the accepted-answer event for a completion, with its counts

    def judged(self, completion: Completion, purpose: str, role: str = MAIN_ROLE,
               known: frozenset[str] = frozenset()) -> Verdict:
        """`judge` on an answer as it came: typed loosely when a person typed or edited it."""
        return self.judge(completion.text, purpose, role, typed=completion.source in PERSON_SOURCES, known=known)

    async def ask(self, node: Node, base_prompt: str, purpose: str,
                  judge: Callable[[Completion], Verdict] | None = None, role: str = MAIN_ROLE,
                  context: CallContext | None = None) -> AsyncIterator[Event | Answer]:
        """One LLM call with its events: requested, failures (each retried), rejected and re-asked
        with the reason (up to `max_rewrite` times), and finally the accepted `Answer`.

        `judge` decides on each answer (default: `judged`, the agent's `judge` for this purpose and
        role). After too many refusals `finished_reason` is set and no `Answer` comes.
        """
        verdict_of = judge or (lambda completion: self.judged(completion, purpose, role))
        answered = False
        async for item in asked(self.host, self, self.stats, node, base_prompt, purpose, verdict_of, role, context):
            answered = answered or isinstance(item, Answer)
            yield item
        if not answered:
            self.finished_reason = (
                f"rewrite limit: {self.limits.max_rewrite + 1} invalid answers in a row for `{node.code}`")

    async def ask_child(self, parent: Node, label: str, prompt: Callable[[], Any],
                        purpose: str) -> AsyncIterator[Event | Answer]:
        """A new child of `parent` (a ReAct turn, a CodeAct cell) asked of the LLM: its `NodeStarted`,
        the call's events, then the `Answer`. After too many refusals the child errs and the
        episode finishes instead (no `Answer`). `prompt()` (plain or awaitable) is built once the
        child has started, so a statement typed at that stop is in it; the child is `self.current`."""
        node = self.tree.add_children(parent, [label])[0]
        yield self.started(node)
        text = prompt()
        if inspect.isawaitable(text):
            text = await text
        answered = False
        async for item in self.ask(node, text, purpose):
            answered = answered or isinstance(item, Answer)
            yield item
        if not answered:  # too many invalid answers
            yield self.failed(node, self.finished_reason)
            yield self.finish(False, self.finished_reason)

    # -- actions ---------------------------------------------------------------------------

    def act(self, node: Node, action: str, line: int = 0) -> AsyncIterator[Event]:
        """Send one action for `node`: the action event, then the observation event; the observation
        is kept in `node.observations` (an agent reads the latest there)."""
        return self._actions.act(node, action, line)

    def run_code(self, node: Node, code: str | None = None) -> AsyncIterator[Event | NodeOutcome]:
        """Run code (the node's own by default) in the runner, one action at a time: each `run()` is an
        action event and an observation event, so a debugger can stop between two actions of a loop.
        Then the `VariablesChanged` of what the code changed, and last the runner's `NodeOutcome`
        (not an event: the agent settles it)."""
        return self._actions.run_code(node, code)

    async def reset_env(self) -> Reset:
        """Reset the environment in its thread (the reset the host's `prepare()` started, if it did)."""
        return await self.host.reset_env()

    async def in_env_thread(self, fn: Callable[..., T], *args: Any) -> T:
        """Call `fn(*args)` in the environment's own thread (environments may block; the console must not)."""
        return await self.host.in_env_thread(fn, *args)

    # -- the end ---------------------------------------------------------------------------

    async def close_root(self, root: Node, reason: str = "") -> AsyncIterator[Event]:
        """End the episode: the root completes on a win, else errs with why it ended. An episode the
        environment ended says the environment's reason (the step limit, its own); one the agent stopped
        says `reason`, or that the agent stopped after so many steps. Yields the root's event and `RunFinished`."""
        self.current = root
        if self.env.won:
            yield self.completed(root, "won")
            yield self.finish(True, "won")
            return
        if not self.env.done:
            reason = reason or (f"the agent stopped after {self.env.steps} of {self.env.max_steps} steps "
                                "without finishing the task")
        else:
            reason = self.end_reason()
        yield self.failed(root, reason)
        yield self.finish(False, reason)

    def finish(self, success: bool, reason: str) -> RunFinished:
        """The run's last event: its result, counts and costs. Yield it and return."""
        return self._finish(success, reason)

    def _finish(self, success: bool, reason: str) -> RunFinished:
        return self.stats.finished(self.current.id if self.current else None, success, reason, self.env.steps)

    def end_reason(self) -> str:
        """Why the episode ended without a win, as the environment tells it."""
        return end_reason(self.env)

    def prompt_context(self) -> PromptContext:
        """What a call's prompt may show besides its own input: the task, the last actions, the steps
        left (ReCode's sub-calls; the prompt workspace shows it for any agent)."""
        left = max(0, self.env.max_steps - self.env.steps)
        return PromptContext(self.task, self.recent.last(), left, self.env.max_steps)
