"""Authoring prompt sets: edit in memory, render by parts, check few-shot examples, save.

This module plays the examples as a plan; the rest lives in
`prompt_drafts` (drafts, saving), `prompt_render` (the prompt by parts) and
`examples` (parsing and checking examples); callers import each name
from the module that defines it.

UI-free on purpose: the console's prompt workspace, `recode-tui prompt show`
and the tests of the bundled prompts all use these functions, so an example
the workspace flags is exactly one the test suite would reject.

A few-shot example is held to the same standard as a live answer: it must
parse (`<think>` + `<execute>`), pass `codeblocks.validate`, and read no
variable before something binds it. Problems are returned as text, never
raised, so an editor can show them next to the file.

Each example is also a piece of a plan, and a model copies it closely: the
examples of a task type, played as answers (`play_examples`), must win a real
bundled game of that type.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent.agents.recode.examples import Example, ExampleFormatError, parse_example, split_examples
from agent.llm import CallContext, Completion, LLMError, Purpose, Usage
from agent.runtime.prompt_parts import ExamplePlay
from agent.runtime.prompts import PromptSet
from agent.sandbox.walls import SandboxPolicy

__all__ = ["ExamplesLLM", "play_examples"]


# -- playing the examples: each one is a piece of a plan ---------------------------------------

def _same_code(code: str) -> str:
    return re.sub(r"\s+", "", code)


class ExamplesLLM:
    """An LLM that answers each stub with the few-shot example written for that stub.

    It never repairs: an example whose code raises has failed, and the play
    says so instead of papering over it.
    """

    name = "examples"

    def __init__(self, examples: list[Example]) -> None:
        self.answers = {_same_code(e.function): e.answer for e in examples}

    async def complete(self, prompt: str, context: CallContext | None = None) -> Completion:
        code = context.label if context is not None else ""
        if context is not None and context.purpose != Purpose.EXPAND:
            raise LLMError(f"the example code for `{code}` raised an error (see the node's output)")
        answer = self.answers.get(_same_code(code))
        if answer is None:
            raise LLMError(f"no example is written for the stub `{code}`")
        return Completion(answer, Usage(), 0.0, "scripted")


async def play_examples(
    text: str,
    episode_ref: str,
    env_name: str = "alfworld",
    prompts: PromptSet | None = None,
    max_steps: int = 80,
    sandbox: SandboxPolicy | None = None,
) -> ExamplePlay:
    """Play the examples of one few-shot file as the answers of a run on `episode_ref` (the real engine and env).

    `sandbox`: the user's walls and layers (the run's runner settings carry them; None: the strictest).

    Async and slow (a game load and one action per step, in the engine's
    threads): a UI runs it in a background worker, never on its own thread.
    """
    from agent import agents  # the engine by its registry name: it offers this module (a static import is a cycle)
    from agent.runtime.events import ActionSent
    from agent.sandbox.settings import RunnerSettings
    from envs.registry import make_env
    from envs.base import EnvError

    examples: list[Example] = []
    for line, chunk in split_examples(text):
        try:
            examples.append(parse_example(chunk, line))
        except ExampleFormatError as exc:
            return ExamplePlay(episode_ref, False, f"not played: {exc}", 0, 0)
    try:
        env = make_env(episode_ref, max_steps=max_steps)
    except EnvError as exc:
        return ExamplePlay(episode_ref, False, f"not played: {exc}", 0, 0)
    # An author's examples are code like a model's: played in the sandbox with its checks, as a run would.
    runner = (RunnerSettings(sandbox=sandbox) if sandbox is not None else RunnerSettings()).make_runner()
    engine = agents.agent_class("recode")(env, ExamplesLLM(examples), runner, prompts=prompts or PromptSet())
    actions: list[str] = []
    try:
        result = await engine.run(lambda e: actions.append(e.action) if isinstance(e, ActionSent) else None)
    finally:
        await engine.close()
        env.close()
    return ExamplePlay(episode_ref, result.success, result.reason, result.steps, result.llm_calls, tuple(actions))
