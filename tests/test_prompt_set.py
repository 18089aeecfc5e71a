"""The default prompt set and the scripted ALFWorld demo are well-formed.

Every few-shot example must be an answer the engine would accept (it passes
the same validator as a model's answer), must use only variables it was given
or assigned itself, and must assign what its caller expects (the shared
namespace convention). The templates must substitute with their documented
fields. The demo's scripted answers are checked the same way.
"""

from __future__ import annotations

import ast
import builtins
import re
from pathlib import Path
from string import Template

import pytest

from agent.codeblocks import parse_answer, validate

ROOT = Path(__file__).resolve().parents[1]
PROMPTS = ROOT / "agent" / "prompts" / "default"
EXAMPLES = PROMPTS / "alfworld" / "examples"
DEMO = ROOT / "mockllm" / "demos" / "alfworld.yaml"

TASK_TYPES = ("put", "clean", "heat", "cool", "examine", "puttwo")
HELPERS = {"run", "print", "re"}
ALLOWED_IMPORTS = {"re", "math", "json", "itertools", "collections", "string", "random"}
BUILTINS = set(dir(builtins))

_VAR_LINE = re.compile(r"^- (\w+) \(([^)]*)\): ?(.*)$")


# -- parsing the example files ------------------------------------------------


def parse_example(text: str) -> dict:
    """One example: `Function:` line, `Variables:` lines, `Answer:` and the rest."""
    lines = text.strip("\n").splitlines()
    assert lines and lines[0].startswith("Function: "), f"an example starts with 'Function: ': {lines[:1]}"
    function = lines[0][len("Function: "):].strip()
    assert lines[1].strip() == "Variables:", f"second line is 'Variables:' in {function}"
    variables: dict[str, tuple[str, str]] = {}
    i = 2
    while i < len(lines) and lines[i].strip() != "Answer:":
        m = _VAR_LINE.match(lines[i])
        assert m, f"variable line `- name (type): value` expected, got {lines[i]!r} in {function}"
        variables[m.group(1)] = (m.group(2), m.group(3))
        i += 1
    assert i < len(lines), f"no 'Answer:' line in {function}"
    answer = "\n".join(lines[i + 1:])
    return {"function": function, "variables": variables, "answer": answer}


def split_examples(text: str) -> list[str]:
    return [part for part in re.split(r"^---\s*$", text, flags=re.M) if part.strip()]


def all_examples() -> list[tuple[str, int, dict]]:
    out = []
    for path in sorted(EXAMPLES.glob("*.txt")):
        for n, part in enumerate(split_examples(path.read_text(encoding="utf-8")), 1):
            out.append((path.stem, n, parse_example(part)))
    return out


EXAMPLE_CASES = all_examples()


# -- static checks shared by examples and demo answers -------------------------


def stub_call(function: str) -> tuple[list[str], str, list[str]]:
    """(names the stub assigns, placeholder name, argument names) of a stub's code."""
    tree = ast.parse(function)
    assert len(tree.body) == 1, f"a stub is one statement: {function}"
    stmt = tree.body[0]
    targets: list[str] = []
    if isinstance(stmt, ast.Assign):
        for target in stmt.targets:
            elts = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
            for e in elts:
                assert isinstance(e, ast.Name), f"stub assigns plain names: {function}"
                targets.append(e.id)
        call = stmt.value
    else:
        assert isinstance(stmt, ast.Expr), f"stub is a call or an assignment of one: {function}"
        call = stmt.value
    assert isinstance(call, ast.Call) and isinstance(call.func, ast.Name), f"stub is a call: {function}"
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


def undefined_names(code: str, given: set[str]) -> list[str]:
    """Names that are read before anything binds them, walking the code in order.

    Simple on purpose: a top-level statement counts as binding everything it
    assigns anywhere inside it (a loop variable, a name set in the loop body)
    before its own reads; names called as functions are placeholders or
    helpers, not variable reads; comprehension and lambda variables are local.
    """
    tree = ast.parse(code)
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


def check_answer(function: str, given: set[str], answer: str) -> str:
    """Everything the engine and the conventions demand of one answer; returns the code."""
    parsed = parse_answer(answer)
    assert parsed.thought, f"{function}: empty <think>"
    assert parsed.code.strip(), f"{function}: empty <execute>"
    assert "```" not in parsed.code
    blocks = validate(parsed.code, given | HELPERS)
    assert blocks
    tree = ast.parse(parsed.code)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            assert set(m.split(".")[0] for m in mods) <= ALLOWED_IMPORTS, f"{function}: import {mods}"
        if isinstance(node, ast.Name):
            assert not node.id.startswith("_"), f"{function}: name {node.id} starts with _"
        assert not isinstance(node, (ast.ClassDef, ast.Return, ast.Global, ast.Nonlocal)), function
    undefined = undefined_names(parsed.code, given)
    assert not undefined, f"{function}: reads names neither given nor assigned before: {undefined}"
    targets, _name, _args = stub_call(function)
    assigned = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    missing = [t for t in targets if t not in assigned]
    assert not missing, f"{function}: the caller expects {missing} to be assigned"
    return parsed.code


# -- the examples ---------------------------------------------------------------


def test_every_task_type_has_examples():
    for task_type in TASK_TYPES:
        path = EXAMPLES / f"{task_type}.txt"
        assert path.is_file(), f"missing {path}"
        parts = [parse_example(p) for p in split_examples(path.read_text(encoding="utf-8"))]
        functions = [p["function"] for p in parts]
        assert functions[0] == "solve(instruction, observation)", f"{task_type}: first example expands solve"
        assert len(parts) >= 2, f"{task_type}: show the solve expansion and at least one placeholder's"


@pytest.mark.parametrize("case", EXAMPLE_CASES, ids=[f"{t}-{n}" for t, n, _ in EXAMPLE_CASES])
def test_example_is_a_valid_expansion(case):
    _task_type, _n, ex = case
    targets, name, args = stub_call(ex["function"])
    assert re.fullmatch(r"[a-z][a-z0-9_]*", name), f"placeholder names are snake_case: {name}"
    assert list(ex["variables"]) == args, (
        f"{ex['function']}: the Variables list must be the call's arguments in order, "
        f"got {list(ex['variables'])}"
    )
    code = check_answer(ex["function"], set(ex["variables"]), ex["answer"])
    # The examples show ReCode: solve delegates to placeholders; leaves act.
    calls = {c.func.id for c in ast.walk(ast.parse(code)) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}
    placeholders = {c for c in calls if c not in HELPERS | BUILTINS}
    if name == "solve":
        assert placeholders, "the solve example calls placeholders"
    else:
        assert "run" in calls or placeholders, f"{name}: acts or delegates"


def test_example_variables_look_like_prompt_lines():
    for _t, _n, ex in EXAMPLE_CASES:
        for var, (typ, value) in ex["variables"].items():
            assert typ, f"{var} has a type"
            if typ.startswith(("list", "dict")):
                ast.literal_eval(value)  # a Python literal, as the engine prints it


# -- the templates --------------------------------------------------------------


TEMPLATE_FIELDS = {
    "expand.txt": {"actions", "examples", "function", "variables"},
    "rewrite_note.txt": {"reason"},
    "repair.txt": {"function", "error", "output"},
}


@pytest.mark.parametrize("name", sorted(TEMPLATE_FIELDS))
def test_template_substitutes_cleanly(name):
    text = (PROMPTS / name).read_text(encoding="utf-8")
    fields = TEMPLATE_FIELDS[name]
    template = Template(text)
    used = {m.group("named") or m.group("braced") for m in template.pattern.finditer(text)} - {None}
    assert used == fields, f"{name} uses {used}, documented {fields}"
    values = {f: f"<<{f}: {{code}} with $dollar and {{braces}}>>" for f in fields}
    out = template.substitute(values)
    for f in fields:
        assert f"<<{f}:" in out
    assert "$" not in out.replace("$dollar", "")


def test_expand_prompt_with_real_parts():
    """The expand template filled the way the engine fills it reads as one prompt."""
    actions = (PROMPTS / "alfworld" / "actions.txt").read_text(encoding="utf-8").strip()
    examples = (EXAMPLES / "heat.txt").read_text(encoding="utf-8").strip()
    out = Template((PROMPTS / "expand.txt").read_text(encoding="utf-8")).substitute(
        actions=actions,
        examples=examples,
        function="solve(instruction, observation)",
        variables="- instruction (str): heat some egg and put it in fridge.\n- observation (str): ...",
    )
    assert out.index("go to {recep}") < out.index("Function: solve") < out.rindex("heat some egg and put it in fridge")
    for word in ("<think>", "<execute>", "def", "snake_case", "shared"):
        assert word in out


def test_actions_list_covers_alfworld_commands():
    text = (PROMPTS / "alfworld" / "actions.txt").read_text(encoding="utf-8")
    for command in (
        "go to {recep}", "open {recep}", "close {recep}", "take {obj} from {recep}",
        "move {obj} to {recep}", "heat {obj} with", "cool {obj} with", "clean {obj} with",
        "use {lamp}", "examine {obj", "look", "inventory", "Nothing happens.",
    ):
        assert command in text, command


# -- the scripted demo ----------------------------------------------------------


def load_demo() -> list[dict]:
    yaml = pytest.importorskip("yaml")
    data = yaml.safe_load(DEMO.read_text(encoding="utf-8"))
    assert isinstance(data, dict) and isinstance(data.get("answers"), list)
    return data["answers"]


def test_demo_entries_are_valid_expansions():
    entries = load_demo()
    assert entries
    for entry in entries:
        assert set(entry) <= {"stub", "when", "answer", "purpose", "once"}, entry.keys()
        assert entry.get("purpose", "expand") in ("expand", "repair")
        stub = entry["stub"]
        if entry.get("when"):
            re.compile(entry["when"])
        if stub == "*":
            continue
        _targets, _name, args = stub_call(stub)
        check_answer(stub, set(args), entry["answer"])


def test_demo_solve_entries_cover_every_task_sentence():
    """Each task-sentence template picks exactly the right solve answer first."""
    entries = load_demo()
    sentences = {
        "put": ["put a apple in fridge.", "put some spraybottle on toilet."],
        "clean": ["clean some mug and put it in coffeemachine.", "put a clean butterknife in countertop."],
        "heat": ["heat some egg and put it in countertop.", "put a hot potato in fridge."],
        "cool": ["cool some pan and put it in stoveburner.", "put a cool mug in coffeemachine."],
        "examine": ["look at bowl under the desklamp.", "examine the alarmclock with the desklamp."],
        "puttwo": ["find two pillow and put them in sofa.", "put two cellphone in bed."],
    }
    solve = [e for e in entries if " ".join(e["stub"].split()) == "solve(instruction, observation)"]
    by_type = {}
    for task_type, texts in sentences.items():
        # The prompt shows examples of another wording first: only the
        # current variables (the last instruction line) may decide.
        decoy = "- instruction (str): put two pencil in drawer.\n"
        for text in texts:
            prompt = f"{decoy}...\n# Variables\n- instruction (str): {text}\n- observation (str): You are in the middle of a room."
            chosen = next(i for i, e in enumerate(solve) if not e.get("when") or re.search(e["when"], prompt))
            by_type.setdefault(task_type, set()).add(chosen)
    picked = [next(iter(v)) for v in by_type.values()]
    assert all(len(v) == 1 for v in by_type.values()), by_type
    assert len(set(picked)) == len(sentences), f"each task type gets its own solve answer: {by_type}"


def test_checker_catches_bad_examples():
    """The static checks above do reject what they are meant to reject."""
    assert undefined_names("for p in places:\n    run(p)\nx = seen[0]", {"places"}) == ["line 3: seen"]
    assert undefined_names("n = len(items)\nfor i in range(n):\n    last = i\nprint(last, n)", {"items"}) == []
    assert undefined_names("a = [q for q in qs if q]\nb = f(a, c)", {"qs"}) == ["line 2: c"]
    ok = "<think>t</think><execute>\nobj = find(kind)\nwhere = 'x'\n</execute>"
    assert check_answer("obj, where = find_and_take(kind)", {"kind"}, ok)
    with pytest.raises(AssertionError, match="expects"):
        check_answer("obj, where = find_and_take(kind)", {"kind"}, ok.replace("where = 'x'", "here = 1"))
    with pytest.raises(AssertionError, match="neither given"):
        check_answer("obj = f(kind)", {"kind"}, "<think>t</think><execute>obj = run(target)</execute>")
