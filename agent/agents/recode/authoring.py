"""Authoring prompt sets: edit in memory, render by parts, check few-shot examples, save.

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

import ast
import builtins
import difflib
import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from typing import Any

from agent.agents.recode.answer_rule import judge_answer
from agent.runtime.code import InvalidAnswer, parse_answer, safe_parse
from agent.runtime.prompts import CONTEXT_FIELDS, DEFAULT_PROMPTS, PromptContext, PromptSet, env_digest
from agent.sandbox.checks import ALLOWED_MODULES, DEFAULT_HELPERS

# Defined once, by the sandbox: the helpers node code is given and the modules it may import.
HELPERS = DEFAULT_HELPERS
ALLOWED_IMPORTS = ALLOWED_MODULES
BUILTINS = frozenset(dir(builtins))
EXPAND_TEMPLATE = "expand.txt"
PART_NAMES = ("rules", "actions", "examples", "context", "task", "variables")  # "task": the stub's code

_VAR_LINE = re.compile(r"^- (\w+) \(([^)]*)\): ?(.*)$")
_SET_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class PromptSetError(Exception):
    """A prompt set cannot be saved or read; the message says what to do."""


# -- an edited prompt set ---------------------------------------------------------------


@dataclass
class DraftPromptSet(PromptSet):
    """A prompt set whose files may be replaced by edited texts held in memory.

    Its content hash is computed exactly like `PromptSet.content_hash` over the
    files as they would be saved, so a saved copy has the same hash.
    """

    edits: dict[str, str] = field(default_factory=dict)

    def optional(self, relative: str) -> str | None:
        if relative in self.edits:
            return self.edits[relative]
        return super().optional(relative)

    def files(self) -> dict[str, bytes]:
        """Every file of the set as it would be saved: relative path -> bytes."""
        found: dict[str, bytes] = {}
        if self.root.is_dir():
            for path in self.root.rglob("*"):
                if path.is_file() and "__pycache__" not in path.parts:
                    found[path.relative_to(self.root).as_posix()] = path.read_bytes()
        for relative, text in self.edits.items():
            found[relative] = text.encode("utf-8")
        return found

    def content_hash(self) -> str:
        digest = hashlib.sha256()
        files = self.files()
        for relative in sorted(files, key=Path):
            digest.update(str(Path(relative)).encode())
            digest.update(files[relative])
        env_digest(digest)
        return digest.hexdigest()[:12]

    @property
    def changed(self) -> list[str]:
        """The edited files whose text differs from the folder's."""
        return [r for r, t in self.edits.items() if t != PromptSet(self.root).optional(r)]


def editable_files(prompts: PromptSet, env_name: str) -> list[str]:
    """What a person edits: the expand template, the action list, each few-shot file."""
    folder = prompts.root / env_name / "examples"
    examples = sorted(f"{env_name}/examples/{p.name}" for p in folder.glob("*.txt")) if folder.is_dir() else []
    return [EXPAND_TEMPLATE, f"{env_name}/actions.txt", *examples]


def examples_file(env_name: str, task_type: str | None) -> str | None:
    return f"{env_name}/examples/{task_type}.txt" if task_type else None


# -- rendering, part by part -------------------------------------------------------------


@dataclass(frozen=True)
class RenderedPrompt:
    """The exact prompt the engine would send, and the text of each part of it."""

    text: str
    parts: dict[str, str]


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


@dataclass(frozen=True)
class ExampleCheck:
    """The verdict on one example of a file."""

    index: int  # 1-based position in the file
    line: int
    function: str
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


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


def check_summary(checks: list[ExampleCheck]) -> str:
    """One line for a file list: `3 examples ok` or `1 of 3 examples flagged`."""
    bad = sum(not c.ok for c in checks)
    if not checks:
        return "no examples"
    return f"{len(checks)} examples ok" if not bad else f"{bad} of {len(checks)} examples flagged"


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


# -- saving ------------------------------------------------------------------------------------


def user_prompts_dir() -> Path:
    """$RECODE_TUI_PROMPTS, else `<user data dir>/prompts`."""
    chosen = os.environ.get("RECODE_TUI_PROMPTS")
    if chosen:
        return Path(chosen)
    import platformdirs

    return Path(platformdirs.user_data_dir("recode-tui")) / "prompts"


def is_bundled(path: Path) -> bool:
    bundled = DEFAULT_PROMPTS.parent.resolve()
    resolved = path.resolve()
    return resolved == bundled or bundled in resolved.parents


def save_prompt_set(draft: DraftPromptSet, name: str, prompts_dir: Path | None = None) -> Path:
    """Write the whole set (unchanged files too) to `<prompts_dir>/<name>/`; returns the folder.

    The bundled prompts are never written to.
    """
    if not _SET_NAME.match(name):
        raise PromptSetError(f"prompt set name {name!r}: use letters, digits, '-', '_' or '.'")
    target = (prompts_dir or user_prompts_dir()) / name
    if is_bundled(target):
        raise PromptSetError(f"{target} holds the bundled prompts, which are never overwritten; pick another folder")
    files = draft.files()
    try:
        for relative, data in files.items():
            path = target / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            temp = path.with_name(path.name + ".tmp")
            temp.write_bytes(data)
            os.replace(temp, path)
    except OSError as exc:
        raise PromptSetError(f"cannot write {target}: {exc.strerror}") from None
    return target


def default_set_name(prompts: PromptSet) -> str:
    """A name to offer when saving: the set's own folder unless it is the bundled one."""
    return "my-prompts" if is_bundled(prompts.root) else prompts.root.name


# -- playing the examples: each one is a piece of a plan ---------------------------------------

# A bundled game per task type for the workspace's check: one whose layout trips a
# plan that forgets what it saw (examine: the lamp is seen during the object search;
# puttwo: the second object must be searched for after the first was placed).
EXAMPLE_GAMES: dict[str, str] = {
    "put": "put-01",
    "clean": "clean-01",
    "heat": "heat-01",
    "cool": "cool-01",
    "examine": "examine-01",
    "puttwo": "puttwo-01",
}


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

    async def complete(self, prompt: str, context: Any = None) -> Any:
        from agent.llm import Completion, LLMError, Usage

        code = getattr(context, "code", "")
        if getattr(context, "purpose", "expand") != "expand":
            raise LLMError(f"the example code for `{code}` raised an error (see the node's output)")
        answer = self.answers.get(_same_code(code))
        if answer is None:
            raise LLMError(f"no example is written for the stub `{code}`")
        return Completion(answer, Usage(), 0.0, "scripted")


@dataclass(frozen=True)
class ExamplePlay:
    """How the examples of a file did when played as a plan on one game."""

    game: str
    won: bool
    reason: str  # the run's end reason: "won", "step limit reached ...", "LLM error: ..."
    steps: int
    llm_calls: int
    actions: tuple[str, ...] = ()

    def summary(self) -> str:
        """One line for a file list: `wins put-01 in 9 steps` or why not."""
        if self.won:
            return f"examples win {self.game} in {self.steps} steps"
        return f"examples do not win {self.game}: {self.reason}"


async def play_examples(
    text: str,
    game: str,
    env_name: str = "alfworld",
    prompts: PromptSet | None = None,
    max_steps: int = 80,
) -> ExamplePlay:
    """Play the examples of one few-shot file as the answers of a run on `game` (the real engine and env).

    Async and slow (a game load and one action per step, in the engine's
    threads): a UI runs it in a background worker, never on its own thread.
    """
    from agent.agents.recode.engine import Engine
    from agent.runtime.events import ActionSent
    from agent.runtime.runners import RunnerSettings
    from envs import make_env
    from envs.base import EnvError

    examples: list[Example] = []
    for line, chunk in split_examples(text):
        try:
            examples.append(parse_example(chunk, line))
        except ExampleFormatError as exc:
            return ExamplePlay(game, False, f"not played: {exc}", 0, 0)
    try:
        env = make_env(game, max_steps=max_steps)
    except EnvError as exc:
        return ExamplePlay(game, False, f"not played: {exc}", 0, 0)
    # An author's examples are code like a model's: played in the sandbox with its checks, as a run would.
    engine = Engine(env, ExamplesLLM(examples), RunnerSettings().make_runner(), prompts=prompts or PromptSet())
    actions: list[str] = []
    try:
        result = await engine.run(lambda e: actions.append(e.action) if isinstance(e, ActionSent) else None)
    finally:
        await engine.close()
        env.close()
    return ExamplePlay(game, result.success, result.reason, result.steps, result.llm_calls, tuple(actions))
