"""The one rule for "would this answer be accepted", and every front end agreeing with it."""

from __future__ import annotations

from agent.agents.recode.answer_rule import judge_answer
from agent.agents.recode.authoring import ALLOWED_IMPORTS, HELPERS, answer_problems, live_answer_problem
from agent.sandbox.checks import ALLOWED_MODULES, DEFAULT_HELPERS, check_code
from recode_tui.console.widgets.answer_editor import check_typed_answer
from recode_tui.plain.terminal import check_answer

KNOWN = frozenset({"run", "print", "re", "obj"})
HOSTILE = '<think>read it</think>\n<execute>\nrun("look")\ndata = open("/etc/passwd").read()\n</execute>'
SHADOW = 'object = "apple 1"\nrun("take " + object)'  # the second block reads what the first binds


def sandbox(code: str) -> str | None:
    return check_code(code, KNOWN)


def test_a_sandbox_refusal_is_a_verdict_with_the_answer_line() -> None:
    verdict = judge_answer(HOSTILE, KNOWN, typed=False)
    assert not verdict.accepted and verdict.refused_by_sandbox
    assert verdict.message == "forbidden: open"  # what the LLM is sent back, unchanged
    assert verdict.line == 4 and verdict.located_message == "line 4: forbidden: open"
    assert verdict.thought == "read it"


def test_a_trusted_run_skips_the_sandbox_check_only() -> None:
    assert judge_answer(HOSTILE, KNOWN, typed=False, trusted=True).blocks == (
        'run("look")', 'data = open("/etc/passwd").read()'
    )
    assert "no <execute>" in judge_answer("run('look')", KNOWN, typed=False, trusted=True).message
    assert judge_answer("run('look')", KNOWN, typed=True).accepted  # a person may type plain code


def test_the_sandbox_judges_the_whole_answer_so_later_blocks_read_earlier_names() -> None:
    assert check_code('run("take " + object)', KNOWN) == "forbidden: object"  # the block alone
    assert judge_answer(SHADOW, KNOWN, typed=True, code_check=sandbox).accepted
    # The plain mode checked block by block and refused what the agent takes.
    assert check_answer(SHADOW, KNOWN, sandbox) == ""


def test_every_front_end_gives_the_same_verdict() -> None:
    for text in (HOSTILE, SHADOW, "<execute>\nfor x in obj:\n    plan(x)\n</execute>", "run(obj)", "<execute>\n</execute>"):
        verdict = judge_answer(text, KNOWN, typed=True, code_check=sandbox)
        editor = check_typed_answer(text, KNOWN, sandbox)
        assert editor.ok == verdict.accepted and check_answer(text, KNOWN, sandbox) == ("" if editor.ok else editor.message)
        assert live_answer_problem(text, KNOWN, person=True) == ("" if editor.ok else editor.message)


def test_the_helpers_and_modules_are_the_sandboxs_own() -> None:
    assert ALLOWED_IMPORTS is ALLOWED_MODULES and HELPERS is DEFAULT_HELPERS


def test_the_few_shot_checker_accepts_heapq_as_the_sandbox_does_and_refuses_what_it_refuses() -> None:
    answer = "<think>smallest first</think>\n<execute>\nimport heapq\nfirst = heapq.nsmallest(1, items)[0]\n</execute>"
    assert check_code("import heapq\nfirst = heapq.nsmallest(1, items)[0]", {"items"}) is None
    assert answer_problems("first = pick_first(items)", {"items"}, answer) == []
    hostile = answer.replace("import heapq\n", 'import heapq\nopen("x", "w")\n')
    assert answer_problems("first = pick_first(items)", {"items"}, hostile) == ["line 4: forbidden: open"]
