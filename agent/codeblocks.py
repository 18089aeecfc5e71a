"""Turning an LLM's answer into the code blocks that become child nodes.

An answer holds `<think>...</think>` and `<execute>...</execute>`. The code is
split into top-level statements (one node each) and validated before any of
it runs: it must compile, hold no `def`/`async def`, and call no placeholder
inside a loop or a condition (ReCode expands a placeholder once, so one inside
a loop would be expanded for the first iteration's values only).
"""

from __future__ import annotations

import ast
import builtins
import re
import textwrap
from dataclasses import dataclass

_THINK = re.compile(r"<think>(.*?)(?:</think>|$)", re.S | re.I)
_EXECUTE = re.compile(r"<execute>(.*?)(?:</execute>|$)", re.S | re.I)
_FENCE = re.compile(r"^\s*```[a-zA-Z0-9_+-]*\s*\n(.*?)\n\s*```\s*$", re.S)

BUILTIN_NAMES = frozenset(dir(builtins))


class InvalidAnswer(ValueError):
    """The answer cannot become child nodes; the message says why (it is sent back to the LLM)."""


@dataclass(frozen=True)
class ParsedAnswer:
    thought: str
    code: str


def parse_answer(text: str, allow_plain_code: bool = False) -> ParsedAnswer:
    """Pull the thought and the code out of an answer.

    A model must use `<execute>`; a person typing in the console may give plain
    code (`allow_plain_code`).
    """
    think = _THINK.search(text)
    thought = think.group(1).strip() if think else ""
    execute = _EXECUTE.search(text)
    if execute:
        code = execute.group(1)
    elif allow_plain_code and not re.search(r"</?think>", text, re.I):
        code = text
    elif allow_plain_code and think:
        code = text[think.end():]
    else:
        raise InvalidAnswer(
            "the answer has no <execute>...</execute> section; put the code inside <execute> tags"
        )
    fenced = _FENCE.match(code)
    if fenced:
        code = fenced.group(1)
    return ParsedAnswer(thought=thought, code=textwrap.dedent(code).strip("\n"))


def split_blocks(code: str) -> list[str]:
    """Split code into its top-level statements, keeping each one's own text.

    Raises InvalidAnswer naming the line when the code does not compile.
    """
    if not code.strip():
        return []
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        raise InvalidAnswer(f"syntax error on line {exc.lineno}: {exc.msg}") from None
    lines = code.splitlines()
    blocks: list[str] = []
    for i, stmt in enumerate(tree.body):
        start = stmt.lineno - 1
        if getattr(stmt, "decorator_list", None):
            start = min(d.lineno for d in stmt.decorator_list) - 1  # type: ignore[attr-defined]
        end = stmt.end_lineno or stmt.lineno
        # Keep comment lines that directly precede a statement with it.
        block = "\n".join(lines[start:end])
        blocks.append(textwrap.dedent(block).strip("\n"))
    return blocks


def assigned_names(tree: ast.AST) -> set[str]:
    """Every name a piece of code binds (assignment targets, loop variables, imports, ...)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                names.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


def called_names(tree: ast.AST) -> list[ast.Call]:
    """Calls of a bare name, `f(...)`, in source order."""
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    return sorted(calls, key=lambda c: (c.lineno, c.col_offset))


def calls_name(code: str, name: str) -> bool:
    """Whether `code` contains a call `name(...)`: what makes a NameError a stub."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return False
    return any(c.func.id == name for c in called_names(tree))  # type: ignore[attr-defined]


def validate(code: str, known_names: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """Split and check an expansion's code; return its blocks or raise InvalidAnswer.

    `known_names` are the names already bound (variables and helpers); a call
    of any other name that the code does not bind itself is a placeholder.
    """
    blocks = split_blocks(code)
    if not blocks:
        return []
    tree = ast.parse(code)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            raise InvalidAnswer(
                f"line {node.lineno}: `def {node.name}` is not allowed; call a placeholder "
                f"`{node.name}(...)` instead and it will be expanded later"
            )
    known = set(known_names) | BUILTIN_NAMES | assigned_names(tree)
    for stmt in ast.walk(tree):
        if not isinstance(stmt, (ast.For, ast.AsyncFor, ast.While, ast.If, ast.Try, ast.With)):
            continue
        kind = "loop" if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)) else "condition"
        inner = [*stmt.body, *getattr(stmt, "orelse", [])]
        if isinstance(stmt, (ast.If, ast.While)):
            inner.append(stmt.test)  # type: ignore[arg-type]
        for part in inner:
            for call in called_names(part):
                name = call.func.id  # type: ignore[attr-defined]
                if name not in known:
                    raise InvalidAnswer(
                        f"line {call.lineno}: placeholder `{name}(...)` is inside a {kind}; "
                        f"placeholders may only be called at the top level of the code. "
                        f"Call it before the {kind} or write the {kind} with primitive actions"
                    )
    return blocks
