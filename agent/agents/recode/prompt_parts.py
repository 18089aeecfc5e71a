"""ReCode's prompt by parts as the front ends edit it (`agent.runtime.prompt_parts.PromptParts`), offered as
`Engine.traits.prompt_workspace`: the console's prompt workspace and `prompt show --stub` reach ReCode's
rendering, example checks and saving through it, never by importing this package.

Each method hands on to the module that does the work, imported when first used, so declaring the
capability costs the engine's import nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent.llm import CallContext
from agent.runtime.code import DEFAULT_HELPERS
from agent.runtime.prompt_parts import DraftPromptSet, ExampleCheck, ExamplePlay, RenderedPrompt
from agent.runtime.prompts import PromptContext, PromptSet
from agent.runtime.runner import CodeRunner


class RecodePromptParts:
    """ReCode's expand template, its few-shot files and its prompt sets on disk."""

    helpers = DEFAULT_HELPERS  # the sandbox's helpers: what node code reads unbound

    def render(self, prompts: PromptSet, env_name: str, task_type: str | None, code: str,
               variable_lines: list[str], context: PromptContext | None = None) -> RenderedPrompt:
        from agent.agents.recode.prompt_render import render_prompt

        return render_prompt(prompts, env_name, task_type, code, variable_lines, context)

    def recorded_variables(self, prompt: str, prompts: PromptSet, env_name: str, task_type: str | None,
                           code: str) -> list[str] | None:
        from agent.agents.recode.prompt_render import variables_from_prompt

        return variables_from_prompt(prompt, prompts, env_name, task_type, code)

    def recorded_context(self, prompt: str, prompts: PromptSet, env_name: str, task_type: str | None,
                         code: str) -> dict[str, str]:
        from agent.agents.recode.prompt_render import context_from_prompt

        return context_from_prompt(prompt, prompts, env_name, task_type, code)

    def variable_lines(self, stub: str, values: dict[str, Any]) -> list[str]:
        from agent.agents.recode.prompt_render import stub_variable_lines

        return stub_variable_lines(stub, values)

    def call_arguments(self, code: str, name: str) -> tuple[str, ...]:
        from agent.agents.recode.prompt import call_arguments

        return call_arguments(code, name).names

    def call_context(self, code: str, stub_name: str) -> CallContext:
        from agent.agents.recode.call_notes import stub_context

        return stub_context(code, stub_name)

    def check_examples(self, text: str) -> list[ExampleCheck]:
        from agent.agents.recode.examples import check_examples_text

        return check_examples_text(text)

    def answer_diff(self, recorded: str, candidate: str) -> list[str]:
        from agent.agents.recode.examples import answer_diff

        return answer_diff(recorded, candidate)

    async def play_examples(self, text: str, episode_ref: str, env_name: str, prompts: PromptSet,
                            walls_of: CodeRunner) -> ExamplePlay:
        from agent.agents.recode.authoring import play_examples
        from agent.sandbox.settings import RunnerSettings

        own = RunnerSettings.of_runner(walls_of)  # the run's walls and layers, as the user set them
        return await play_examples(text, episode_ref, env_name, prompts, sandbox=own.sandbox if own is not None else None)

    def editable_files(self, prompts: PromptSet, env_name: str) -> list[str]:
        from agent.agents.recode.prompt_drafts import editable_files

        return editable_files(prompts, env_name)

    def examples_file(self, env_name: str, task_type: str | None) -> str | None:
        from agent.agents.recode.prompt_drafts import examples_file

        return examples_file(env_name, task_type)

    def save(self, draft: DraftPromptSet, name: str, prompts_dir: Path) -> Path:
        from agent.agents.recode.prompt_drafts import save_prompt_set

        return save_prompt_set(draft, name, prompts_dir)

    def default_set_name(self, prompts: PromptSet) -> str:
        from agent.agents.recode.prompt_drafts import default_set_name

        return default_set_name(prompts)
