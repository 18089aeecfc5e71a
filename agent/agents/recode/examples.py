"""Few-shot examples held to the standard of a live answer: split and parse them, check each, compare answers.

Part of ReCode's prompt authoring (with `agent.agents.recode.authoring`). An example must
parse (`<think>` + `<execute>`), pass `codeblocks.validate` and read no variable before
something binds it;
problems come back as text, never raised, so an editor can show them.
"""

from __future__ import annotations

import ast
import builtins
import difflib
import re
from dataclasses import dataclass

from agent.agents.recode.answer_rule import judge_answer
from agent.runtime.prompt_parts import ExampleCheck
from agent.runtime.code import ALLOWED_MODULES, DEFAULT_HELPERS, InvalidAnswer, parse_answer, safe_parse

# Defined once, by the sandbox: the helpers node code is given and the modules it may import.
HELPERS = DEFAULT_HELPERS
ALLOWED_IMPORTS = ALLOWED_MODULES
BUILTINS = frozenset(dir(builtins))

_VAR_LINE = re.compile(r"^- (\w+) \(([^)]*)\): ?(.*)$")


# -- few-shot examples ---------------------------------------------------------------------


@dataclass(frozen=True)
class Example:
    function: str
    variables: dict[str, tuple[str, str]]  # name -> (type, value)
    answer: str
    line: int  # where the example starts in its file (1-based)


class ExampleFormatError(ValueError):
    """An example is not laid out as `Function:` / `Variables:` / `Answer:`."""


def split_examples(text: str) -> list[tuple[int, str]]:
    """The examples of a file, separated by `---` lines, with the line each starts on."""
    out: list[tuple[int, str]] = []
    start = 1
    chunk: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if re.fullmatch(r"---\s*", line):
            if "".join(chunk).strip():
                out.append((start, "\n".join(chunk)))
            start, chunk = number + 1, []
        else:
            chunk.append(line)
    if "".join(chunk).strip():
        out.append((start, "\n".join(chunk)))
    return out


def parse_example(text: str, line: int = 1) -> Example:
    lines = text.strip("\n").splitlines()
    skipped = len(text) - len(text.lstrip("\n"))
    line += text[:skipped].count("\n")
    if not lines or not lines[0].startswith("Function: "):
        raise ExampleFormatError(f"line {line}: an example starts with 'Function: '")
    function = lines[0][len("Function: "):].strip()
    if len(lines) < 2 or lines[1].strip() != "Variables:":
        raise ExampleFormatError(f"line {line + 1}: the second line is 'Variables:' ({function})")
    variables: dict[str, tuple[str, str]] = {}
    i = 2
    while i < len(lines) and lines[i].strip() != "Answer:":
        m = _VAR_LINE.match(lines[i])
        if not m:
            raise ExampleFormatError(f"line {line + i}: expected `- name (type): value`, got {lines[i]!r}")
        variables[m.group(1)] = (m.group(2), m.group(3))
        i += 1
    if i >= len(lines):
        raise ExampleFormatError(f"line {line}: no 'Answer:' line in {function}")
    return Example(function, variables, "\n".join(lines[i + 1:]), line)


def stub_call(function: str) -> tuple[list[str], str, list[str]]:
    """(names the stub assigns, placeholder name, argument names); ValueError if not a stub."""
    try:
        tree = safe_parse(function)
    except SyntaxError as exc:
        raise ValueError(f"the function line does not parse: {exc.msg}") from None
    if len(tree.body) != 1:
        raise ValueError(f"a stub is one statement: {function}")
    stmt = tree.body[0]
    targets: list[str] = []
    if isinstance(stmt, ast.Assign):
        for target in stmt.targets:
            elts = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
            for e in elts:
                if not isinstance(e, ast.Name):
                    raise ValueError(f"a stub assigns plain names: {function}")
                targets.append(e.id)
        call = stmt.value
    elif isinstance(stmt, ast.Expr):
        call = stmt.value
    else:
        raise ValueError(f"a stub is a call or an assignment of one: {function}")
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
        raise ValueError(f"a stub is a call: {function}")
    args = [a.id for a in call.args if isinstance(a, ast.Name)]
    args += [k.arg for k in call.keywords if k.arg]
    return targets, call.func.id, args


def _bound_by(node: ast.AST) -> set[str]:
    """Names a node binds for code nested in it: comprehension targets, lambda args."""
    names: set[str] = set()
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        for gen in node.generators:
            names |= {n.id for n in ast.walk(gen.target) if isinstance(n, ast.Name)}
    elif isinstance(node, ast.Lambda):
        names |= {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
    return names


def undefined_names(code: str, given: set[str] | frozenset[str]) -> list[str]:
    """Names read before anything binds them (`line N: name`), walking the code in order.

    Simple on purpose: a top-level statement counts as binding everything it
    assigns anywhere inside it (a loop variable, a name set in the loop body)
    before its own reads; names called as functions are placeholders or
    helpers, not variable reads; comprehension and lambda variables are local.
    """
    tree = safe_parse(code)
    defined = set(given) | HELPERS | BUILTINS
    problems: list[str] = []

    def reads(node: ast.AST, local: set[str]) -> None:
        local = local | _bound_by(node)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            for child in [*node.args, *node.keywords]:
                reads(child, local)
            return
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            if node.id not in defined and node.id not in local:
                problems.append(f"line {node.lineno}: {node.id}")
        for child in ast.iter_child_nodes(node):
            reads(child, local)

    for stmt in tree.body:
        binds = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for node in ast.walk(stmt):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                binds |= {(a.asname or a.name).split(".")[0] for a in node.names}
            if isinstance(node, ast.ExceptHandler) and node.name:
                binds.add(node.name)
        if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            # `x = f(y)`: the right side is read before the target is bound.
            if stmt.value is not None:
                reads(stmt.value, set())
            if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
                if stmt.target.id not in defined:
                    problems.append(f"line {stmt.lineno}: {stmt.target.id}")
            defined |= binds
        else:
            # A loop or condition: whatever it binds anywhere counts as bound.
            defined |= binds
            reads(stmt, set())
    return problems


def answer_problems(function: str, given: set[str] | frozenset[str], answer: str) -> list[str]:
    """Everything the engine (`judge_answer`, sandbox check included) and the conventions demand of one answer."""
    verdict = judge_answer(answer, set(given) | HELPERS, typed=False)
    if not verdict.accepted:
        return [verdict.located_message]
    parsed = parse_answer(answer)
    problems: list[str] = []
    if not parsed.thought:
        problems.append("empty <think>")
    if not parsed.code.strip():
        return problems + ["empty <execute>"]
    if "```" in parsed.code:
        problems.append("Markdown fence inside <execute>")
    tree = safe_parse(parsed.code)
    for node in ast.walk(tree):  # imports and `_` names: the sandbox check in judge_answer refused them already
        if isinstance(node, (ast.ClassDef, ast.Return, ast.Global, ast.Nonlocal)):
            problems.append(f"line {node.lineno}: `{type(node).__name__.lower()}` is not allowed")
    undefined = undefined_names(parsed.code, given)
    if undefined:
        problems.append("reads names neither given nor assigned before: " + ", ".join(undefined))
    try:
        targets, _name, _args = stub_call(function)
    except ValueError as exc:
        return problems + [str(exc)]
    assigned = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    missing = [t for t in targets if t not in assigned]
    if missing:
        problems.append(f"the caller expects {', '.join(missing)} to be assigned")
    return problems


def check_example(example: Example) -> list[str]:
    """One example, held to a live answer's standard plus the example conventions."""
    try:
        _targets, name, args = stub_call(example.function)
    except ValueError as exc:
        return [str(exc)]
    problems: list[str] = []
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        problems.append(f"placeholder names are snake_case: {name}")
    if list(example.variables) != args:
        problems.append(f"the Variables list must be the call's arguments in order ({', '.join(args) or 'none'})")
    return problems + answer_problems(example.function, set(example.variables), example.answer)


def check_examples_text(text: str) -> list[ExampleCheck]:
    """Every example of one few-shot file, in order; a format error is a problem too."""
    checks: list[ExampleCheck] = []
    for index, (line, chunk) in enumerate(split_examples(text), start=1):
        try:
            example = parse_example(chunk, line)
        except ExampleFormatError as exc:
            checks.append(ExampleCheck(index, line, "?", (str(exc),)))
            continue
        problems = check_example(example)
        checks.append(ExampleCheck(index, example.line, example.function, tuple(problems)))
    return checks


# -- comparing answers ------------------------------------------------------------------------


def answer_code(answer: str) -> str:
    """The code of an answer for comparison; the raw text when it has no <execute>."""
    try:
        return parse_answer(answer, allow_plain_code=True).code
    except InvalidAnswer:
        return answer.strip()


def answer_diff(recorded: str, candidate: str) -> list[str]:
    """A unified diff of two answers' code (empty when the code is the same)."""
    return list(
        difflib.unified_diff(
            answer_code(recorded).splitlines(), answer_code(candidate).splitlines(),
            "recorded", "new", lineterm="", n=1,
        )
    )


def live_answer_problem(answer: str, known: set[str] | frozenset[str], person: bool = False) -> str:
    """Why the engine would refuse this answer ('' when it would take it), sandbox check included."""
    verdict = judge_answer(answer, set(known) | HELPERS, typed=person)
    return "" if verdict.accepted else verdict.located_message
