"""The default prompt set and the scripted ALFWorld demo are well-formed.

Every few-shot example must be an answer the agent would accept (it passes
the same validator as a model's answer), must use only variables it was given
or assigned itself, and must assign what its caller expects (the shared
namespace convention). The templates must substitute with their documented
fields. The demo's scripted answers are checked the same way.
"""

from __future__ import annotations

from agent.runtime.prompts import env_text

import ast
import re
from pathlib import Path
from string import Template

import pytest

from agent.agents.recode import examples as example_checks
from agent.runtime.code import parse_answer

ROOT = Path(__file__).resolve().parents[1]
PROMPTS = ROOT / "agent" / "agents" / "recode" / "prompts" / "default"
EXAMPLES = PROMPTS / "alfworld" / "examples"
DEMO = ROOT / "mockllm" / "demos" / "alfworld.yaml"

TASK_TYPES = ("put", "clean", "heat", "cool", "examine", "puttwo")
HELPERS = set(example_checks.HELPERS)
BUILTINS = set(example_checks.BUILTINS)



# -- the checks live in agent.agents.recode.examples (the console's workspace uses them too) --


def parse_example(text: str) -> dict:
    ex = example_checks.parse_example(text)
    return {"function": ex.function, "variables": ex.variables, "answer": ex.answer}


def split_examples(text: str) -> list[str]:
    return [chunk for _line, chunk in example_checks.split_examples(text)]


def all_examples() -> list[tuple[str, int, dict]]:
    out = []
    for path in sorted(EXAMPLES.glob("*.txt")):
        for n, part in enumerate(split_examples(path.read_text(encoding="utf-8")), 1):
            out.append((path.stem, n, parse_example(part)))
    return out


EXAMPLE_CASES = all_examples()
stub_call = example_checks.stub_call
undefined_names = example_checks.undefined_names


def check_answer(function: str, given: set[str], answer: str) -> str:
    """Assert an answer passes every check; returns its code."""
    problems = example_checks.answer_problems(function, given, answer)
    assert not problems, f"{function}: {'; '.join(problems)}"
    return parse_answer(answer).code


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
                ast.literal_eval(value)  # a Python literal, as the agent prints it


# -- the templates --------------------------------------------------------------


CONTEXT_FIELDS = {"task", "recent_actions", "steps_left", "max_steps"}
TEMPLATE_FIELDS = {
    "expand.txt": {"actions", "facts", "examples", "function", "variables"} | CONTEXT_FIELDS,
    "rewrite_note.txt": {"reason", "answer"},
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
    """The expand template filled the way the agent fills it reads as one prompt."""
    actions = env_text("alfworld", "actions.txt")
    examples = (EXAMPLES / "heat.txt").read_text(encoding="utf-8").strip()
    out = Template((PROMPTS / "expand.txt").read_text(encoding="utf-8")).substitute(
        actions=actions,
        facts=env_text("alfworld", "facts.txt"),
        examples=examples,
        function="solve(instruction, observation)",
        variables="- instruction (str): heat some egg and put it in fridge.\n- observation (str): ...",
        task="heat some egg and put it in fridge.",
        recent_actions="(none yet)",
        steps_left="80",
        max_steps="80",
    )
    assert out.index("go to {recep}") < out.index("Function: solve") < out.rindex("heat some egg and put it in fridge")
    for word in ("<think>", "<execute>", "def", "snake_case", "shared"):
        assert word in out


def test_actions_list_covers_alfworld_commands():
    text = env_text("alfworld", "actions.txt") + env_text("alfworld", "facts.txt")
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


def test_the_prompt_says_what_a_model_must_know_to_plan():
    """Each call expanded on its own, lambda allowed, the steps left as a number, appliances need no opening."""
    from agent.agents.recode.prompt import build_expand_prompt
    from agent.runtime.prompts import PromptContext, PromptSet

    context = PromptContext("heat some egg and put it in fridge.", (("go to fridge 1", "You arrive at fridge 1."),), 57, 80)
    out = build_expand_prompt(PromptSet(), "alfworld", "heat", "hot = heat_it(item)", ["- item (str): egg 1"], context)
    assert "expanded on its own" in out and "even when the same name is called twice" in out
    assert "A `lambda` inside an expression is fine" in out
    assert "Steps left: 57 of 80." in out and "steps are limited" not in out
    assert "(open or closed: no need to open it)" in out  # checked on heat-01: heat works with the door closed
    assert "[display cut" in out  # what a cut variable display means
    assert re.search(r'\\b\{name\}\\b', out), "the rules show a word-boundary search"
