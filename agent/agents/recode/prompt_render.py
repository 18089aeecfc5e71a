"""ReCode's expand prompt by parts: the exact text the engine sends, each part's share, and the fields read back from a recorded prompt.

Part of ReCode's prompt authoring (with `agent.agents.recode.authoring`): what the prompt
workspace counts and `recode-tui prompt show` prints, with no editing or checking in it.
"""

from __future__ import annotations

import re
from string import Template
from typing import Any

from agent.agents.recode.examples import stub_call
from agent.agents.recode.prompt_drafts import EXPAND_TEMPLATE
from agent.runtime.prompt_parts import RenderedPrompt
from agent.runtime.prompts import CONTEXT_FIELDS, PromptContext, PromptSet

PART_NAMES = ("rules", "actions", "examples", "context", "task", "variables")  # "task": the stub's code


# -- rendering, part by part -------------------------------------------------------------


def render_prompt(
    prompts: PromptSet,
    env_name: str,
    task_type: str | None,
    function_code: str,
    variable_lines: list[str],
    context: PromptContext | None = None,
) -> RenderedPrompt:
    """Fill the expand template the way the engine does; keep each part for counting.

    "context" is what the run's fields (`$task`, `$recent_actions`, ...) add:
    nothing for a template that does not use them.
    """
    from agent.agents.recode.prompt import build_expand_prompt

    text = build_expand_prompt(prompts, env_name, task_type, function_code, variable_lines, context)
    template = Template(prompts.text(EXPAND_TEMPLATE))
    empty = dict.fromkeys(("actions", "facts", "examples", "function", "variables", *CONTEXT_FIELDS), "")
    rules = template.safe_substitute(empty)
    fields = (context or PromptContext()).fields()
    used = _template_fields(prompts.text(EXPAND_TEMPLATE))
    parts = {
        "rules": rules,
        "actions": prompts.actions(env_name) + prompts.facts(env_name),  # the environment's texts
        "examples": prompts.examples(env_name, task_type),
        "context": "".join(fields[f] * _count_field(template.template, f) for f in CONTEXT_FIELDS if f in used),
        "task": function_code,
        "variables": "\n".join(variable_lines) if variable_lines else "(no variables)",
    }
    return RenderedPrompt(text, parts)


def _template_fields(text: str) -> set[str]:
    """The `$fields` a template text uses."""
    return {m.group("named") or m.group("braced") for m in Template.pattern.finditer(text)} - {None}


def _count_field(text: str, name: str) -> int:
    return sum(1 for m in Template.pattern.finditer(text) if name in (m.group("named"), m.group("braced")))


def _recorded_fields(
    prompt: str, prompts: PromptSet, env_name: str, task_type: str | None, function_code: str
) -> dict[str, str] | None:
    """The texts a recorded prompt has in place of `$variables` and the context fields; None if built otherwise.

    Renders the same template with a marker in each place and matches the
    recording against it: exact, whatever the template.
    """
    names = ("variables", *CONTEXT_FIELDS)
    markers = {n: f"\x00{n}\x00" for n in names}
    text = Template(prompts.text(EXPAND_TEMPLATE)).safe_substitute(
        actions=prompts.actions(env_name),
        facts=prompts.facts(env_name),
        examples=prompts.examples(env_name, task_type),
        function=function_code,
        **markers,
    )
    if text.count(markers["variables"]) != 1:
        return None
    pattern, seen = "", set()
    for piece in re.split("(\x00\\w+\x00)", text):
        name = piece.strip("\x00") if piece.startswith("\x00") else None
        if name in markers:
            pattern += f"(?P={name})" if name in seen else f"(?P<{name}>.*?)"
            seen.add(name)
        else:
            pattern += re.escape(piece)
    match = re.fullmatch(pattern, prompt, re.DOTALL)
    return None if match is None else {n: match.group(n) for n in seen}


def variables_from_prompt(
    prompt: str, prompts: PromptSet, env_name: str, task_type: str | None, function_code: str
) -> list[str] | None:
    """The variable lines a recorded prompt was built with, or None if it was built differently."""
    found = _recorded_fields(prompt, prompts, env_name, task_type, function_code)
    if found is None:
        return None  # e.g. a re-ask, with a note after the template
    rest = found["variables"]
    if rest.strip() == "(no variables)":
        return []
    lines = rest.splitlines()
    if not all(line.startswith("- ") for line in lines):
        return None  # something else shares the place (a note after a template ending in $variables)
    return lines


def context_from_prompt(
    prompt: str, prompts: PromptSet, env_name: str, task_type: str | None, function_code: str
) -> dict[str, str]:
    """The context fields' texts (`task`, `recent_actions`, ...) a recorded prompt shows; {} when none."""
    found = _recorded_fields(prompt, prompts, env_name, task_type, function_code) or {}
    return {n: found[n] for n in CONTEXT_FIELDS if n in found}


def stub_variable_lines(stub: str, values: dict[str, Any]) -> list[str]:
    """Variable lines for a stub outside a run.

    Each argument of the stub's placeholder call, in order: a value from
    `values` (e.g. the task's instruction and observation) or a keyword
    literal of the call is shown as the engine would show it; any other name
    is listed as `- name: (not bound)`, so a reader sees what a run would fill in.
    """
    from agent.agents.recode.prompt import call_arguments
    from agent.runtime.varlist import prompt_line

    _targets, name, _args = stub_call(stub)
    args = call_arguments(stub, name)
    bound = {**values, **args.literals}
    return [prompt_line(n, bound[n]) if n in bound else f"- {n}: (not bound)" for n in args.names]
