"""Code helpers every code-writing agent and every runner share: parsing, answer sections, names.

An answer holds `<think>...</think>` and `<execute>...</execute>` (ReCode and
CodeAct both answer so); `parse_answer` pulls the two apart and `split_blocks`
cuts code into its top-level statements. The runners (a thread, the sandbox
worker) compile node code under `NODE_FILENAME` and find the calling line with
`node_line`. ReCode's own structure rules (`validate`) live in its package,
`agent.agents.recode.codeblocks`.

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
import threading
from dataclasses import dataclass
from types import FrameType
from typing import Any, overload

_THINK = re.compile(r"<think>(.*?)(?:</think>|$)", re.S | re.I)
_EXECUTE = re.compile(r"<execute>(.*?)(?:</execute>|$)", re.S | re.I)
_THINK_TAG = re.compile(r"</?think>", re.I)
_FENCE_WORD = re.compile(r"[a-zA-Z0-9_+-]*")  # the language after a fence that is all of the code (```py)
_PYTHON_FENCE_WORDS = frozenset({"", "py", "python", "python3"})  # a fenced block of an answer without <execute>

BUILTIN_NAMES = frozenset(dir(builtins))
_LINE_REF = re.compile(r"\bline (\d+)")

DEFAULT_HELPERS: frozenset[str] = frozenset({"run", "print", "re"})  # bound in every node's namespace
# The modules node code may import, in every runner (the sandbox's checks refuse any other).
ALLOWED_MODULES: frozenset[str] = frozenset(
    {"re", "math", "json", "itertools", "collections", "random", "string", "heapq", "bisect", "functools"}
)


class InvalidAnswer(ValueError):
    """The answer cannot become child nodes; the message says why (it is sent back to the LLM)."""


class UnparsableCode(SyntaxError):
    """Code the parser gave up on (nested too deeply, too large, null bytes): a syntax error with a reason."""


# CPython 3.11 keeps the AST converter's recursion depth in state shared by every thread: when a
# finalizer run by the garbage collector during one thread's parse lets another thread parse,
# the first raises "SystemError: AST constructor recursion depth mismatch" (seen in `eval`, whose
# LLMs are built in a thread while episodes parse answers). One parse at a time.
_PARSE_LOCK = threading.RLock()
# The race is CPython's (gh-106905), fixed in 3.11.8 and 3.12.2. Before those, every `ast.parse` in the
# process can lose it, not only ours: the traceback module parses a line to place its carets, pytest parses
# the modules it rewrites, a library may parse its own sources. There `ast.parse` itself takes the lock.
RACY_AST_PARSE = (3, 11) <= sys.version_info[:3] < (3, 11, 8) or (3, 12) <= sys.version_info[:3] < (3, 12, 2)


def _one_parse_at_a_time() -> None:
    parse = ast.parse
    wrapped = getattr(parse, "__qualname__", "").endswith("locked_parse")  # dynamic: ast.parse as it is now
    if wrapped:  # this module reloaded: its lock is on already
        return

    def locked_parse(*args: Any, **kwargs: Any) -> Any:
        with _PARSE_LOCK:
            return parse(*args, **kwargs)

    ast.parse = locked_parse


if RACY_AST_PARSE:
    _one_parse_at_a_time()


@overload
def safe_parse(code: str) -> ast.Module: ...
@overload
def safe_parse(code: str, mode: str) -> ast.AST: ...
def safe_parse(code: str, mode: str = "exec") -> ast.AST:
    """`ast.parse` for code from an answer or a node: every failure is a SyntaxError.

    The parser raises RecursionError, MemoryError or ValueError on some inputs
    (an expression of 100k terms, a null byte); those become `UnparsableCode`,
    so callers that handle a syntax error handle them too.
    """
    try:
        with _PARSE_LOCK:
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
    elif len(fences := fenced_blocks(text)) == 1:
        # Many models answer with one ```python block and no tags: that block is the code.
        block = fences[0]
        code, start = text[block.code_start:block.code_end], block.code_start
        tail = text[block.end:].strip()
        if not think:
            thought = text[: block.start].strip()
    elif len(fences) > 1:
        raise InvalidAnswer(
            f"the answer has {len(fences)} fenced code blocks and no <execute> section; "
            "put all the code in one <execute>...</execute> section (or give one ```python block)"
        )
    elif allow_plain_code and not _THINK_TAG.search(text):
        code, start = text, 0
    elif allow_plain_code and think:
        code, start = text[think.end():], think.end()
    else:
        raise InvalidAnswer(
            "the answer has no <execute>...</execute> section; put the code inside <execute> tags"
        )
    inside = fenced_whole(code)
    if inside is not None:
        code, start = code[inside[0]:inside[1]], start + inside[0]
    code = textwrap.dedent(code)
    leading = len(code) - len(code.lstrip("\n"))
    first_line = text[:start].count("\n") + 1 + leading
    return ParsedAnswer(thought=thought, code=code.strip("\n"), first_line=first_line, ignored_tail=tail)


@dataclass(frozen=True)
class FencedBlock:
    """A ```python block of an answer: where its opening line starts, its code, and its closing fence ends."""

    start: int
    code_start: int
    code_end: int
    end: int


def fenced_blocks(text: str) -> list[FencedBlock]:
    """Every ```python (or ```py, or bare ```) block that opens and closes at the start of a line.

    One pass over the lines, so its time grows with the text's length: a regex that looked
    for each opening fence's close took the square of it (20,000 unclosed ```py lines, 30 s).
    """
    blocks: list[FencedBlock] = []
    opened: tuple[int, int] | None = None  # the open block's line start and code start
    start = 0
    while True:
        newline = text.find("\n", start)
        line_end = len(text) if newline < 0 else newline
        line = text[start:line_end].strip(" \t")
        if opened is None:
            if newline >= 0 and line.startswith("```") and line[3:].lstrip(" \t").lower() in _PYTHON_FENCE_WORDS:
                opened = (start, newline + 1)
        elif line == "```":
            blocks.append(FencedBlock(opened[0], opened[1], start, line_end))
            opened = None
        if newline < 0:
            return blocks
        start = newline + 1


def fenced_whole(code: str) -> tuple[int, int] | None:
    """Where the code is in `code` when a fence is all of it (```lang, lines, ```), else None.

    Found from the two ends inward, in linear time (the regex it replaces backtracked
    over long runs of blank lines: 5,000 of them took a minute).
    """
    opening = len(code) - len(code.lstrip())
    closing = len(code.rstrip()) - 3
    if closing < opening + 3 or not code.startswith("```", opening) or not code.startswith("```", closing):
        return None
    word = _FENCE_WORD.match(code, opening + 3, closing)
    word_end = word.end() if word else opening + 3
    blanks_end = len(code) - len(code[word_end:].lstrip())  # the closing fence ends them at the latest
    last_newline = code.rfind("\n", word_end, blanks_end)  # the opening line ends at the last one
    if last_newline < 0:
        return None
    blanks_start = len(code[:closing].rstrip())  # the blanks before the closing fence
    if blanks_start > last_newline:
        code_end = code.find("\n", blanks_start, closing)  # the code ends at their first newline
        return (last_newline + 1, code_end) if code_end >= 0 else None
    before = code.rfind("\n", word_end, last_newline)  # only blanks between the fences
    return (before + 1, last_newline) if before >= 0 else None


def renumber(message: str, first_line: int) -> str:
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
        raise InvalidAnswer(renumber(f"syntax error on line {exc.lineno}: {exc.msg}", first_line)) from None
    assert isinstance(tree, ast.Module)
    lines = code.splitlines()
    blocks: list[str] = []
    for stmt in tree.body:
        start = stmt.lineno - 1
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and stmt.decorator_list:
            start = min(d.lineno for d in stmt.decorator_list) - 1
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


def call_name(call: ast.Call) -> str:
    """The name a call of `called_names` calls (`f` of `f(...)`); "" for any other call."""
    return call.func.id if isinstance(call.func, ast.Name) else ""


def calls_name(code: str, name: str) -> bool:
    """Whether `code` contains a call `name(...)`: what makes a NameError a stub."""
    try:
        tree = safe_parse(code)
    except SyntaxError:
        return False
    return any(call_name(c) == name for c in called_names(tree))


NODE_FILENAME = "<node>"  # the file name node code is compiled under, in every runner


def node_line() -> int:
    """The line of the node's code that called `run()` (its innermost frame), or 0.

    Called from a runner's `run()` helper: the node's frame is further up the stack.
    """
    frame: FrameType | None = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename == NODE_FILENAME:
            return frame.f_lineno or 0
        frame = frame.f_back
    return 0
