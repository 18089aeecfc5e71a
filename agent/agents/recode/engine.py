"""The ReCode engine as a stepper: `await engine.step()` does one unit of work.

The run is written as one straight-line async generator (`_drive`) that
yields an event after every unit of work; `step()` resumes it once. Between
two calls nothing runs: the node's code is blocked inside `run()`, the
environment is idle, no LLM call is in flight. That is what lets a debugger
stop between any two actions of a loop.
"""

from __future__ import annotations

import ast
from typing import Any, AsyncIterator, Callable

from agent.agents.recode.answer_rule import judge_answer
from agent.agents.recode.call_notes import stub_context
from agent.agents.recode.codeblocks import stub_name_of
from agent.agents.recode.gold_plan import gold_plan
from agent.agents.recode.prompt import build_expand_prompt, build_repair_prompt, call_arguments
from agent.agents.recode.prompt_parts import RecodePromptParts
from agent.llm import LLM, Completion, Purpose
from agent.runtime.answer_words import AnswerWords
from agent.runtime.traits import AgentTraits
from agent.runtime.capabilities import ScriptedAnswer, bundled_demos
from agent.runtime.code import safe_parse
from agent.runtime.cut import through_last
from agent.runtime.events import Event, StubFound
from agent.runtime.prompts import DEFAULT_PROMPTS, PromptSet, rejected_code
from agent.runtime.runner import CodeRunner, NodeOutcome, code_check_of
from agent.runtime.asking import Answer
from agent.runtime.limits import Limits
from agent.runtime.stepper import Stepper
from agent.runtime.tree import Node, NodeStatus
from agent.runtime.verdict import Verdict
from envs.base import Env

SKELETON = "<think>\n\n</think>\n<execute>\n\n</execute>\n"  # what an empty editor shows

__all__ = ["Engine", "ROOT_CODE"]

ROOT_CODE = "solve(instruction, observation)"


class Engine(Stepper):
    """ReCode: one run over one environment episode, planning by recursive code generation.

    The runner is required: user paths build it with `agent.sandbox.settings`; there is
    no in-process default an omission could fall back to. The code check goes
    with the runner (the sandbox's static checks) unless one is given.
    """

    name = "recode"
    traits = AgentTraits(
        display_name="ReCode", structure_title="Code tree",
        every_call_words="every stub expansion",  # each LLM call expands a stub
        awaiting_llm_word="stub",  # the paper's word: a node that called a placeholder
        main_purpose=Purpose.EXPAND, root_code=ROOT_CODE,
        answer_words=AnswerWords(
            noun="expansion", empty="empty: submitting marks the stub SKIP",
            empty_root="empty: submitting skips the whole task (it is the root)",
            confirm_empty="the execute section is empty", gives_up="mark the stub SKIP",
            gives_up_root="skip the whole task", format_hint="<think>/<execute> or plain code",
            skeleton_cursor=(4, 0),  # the empty line inside <execute>
        ),
        answers_are_code=True, code_tree=True, prompt_workspace=RecodePromptParts(), demo_scripts=bundled_demos("{env}.yaml"),
    )

    @classmethod
    def gold_answers(cls, actions: list[str]) -> list[ScriptedAnswer] | None:
        """A plan as code: one placeholder per sub-goal of the known path, each answered with its actions."""
        return gold_plan(actions)

    @classmethod
    def placeholder_of(cls, code: str) -> str | None:
        """The first name the code calls that is not a helper or a builtin: the stub it expands."""
        return stub_name_of(code)

    default_prompts = DEFAULT_PROMPTS
    roles = ("",)

    def __init__(
        self,
        env: Env,
        llm: LLM,
        runner: CodeRunner,
        limits: Limits = Limits(),
        prompts: PromptSet | None = None,
        options: dict[str, Any] | None = None,
        code_check: Callable[[str], str | None] | None = None,
    ) -> None:
        super().__init__(env, llm, runner, limits=limits, prompts=prompts, options=options)
        # extra refusal reasons: the sandbox's static checks, taken from the runner unless given
        self.code_check = code_check if code_check is not None else code_check_of(runner)

    def judge(self, text: str, purpose: str, role: str = "", *, typed: bool = True,
              known: frozenset[str] = frozenset()) -> Verdict:
        return judge_answer(text, known, typed=typed, trusted=self.code_check is None, code_check=self.code_check)

    def rejected(self, answer: str, reason: str) -> tuple[str, str]:
        return rejected_code(answer, reason)  # the code numbered from its first line, and the reason so

    def answer_skeleton(self, purpose: str, role: str = "") -> str:
        return SKELETON

    def cut_answer(self, text: str, purpose: str, role: str = "") -> str | None:
        """A cut answer's code is whole up to its last `</execute>` (what follows is ignored)."""
        return through_last(text, "</execute>")

    def cut_missing(self, purpose: str, role: str = "") -> str:
        return "before </execute>"

    def cut_kept(self, purpose: str, role: str = "") -> str:
        return "kept up to its last </execute>"

    # -- the run -------------------------------------------------------------

    async def episode(self) -> AsyncIterator[Event]:
        # the root is the first pending node: it starts in the loop, as every node does
        async for opening in self.open_episode(start_root=False):
            yield opening
        node = self.tree.next_pending(None)
        while node is not None and not self.env.done:
            yield self.started(node)
            outcome: NodeOutcome | None = None
            async for item in self.run_code(node):
                if isinstance(item, NodeOutcome):
                    outcome = item
                else:
                    yield item
            assert outcome is not None
            async for event in self._settle(node, outcome):
                yield event
            if self.finished_reason:
                yield self.finish(False, self.finished_reason)
                return
            node = self.tree.next_pending(node)
        if self.env.won:
            yield self.finish(True, "won")
        elif self.env.done:
            yield self.finish(False, self.end_reason())
        else:
            yield self.finish(False, "no pending nodes left and the task is not done")

    async def _settle(self, node: Node, outcome: NodeOutcome) -> AsyncIterator[Event]:
        """Record a node's outcome; expand a stub or repair an error."""
        node.observations = outcome.output.rstrip("\n").split("\n") if outcome.output else []
        times = {"seconds": outcome.seconds, "restore_seconds": outcome.restore_seconds}  # the node's own
        if outcome.status == "completed" or (outcome.status == "aborted" and self.env.won):
            yield self.completed(node, outcome.output, **times)
        elif outcome.status == "aborted":
            error = f"episode ended during this node: step limit ({self.env.max_steps}) reached"
            yield self.failed(node, error, output=outcome.output, **times)
        elif outcome.status == "stub":
            node.status = NodeStatus.AWAITING_LLM
            yield StubFound(node.id, name=outcome.stub_name, code=node.code, depth=node.depth)
            if node.depth >= self.limits.max_depth:
                self.finished_reason = (
                    f"depth limit: `{outcome.stub_name}` at depth {node.depth} is not expanded "
                    f"(max_depth {self.limits.max_depth})"
                )
                return
            async for event in self._expand(node, outcome.stub_name, Purpose.EXPAND, outcome):
                yield event
        else:
            yield self.failed(node, outcome.error, output=outcome.output, **times)
            if self.limits.end_on_error:
                error = (outcome.error.strip() or "an error").splitlines()[-1]  # the exception line
                code = (node.code.strip().splitlines() or [""])[0]
                self.finished_reason = f"node error: {node.id} `{code}` raised {error} (end on error)"
                return
            if node.repairs < self.limits.max_retry:
                async for event in self._expand(node, "", Purpose.REPAIR, outcome):
                    yield event

    async def _expand(
        self, node: Node, stub_name: str, purpose: Purpose, outcome: NodeOutcome
    ) -> AsyncIterator[Event]:
        """Ask the LLM for the node's children; re-ask with the reason when invalid."""
        base_prompt = await self._prompt_for(node, stub_name, purpose, outcome)
        known = await self.runner.names()
        context = stub_context(node.code, stub_name, purpose)
        judge = lambda completion: self.judged(completion, purpose, known=known)  # noqa: E731
        async for item in self.ask(node, base_prompt, purpose, judge, context=context):
            if not isinstance(item, Answer):
                yield item
                continue
            blocks = item.verdict.blocks
            children = self.tree.add_children(node, list(blocks))
            for child in children:
                child.repairs = node.repairs + (purpose == Purpose.REPAIR)
            # its purpose unstated, as ReCode's expansions always were: the request says it
            yield self.accepted(node, item, child_ids=tuple(c.id for c in children))
            if not blocks and purpose == Purpose.EXPAND:
                yield self.skipped(node)

    async def _prompt_for(self, node: Node, stub_name: str, purpose: Purpose, outcome: NodeOutcome) -> str:
        env_name, task_type = self.env.name, self.env.task_type
        if purpose == Purpose.EXPAND:
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


def _loaded_names(code: str) -> list[str]:
    """Names a piece of code reads, in order of first use."""
    try:
        tree = safe_parse(code)
    except SyntaxError:
        return []
    loads = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    loads.sort(key=lambda n: (n.lineno, n.col_offset))
    return list(dict.fromkeys(n.id for n in loads))

