"""ReCode's rules for an expansion's code, checked before any of it runs.

The code must compile, hold no `def`/`async def`, and call a placeholder only
as a whole top-level statement (`x = name(args)` or `name(args)`): ReCode
expands a placeholder once, so one inside a loop would be expanded for the
first iteration's values only, and one inside an expression (`name(1) + 2`)
leaves nothing for the expansion to assign. Line numbers in every message are
those of the whole answer text (`ParsedAnswer.first_line` maps code to answer).
"""

from __future__ import annotations

import ast
import builtins
import sys

from agent.runtime.code import (BUILTIN_NAMES, DEFAULT_HELPERS, InvalidAnswer, renumber, assigned_names, call_name, called_names,
                                safe_parse, split_blocks)

_COMPOUND: tuple[type, ...] = (ast.For, ast.AsyncFor, ast.While, ast.If, ast.Try, ast.With, ast.AsyncWith, ast.Match)
if sys.version_info >= (3, 11):
    _COMPOUND += (ast.TryStar,)


def stub_name_of(code: str) -> str | None:
    """The first called name in `code` that is not a helper or a builtin: the placeholder."""
    try:
        tree = safe_parse(code)
    except SyntaxError:
        return None
    for call in called_names(tree):
        name = call_name(call)
        if name not in DEFAULT_HELPERS and name not in vars(builtins):
            return name
    return None


def validate(code: str, known_names: frozenset[str] | set[str] = frozenset(), first_line: int = 1) -> list[str]:
    """Split and check an expansion's code; return its blocks or raise InvalidAnswer.

    `known_names` are the names already bound (variables and helpers); a call
    of any other name that the code does not bind itself is a placeholder.
    `first_line` is the answer line of the code's first line
    (`ParsedAnswer.first_line`): messages name lines of the whole answer.
    """
    blocks = split_blocks(code, first_line)
    if not blocks:
        return []
    tree = safe_parse(code)
    try:
        _check_structure(code, tree, set(known_names))
    except InvalidAnswer as exc:
        raise InvalidAnswer(renumber(str(exc), first_line)) from None
    return blocks


def _check_structure(code: str, tree: ast.AST, known_names: set[str]) -> None:
    assert isinstance(tree, ast.Module)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            raise InvalidAnswer(
                f"line {node.lineno}: `def {node.name}` is not allowed; call a placeholder "
                f"`{node.name}(...)` instead and it will be expanded later"
            )
    known = known_names | BUILTIN_NAMES | assigned_names(tree)
    calls = _calls_in_context(tree)
    for call, kind, _ in calls:
        name = call_name(call)
        if kind and name not in known:
            raise InvalidAnswer(
                f"line {call.lineno}: placeholder `{name}(...)` is inside a {kind}; "
                f"placeholders may only be called at the top level of the code. "
                f"Call it before the {kind} or write the {kind} with primitive actions"
            )
    # Rule 3: a placeholder call is a whole top-level statement, `x = name(...)` or `name(...)`.
    whole = {
        id(stmt.value)
        for stmt in tree.body
        if isinstance(stmt, (ast.Expr, ast.Assign))
        and isinstance(stmt.value, ast.Call)
        and isinstance(stmt.value.func, ast.Name)
    }
    looped = {id(call) for call, _, in_loop in calls if in_loop}
    for call in called_names(tree):
        name = call_name(call)
        if name in known or id(call) in whole:
            continue
        if id(call) in looped:
            raise InvalidAnswer(
                f"line {call.lineno}: placeholder `{name}(...)` is inside a comprehension or a lambda; "
                f"it would be expanded for one item only. Call it once at the top level "
                f"(`x = {name}(...)`) or write the loop with primitive actions"
            )
        statement = next(s for s in tree.body if s.lineno <= call.lineno <= (s.end_lineno or s.lineno))
        raise InvalidAnswer(
            f"line {call.lineno}: placeholder `{name}(...)` is used inside a larger statement; "
            f"a placeholder call must be a whole statement (`x = {name}(...)` or `{name}(...)`). "
            + _rewrite_hint(code, statement, call, known)
        )


_LOOPING = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Lambda)
_INNER_FIELDS = ("body", "orelse", "handlers", "finalbody", "cases")  # a compound's parts a placeholder may not be in


def _calls_in_context(tree: ast.AST) -> list[tuple[ast.Call, str, bool]]:
    """Every bare-name call in source order, with the kind ("loop", "condition") of the outermost
    compound statement whose body holds it ('' for none) and whether a comprehension or lambda holds it.

    One walk of the tree (an `elif` chain of thousands is as deep as it is long): checking each
    compound's body by walking it again made a long chain quadratic.
    """
    found: list[tuple[ast.Call, str, bool]] = []
    stack: list[tuple[ast.AST, str, bool]] = [(tree, "", False)]
    while stack:
        node, kind, in_loop = stack.pop()
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            found.append((node, kind, in_loop))
        child_loop = in_loop or isinstance(node, _LOOPING)
        if not kind and isinstance(node, _COMPOUND):
            own = "loop" if isinstance(node, (ast.For, ast.AsyncFor, ast.While)) else "condition"
            inner = {id(part) for name, parts in ast.iter_fields(node) if name in _INNER_FIELDS for part in parts}
            if isinstance(node, (ast.If, ast.While)):
                inner.add(id(node.test))
            stack.extend((child, own if id(child) in inner else "", child_loop) for child in ast.iter_child_nodes(node))
        else:
            stack.extend((child, kind, child_loop) for child in ast.iter_child_nodes(node))
    found.sort(key=lambda item: (item[0].lineno, item[0].col_offset))
    return found


def _rewrite_hint(code: str, statement: ast.stmt, call: ast.Call, known: set[str]) -> str:
    """How to write it: call the placeholder on its own line, then use the result."""
    name = call_name(call)
    call_text = ast.get_source_segment(code, call) or f"{name}(...)"
    statement_text = ast.get_source_segment(code, statement) or ""
    target = ""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
        target = statement.targets[0].id
    if not target:
        target = "result" if "result" not in known else f"{name}_result"
    simple = not isinstance(statement, _COMPOUND) and "\n" not in statement_text
    if len(call_text) > 60 or "\n" in call_text:
        call_text = f"{name}(...)"
    if simple and call_text in statement_text and len(statement_text) <= 100:
        rest = statement_text.replace(ast.get_source_segment(code, call) or call_text, target, 1)
        return f"Write `{target} = {call_text}`, then `{rest}`"
    return f"Write `{target} = {call_text}` on its own line before, then use `{target}`"
