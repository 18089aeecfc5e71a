"""The agent seam: what every agent is to the debugger, the journal, replay, eval and the console.

An agent is a stepper: `await step()` does the smallest unit of work and
returns the event that says what happened. Each agent (ReCode, ReAct, ...)
subclasses `Stepper` and writes its episode as one async generator
(`episode`) of the events the helpers below build. The class is put
together by concern, each part in its own module:

- the driver (`step`, `run`, `stop`, `close`, `run_statement`, `reset_env`,
  `in_env_thread`): `agent.runtime.step_loop.StepLoop`, which no agent overrides;
- the LLM call with its events and what the agent says about answers (`ask`,
  `judge`, `cut_answer`, ...): `agent.runtime.asking.LLMCalls`;
- environment actions as events (`act`, `run_code`): `agent.runtime.acting.EnvActions`;
- here, the episode's shape: its opening (`open_episode`), the nodes of the
  structure it draws (`started`, `completed`, `failed`, `skipped`: each sets
  the node's status and builds its event), a child asked of the LLM
  (`ask_child`), the accepted answer's event (`accepted`), and its end
  (`close_root`, `finish`); the run's counts (`stats`).

What an author uses beside the class lives in small modules, imported from
there: `agent.runtime.agent_view` (what `view()` returns), `agent.runtime.costs`
(the counts, `MAIN_ROLE`), `agent.runtime.actions` (the action caps, end reasons),
`agent.runtime.limits` (`Limits`), `agent.runtime.asking` (`Answer`).
The event types are in `agent.runtime.events`.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any, AsyncIterator, Callable, ClassVar, Mapping

from agent.llm import LLM
from agent.runtime.acting import EnvActions
from agent.runtime.actions import end_reason
from agent.runtime.agent_view import AgentView
from agent.runtime.asking import Answer, LLMCalls
from agent.runtime.capabilities import ScriptedAnswer
from agent.runtime.costs import MAIN_ROLE, Stats
from agent.runtime.events import (
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
from agent.runtime.prompts import PromptContext, PromptSet, RecentActions
from agent.runtime.runner import CodeRunner
from agent.runtime.step_loop import EndRun
from agent.runtime.tree import CodeTree, Node, NodeStatus
from envs.base import Env

__all__ = ["Stepper"]  # the seam; what an author uses beside it is imported from its own module


class Stepper(LLMCalls, EnvActions):
    """One agent's run over one environment episode, one event per `step()`.

    Subclasses set the class attributes and write `episode`. The constructor is
    the same for every agent, so the registry builds any of them the same way:
    `(env, llm, runner, limits=..., prompts=..., options=...)`.
    """

    name: ClassVar[str] = "agent"  # the registry name (`--agent NAME`), recorded in journals
    display_name: ClassVar[str] = "Agent"  # as the status line shows it
    roles: ClassVar[tuple[str, ...]] = (MAIN_ROLE,)  # the LLM roles, in the order the console lists them
    every_call_words: ClassVar[str] = "every LLM call"  # how the default breakpoint reads for this agent
    # The purpose (`agent.llm.Purpose`, or the agent's own word) of its main call: the one a `stub NAME`
    # breakpoint stops at and whose accepted answer adds child nodes (ReCode: "expand"); '' : none,
    # every call reads by its own purpose.
    main_purpose: ClassVar[str] = ""
    awaiting_llm_word: ClassVar[str] = "awaiting llm"  # how a node waiting on its LLM call reads in the panes
    structure_title: ClassVar[str] = "Steps"  # the title of the pane that draws `tree`
    default_prompts: ClassVar[Path | None] = None  # the prompt set used when --prompts is not given
    option_defaults: ClassVar[dict[str, Any]] = {}  # agent options (--agent-option KEY=VALUE) and defaults
    # An agent whose runner keeps no variables says what it keeps instead (the console's Variables
    # pane shows it in place of an empty table); '' for ReCode and CodeAct, whose code keeps them.
    variables_note: ClassVar[str] = ""
    root_code: ClassVar[str] = "task"  # the root's code before the task is known
    # The root's code once `open_episode` knows the task ("{instruction}" is the task); '' keeps `root_code`.
    task_code: ClassVar[str] = ""
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
        super().__init__(env, runner)
        self.llm = llm
        self.role_llms = {}
        self.limits = limits
        if prompts is None:
            prompts = PromptSet(self.default_prompts) if self.default_prompts else PromptSet()
        self.prompts = prompts
        self.options: dict[str, Any] = {**self.option_defaults, **(options or {})}
        self.preset = ""  # the named preset the run was built with (agent.agents.presets), for the journal
        self.tree: CodeTree = CodeTree(self.root_code)
        self.current: Node | None = None  # the node at work (the console follows it)
        self.task = ""
        self.first_observation = ""  # the environment's first observation, after the task
        self.stats = Stats()  # the run's counts so far: calls, tokens, cost, times, failures, refused actions
        self.finished_reason = ""
        self.recent = RecentActions()  # the last actions, for prompts that show them
        self.observers.append(self.recent.observe)
        self.answering_since = None
        self.cancelled_wait: tuple[float, str] | None = None

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

        The console draws it in a tab titled `view_title` and asks for it once per
        stop, never per event: it must be cheap and must not change the run.
        """
        return None

    # -- the episode's opening ---------------------------------------------------------

    async def open_episode(self, *, start_root: bool = True) -> AsyncIterator[Event]:
        """The run's first events, the same for every agent: the environment reset (in its thread), its
        task and first observation kept (`task`, `first_observation`; an agent whose answers are code
        finds them as the variables `instruction` and `observation`), the root's code set from
        `task_code`, `RunStarted`, and the root's `NodeStarted` unless `start_root` is False (an
        agent that starts the root itself). Options `option_problem` refuses end the run first."""
        problem = self.option_problem()
        if problem:
            raise EndRun(problem)
        reset = await self.reset_env()
        self.task, self.first_observation = reset.instruction, reset.observation
        if self.answers_are_code:
            await self.runner.set_variables({"instruction": reset.instruction, "observation": reset.observation})
        root = self.tree.root
        if self.task_code:
            root.code = self.task_code.format(instruction=reset.instruction)
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
