"""Build the one prompt a stub's expansion gets (spec §3).

ReCode's set (`prompts/default`, and `prompts/paper`, the paper's own) holds
`expand.txt`, `rewrite_note.txt` and `repair.txt`; `$function` is the stub's
code and `$variables` the variables its call passes (`call_arguments`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from string import Template
from typing import Any

from agent.runtime.code import call_name, called_names, safe_parse
from agent.runtime.prompts import DEFAULT_PROMPTS, PromptContext, PromptSet

PAPER_PROMPTS = DEFAULT_PROMPTS.parent / "paper"  # the paper's prompts: no context fields


@dataclass(frozen=True)
class CallArguments:
    """What a placeholder call passes: the names the prompt lists as variables."""

    names: tuple[str, ...]
    literals: dict[str, Any]  # keyword=literal, stored as variables first
    expressions: dict[str, str]  # keyword=expression, bound as variables first


def call_arguments(code: str, name: str) -> CallArguments:
    """The arguments of the first call `name(...)` in a stub's code."""
    try:
        tree = safe_parse(code)
    except SyntaxError:
        return CallArguments((), {}, {})
    call = next((c for c in called_names(tree) if call_name(c) == name), None)
    if call is None:
        return CallArguments((), {}, {})
    names: list[str] = [a.id for a in call.args if isinstance(a, ast.Name)]
    literals: dict[str, Any] = {}
    expressions: dict[str, str] = {}
    for keyword in call.keywords:
        if keyword.arg is None:  # **kwargs
            continue
        try:
            literals[keyword.arg] = ast.literal_eval(keyword.value)
        except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
            try:
                source = ast.unparse(keyword.value)
            except RecursionError:  # nested too deeply to print back: not bound, not listed
                continue
            if source != keyword.arg:
                expressions[keyword.arg] = source
        names.append(keyword.arg)
    return CallArguments(tuple(dict.fromkeys(names)), literals, expressions)


def build_expand_prompt(
    prompts: PromptSet,
    env_name: str,
    task_type: str | None,
    function_code: str,
    variable_lines: list[str],
    context: PromptContext | None = None,
) -> str:
    """The expand template filled in; `context` fills the run's fields (`$task`, ...) when it uses them."""
    return Template(prompts.text("expand.txt")).safe_substitute(
        actions=prompts.actions(env_name),
        facts=prompts.facts(env_name),
        examples=prompts.examples(env_name, task_type),
        function=function_code,
        variables="\n".join(variable_lines) if variable_lines else "(no variables)",
        **(context or PromptContext()).fields(),
    )


def build_repair_prompt(
    prompts: PromptSet,
    env_name: str,
    task_type: str | None,
    function_code: str,
    variable_lines: list[str],
    error: str,
    output: str,
    context: PromptContext | None = None,
) -> str:
    """The prompt for replacing a node that raised (our use of `max_retry`)."""
    base = build_expand_prompt(prompts, env_name, task_type, function_code, variable_lines, context)
    note = Template(prompts.text("repair.txt")).safe_substitute(
        function=function_code, error=error, output=output.strip() or "(nothing)"
    )
    return f"{base.rstrip()}\n\n{note.strip()}\n"
