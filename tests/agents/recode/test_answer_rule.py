"""The one rule for "would this answer be accepted", and every front end agreeing with it."""

from __future__ import annotations

from agent.agents.recode.answer_rule import judge_answer
from agent.agents.recode.examples import ALLOWED_IMPORTS, HELPERS, answer_problems, live_answer_problem
from agent.runtime.code import ALLOWED_MODULES, DEFAULT_HELPERS
from agent.sandbox.checks import check_code
from agent.agents.recode.engine import Engine
from agent.runtime.answer_check import SubmitRule, check_answer
from agent.runtime.thread_runner import ThreadRunner
from envs.registry import make_env
from mockllm.human import HumanLLM

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


async def test_every_front_end_gives_the_same_verdict(toy_game) -> None:
    """The console's editor, the workspace's columns and the plain mode all ask `check_answer` (and its
    `SubmitRule`) of the run's agent: the same verdict as the agent's own rule."""
    agent = Engine(make_env(toy_game), HumanLLM(), ThreadRunner(), code_check=sandbox)
    try:
        for text in (HOSTILE, SHADOW, "<execute>\nfor x in obj:\n    plan(x)\n</execute>", "run(obj)"):
            verdict = judge_answer(text, KNOWN, typed=True, code_check=sandbox)
            editor = check_answer(agent, text, "expand", known=KNOWN)
            assert editor.ok == verdict.accepted and editor.message.endswith(verdict.located_message)
            plain = SubmitRule(agent, "expand", known=KNOWN).refusal(text, "Esc Enter")
            assert plain == ("" if editor.ok else editor.message)
            assert live_answer_problem(text, KNOWN, person=True) == ("" if editor.ok else editor.message)
    finally:
        await agent.close()


def test_the_helpers_and_modules_are_the_sandboxs_own() -> None:
    assert ALLOWED_IMPORTS is ALLOWED_MODULES and HELPERS is DEFAULT_HELPERS


def test_the_few_shot_checker_accepts_heapq_as_the_sandbox_does_and_refuses_what_it_refuses() -> None:
    answer = "<think>smallest first</think>\n<execute>\nimport heapq\nfirst = heapq.nsmallest(1, items)[0]\n</execute>"
    assert check_code("import heapq\nfirst = heapq.nsmallest(1, items)[0]", {"items"}) is None
    assert answer_problems("first = pick_first(items)", {"items"}, answer) == []
    hostile = answer.replace("import heapq\n", 'import heapq\nopen("x", "w")\n')
    assert answer_problems("first = pick_first(items)", {"items"}, hostile) == ["line 4: forbidden: open"]
