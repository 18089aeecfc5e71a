"""Turning an LLM's answer into the code blocks that become child nodes.

An answer holds `<think>...</think>` and `<execute>...</execute>`. The code is
split into top-level statements (one node each) and validated before any of
it runs: it must compile, hold no `def`/`async def`, and call a placeholder
only as a whole top-level statement (`x = name(args)` or `name(args)`): ReCode
expands a placeholder once, so one inside a loop would be expanded for the
first iteration's values only, and one inside an expression (`name(1) + 2`)
leaves nothing for the expansion to assign.

Line numbers in every message are those of the whole answer text, as the
person or the model sees it (`ParsedAnswer.first_line` maps code to answer).
Every parse of answer or node code on the host goes through `safe_parse`, so
code the parser gives up on (too deep, too large, null bytes) is a syntax
error with a reason, never a crash.
"""

from __future__ import annotations

import ast
import builtins
import re
import sys
import textwrap
from dataclasses import dataclass

_THINK = re.compile(r"<think>(.*?)(?:</think>|$)", re.S | re.I)
_EXECUTE = re.compile(r"<execute>(.*?)(?:</execute>|$)", re.S | re.I)
_FENCE = re.compile(r"^\s*```[a-zA-Z0-9_+-]*\s*\n(.*?)\n\s*```\s*$", re.S)
# A fenced block anywhere in an answer (```python ... ```), for an answer without <execute>.
_FENCED_BLOCK = re.compile(r"^[ \t]*```[ \t]*(?:python3?|py)?[ \t]*\n(.*?)^[ \t]*```[ \t]*$", re.S | re.M | re.I)

BUILTIN_NAMES = frozenset(dir(builtins))
_LINE_REF = re.compile(r"\bline (\d+)")
_COMPOUND: tuple[type, ...] = (ast.For, ast.AsyncFor, ast.While, ast.If, ast.Try, ast.With, ast.AsyncWith, ast.Match)
_COMPOUND += (ast.TryStar,) if hasattr(ast, "TryStar") else ()  # Python 3.11+

DEFAULT_HELPERS: frozenset[str] = frozenset({"run", "print", "re"})  # bound in every node's namespace


class InvalidAnswer(ValueError):
    """The answer cannot become child nodes; the message says why (it is sent back to the LLM)."""


class UnparsableCode(SyntaxError):
    """Code the parser gave up on (nested too deeply, too large, null bytes): a syntax error with a reason."""


def safe_parse(code: str, mode: str = "exec") -> ast.AST:
    """`ast.parse` for code from an answer or a node: every failure is a SyntaxError.

    The parser raises RecursionError, MemoryError or ValueError on some inputs
    (an expression of 100k terms, a null byte); those become `UnparsableCode`,
    so callers that handle a syntax error handle them too.
    """
    try:
        return ast.parse(code, mode=mode)
    except SyntaxError:
        raise
    except RecursionError:
        raise UnparsableCode(
            "the code is nested too deeply to parse; split the long expression into several statements"
        ) from None
    except MemoryError:
        raise UnparsableCode(
            "the code is too large or nested too deeply to parse; split it into several statements"
        ) from None
    except ValueError as exc:
        raise UnparsableCode(f"the code cannot be parsed: {exc}") from None


@dataclass(frozen=True)
class ParsedAnswer:
    thought: str
    code: str
    first_line: int = 1  # the line of the whole answer text where the code's first line is
    ignored_tail: str = ""  # text after `</execute>`: not run, worth telling the author

    @property
    def notes(self) -> tuple[str, ...]:
        """Things the author should know that do not make the answer invalid."""
        if not self.ignored_tail:
            return ()
        tail = " ".join(self.ignored_tail.split())
        if len(tail) > 60:
            tail = tail[:57] + "..."
        return (f"the text after </execute> was ignored: {tail!r}",)


def parse_answer(text: str, allow_plain_code: bool = False) -> ParsedAnswer:
    """Pull the thought and the code out of an answer.

    The code is the `<execute>` section; without one, a single fenced block
    (```python ... ```) is the code, as many models write it. A person typing in
    the console may give plain code (`allow_plain_code`).
    """
    think = _THINK.search(text)
    thought = think.group(1).strip() if think else ""
    execute = _EXECUTE.search(text)
    tail = ""
    if execute:
        code, start = execute.group(1), execute.start(1)
        if execute.group(0).lower().endswith("</execute>"):
            tail = text[execute.end():].strip()
    elif len(fences := _FENCED_BLOCK.findall(text)) == 1:
        # Many models answer with one ```python block and no tags: that block is the code.
        block = _FENCED_BLOCK.search(text)
        assert block is not None
        code, start = block.group(1), block.start(1)
        tail = text[block.end():].strip()
        if not think:
            thought = text[: block.start()].strip()
    elif len(fences) > 1:
        raise InvalidAnswer(
            f"the answer has {len(fences)} fenced code blocks and no <execute> section; "
            "put all the code in one <execute>...</execute> section (or give one ```python block)"
        )
    elif allow_plain_code and not re.search(r"</?think>", text, re.I):
        code, start = text, 0
    elif allow_plain_code and think:
        code, start = text[think.end():], think.end()
    else:
        raise InvalidAnswer(
            "the answer has no <execute>...</execute> section; put the code inside <execute> tags"
        )
    fenced = _FENCE.match(code)
    if fenced:
        code, start = fenced.group(1), start + fenced.start(1)
    code = textwrap.dedent(code)
    leading = len(code) - len(code.lstrip("\n"))
    first_line = text[:start].count("\n") + 1 + leading
    return ParsedAnswer(thought=thought, code=code.strip("\n"), first_line=first_line, ignored_tail=tail)


def _renumber(message: str, first_line: int) -> str:
    """Code line numbers in `message` -> answer line numbers (every `line N`)."""
    if first_line == 1:
        return message
    return _LINE_REF.sub(lambda m: f"line {int(m.group(1)) + first_line - 1}", message)


def split_blocks(code: str, first_line: int = 1) -> list[str]:
    """Split code into its top-level statements, keeping each one's own text.

    Raises InvalidAnswer naming the line (of the answer, see `first_line`)
    when the code does not compile.
    """
    if not code.strip():
        return []
    try:
        tree = safe_parse(code)
    except UnparsableCode as exc:
        raise InvalidAnswer(str(exc.msg)) from None
    except SyntaxError as exc:
        raise InvalidAnswer(_renumber(f"syntax error on line {exc.lineno}: {exc.msg}", first_line)) from None
    assert isinstance(tree, ast.Module)
    lines = code.splitlines()
    blocks: list[str] = []
    for stmt in tree.body:
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
        tree = safe_parse(code)
    except SyntaxError:
        return False
    return any(c.func.id == name for c in called_names(tree))  # type: ignore[attr-defined]


def stub_name_of(code: str) -> str | None:
    """The first called name in `code` that is not a helper or a builtin: the placeholder."""
    try:
        tree = safe_parse(code)
    except SyntaxError:
        return None
    for call in called_names(tree):
        name = call.func.id  # type: ignore[attr-defined]
        if name not in DEFAULT_HELPERS and not hasattr(builtins, name):
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
        raise InvalidAnswer(_renumber(str(exc), first_line)) from None
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
        name = call.func.id  # type: ignore[attr-defined]
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
        name = call.func.id  # type: ignore[attr-defined]
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
            inner = {id(part) for name in _INNER_FIELDS for part in getattr(node, name, [])}
            if isinstance(node, (ast.If, ast.While)):
                inner.add(id(node.test))
            stack.extend((child, own if id(child) in inner else "", child_loop) for child in ast.iter_child_nodes(node))
        else:
            stack.extend((child, kind, child_loop) for child in ast.iter_child_nodes(node))
    found.sort(key=lambda item: (item[0].lineno, item[0].col_offset))
    return found


def _rewrite_hint(code: str, statement: ast.stmt, call: ast.Call, known: set[str]) -> str:
    """How to write it: call the placeholder on its own line, then use the result."""
    name = call.func.id  # type: ignore[attr-defined]
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


NODE_FILENAME = "<node>"  # the file name node code is compiled under, in every runner


def node_line() -> int:
    """The line of the node's code that called `run()` (its innermost frame), or 0.

    Called from a runner's `run()` helper: the node's frame is further up the stack.
    """
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename == NODE_FILENAME:
            return frame.f_lineno or 0
        frame = frame.f_back
    return 0
