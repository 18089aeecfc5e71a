"""Build the one prompt a stub's expansion gets (spec §3).

The texts live in a *prompt set*, a folder of plain files, so that people can
author them: `expand.txt`, `rewrite_note.txt`, `repair.txt` (string.Template,
since code is full of braces), and per environment `<env>/actions.txt` and
`<env>/examples/<task_type>.txt`.
"""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from typing import Any

from agent.codeblocks import called_names, safe_parse

DEFAULT_PROMPTS = Path(__file__).parent / "prompts" / "default"


@dataclass
class PromptSet:
    """A folder of prompt texts; files are read once and cached."""

    root: Path = DEFAULT_PROMPTS
    _cache: dict[str, str] = field(default_factory=dict, repr=False)
    _hash: str = field(default="", repr=False)

    def text(self, relative: str) -> str:
        if relative not in self._cache:
            path = self.root / relative
            self._cache[relative] = path.read_text(encoding="utf-8") if path.is_file() else ""
        return self._cache[relative]

    def actions(self, env_name: str) -> str:
        return self.text(f"{env_name}/actions.txt").strip()

    def examples(self, env_name: str, task_type: str | None) -> str:
        """The few-shot examples for a task type; all of the environment's when unknown."""
        if task_type:
            specific = self.text(f"{env_name}/examples/{task_type}.txt").strip()
            if specific:
                return specific
        folder = self.root / env_name / "examples"
        files = sorted(folder.glob("*.txt")) if folder.is_dir() else []
        return "\n---\n".join(self.text(f"{env_name}/examples/{f.name}").strip() for f in files)

    def content_hash(self) -> str:
        """A short hash of every file: which prompt texts produced an expansion.

        Computed once, like the texts are read once: the journal asks for it at
        every expansion.
        """
        if not self._hash:
            digest = hashlib.sha256()
            for path in sorted(p for p in self.root.rglob("*") if p.is_file()):
                digest.update(str(path.relative_to(self.root)).encode())
                digest.update(path.read_bytes())
            self._hash = digest.hexdigest()[:12]
        return self._hash


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
    call = next((c for c in called_names(tree) if c.func.id == name), None)  # type: ignore[attr-defined]
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
) -> str:
    return Template(prompts.text("expand.txt")).safe_substitute(
        actions=prompts.actions(env_name),
        examples=prompts.examples(env_name, task_type),
        function=function_code,
        variables="\n".join(variable_lines) if variable_lines else "(no variables)",
    )


def build_repair_prompt(
    prompts: PromptSet,
    env_name: str,
    task_type: str | None,
    function_code: str,
    variable_lines: list[str],
    error: str,
    output: str,
) -> str:
    """The prompt for replacing a node that raised (our use of `max_retry`)."""
    base = build_expand_prompt(prompts, env_name, task_type, function_code, variable_lines)
    note = Template(prompts.text("repair.txt")).safe_substitute(
        function=function_code, error=error, output=output.strip() or "(nothing)"
    )
    return f"{base.rstrip()}\n\n{note.strip()}\n"


def rewrite_note(prompts: PromptSet, reason: str) -> str:
    """Appended to the same prompt when the previous answer was rejected."""
    return "\n\n" + Template(prompts.text("rewrite_note.txt")).safe_substitute(reason=reason).strip() + "\n"
