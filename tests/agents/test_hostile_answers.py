"""Answers built to hurt: one too big to judge, one whose check grew with the square of its size.

Each is refused as an invalid answer (the LLM is asked again), quickly, never a crash or a stall.
"""

from __future__ import annotations

import ast
import json
import asyncio
import math
import time
from typing import Any

from agent.agents.recode.answer_rule import judge_answer
from agent.agents.recode.engine import Engine
from agent.runtime.limits import Limits
from agent.llm.openai_client import OpenAILLM
from agent.llm.profiles import PriceTable, Profile
from agent.runtime import events as ev
from agent.runtime.thread_runner import ThreadRunner
from agent.runtime.verdict import MAX_ANSWER_CHARS
from envs.registry import make_env
from mockllm.openai_server import OpenAICompatibleServer

KNOWN = frozenset({"run", "print", "re"})


def answer(code: str) -> str:
    return f"<think>plan</think>\n<execute>\n{code}\n</execute>"


def run_lines(n: int) -> str:
    return "\n".join(f"x{i} = run('go to desk {i}')" for i in range(n))


async def test_a_24_mb_answer_from_the_server_is_refused_on_its_size_and_the_model_asked_again(toy_game) -> None:
    huge = answer(run_lines(80_000))  # ~2.4 MB, every line valid: only its size is wrong
    assert len(huge) > 2_000_000
    replies = iter([huge, answer("run('look')")])
    with OpenAICompatibleServer(lambda prompt: next(replies, answer("run('look')"))) as server:
        profile = Profile(name="local", model="local-test-model", api_key="k", base_url=server.base_url,
                          timeout=30.0, max_retries=0)
        agent = Engine(make_env(toy_game), OpenAILLM(profile, PriceTable()), ThreadRunner(), limits=Limits(max_retry=0))
        try:
            began = time.monotonic()
            rejected = None
            while rejected is None:
                event = await asyncio.wait_for(agent.step(), 60)
                assert not isinstance(event, ev.RunFinished), event.reason
                rejected = event if isinstance(event, ev.LLMRejected) else None
            took = time.monotonic() - began
            assert rejected.reason == (
                f"the answer is {len(huge):,} characters, over the limit of {MAX_ANSWER_CHARS:,}; "
                "answer again with only what this step needs"
            )
            assert took < 15  # refused on its length: it is never parsed (before, ~20 s of judging alone)
            accepted = None
            while accepted is None:  # an invalid answer like any other: the model is asked again
                event = await asyncio.wait_for(agent.step(), 60)
                accepted = event if isinstance(event, ev.LLMAnswered) else None
            assert accepted.blocks == ("run('look')",)
        finally:
            await agent.close()


def test_an_answer_at_the_limit_is_judged_and_one_character_more_is_refused() -> None:
    code = "x = '" + "a" * (MAX_ANSWER_CHARS - 60) + "'"
    text = answer(code)
    text += " " * (MAX_ANSWER_CHARS - len(text))
    assert len(text) == MAX_ANSWER_CHARS and judge_answer(text, KNOWN, typed=False).accepted
    refused = judge_answer(text + " ", KNOWN, typed=False)
    assert not refused.accepted and f"{MAX_ANSWER_CHARS + 1:,} characters, over the limit" in refused.message


def nodes_visited(text: str, monkeypatch: Any) -> int:
    """How many AST nodes judging `text` visits: the work of the check, free of the machine's load."""
    visits = 0
    original = ast.iter_child_nodes

    def counting(node: ast.AST):
        nonlocal visits
        visits += 1
        return original(node)

    with monkeypatch.context() as patch:
        patch.setattr(ast, "iter_child_nodes", counting)
        assert judge_answer(text, KNOWN, typed=False).accepted
    return visits


def test_the_check_of_a_long_elif_chain_grows_with_its_length_not_its_square(monkeypatch) -> None:
    def chain(n: int) -> str:
        return answer("if x == 0:\n    run('a')\n" + "".join(f"elif x == {i}:\n    run('b{i}')\n" for i in range(1, n)))

    one, four = nodes_visited(chain(150), monkeypatch), nodes_visited(chain(600), monkeypatch)
    assert four < 5 * one  # linear: ~4x; it was ~16x (each `elif` walked all the ones nested in it)


def test_finding_the_line_of_a_refusal_checks_log_n_prefixes_not_n(monkeypatch) -> None:
    from agent.sandbox.checks import check_code

    checked: list[int] = []

    def check(code: str) -> str | None:
        checked.append(len(code))
        return check_code(code, KNOWN)

    n = 500  # enough to tell log n checks (~22) from one per statement (501)
    verdict = judge_answer(answer(run_lines(n) + "\nimport os"), KNOWN, typed=False, code_check=check)
    assert not verdict.accepted and verdict.message.startswith("forbidden: import os")
    assert verdict.line == n + 3  # <think> line, <execute> line, then the n lines before it
    assert len(checked) <= 2 * math.log2(n) + 4  # it was one check per statement: n + 1 checks of ~n lines


# -- Plan-and-Execute's JSON plan -----------------------------------------------------------------

def test_a_planner_answer_of_deeply_nested_json_is_an_invalid_plan_not_an_internal_error() -> None:
    from tests.agents.test_plan_execute import WIN_PLAN, WIN_TURNS, agent_with, in_order, run

    agent = agent_with(in_order(("plan", "[" * 100_000), ("plan", WIN_PLAN), *WIN_TURNS))
    seen = asyncio.run(run(agent))
    rejected = [e for e in seen if isinstance(e, ev.LLMRejected)]
    assert [r.reason for r in rejected] == [
        'the plan is nested too deeply to read; answer with one flat object {"thought": "...", "steps": [...]}']
    assert seen[-1].success and "internal error" not in seen[-1].reason  # asked again, then won


def test_a_plan_of_a_long_chain_of_steps_is_read_and_a_cycle_in_it_found() -> None:
    from agent.agents.plan_execute.plan import PlanError, parse_plan

    def chain(n: int, back_to_start: bool = False) -> str:
        steps = [{"id": f"s{i}", "description": f"step {i}", "depends_on": [f"s{i - 1}"] if i else []}
                 for i in range(n)]
        if back_to_start:
            steps[0]["depends_on"] = [f"s{n - 1}"]
        return json.dumps({"thought": "t", "steps": steps})

    assert len(parse_plan(chain(5000)).steps) == 5000  # each after the one before: was a RecursionError
    try:
        parse_plan(chain(5000, back_to_start=True))
    except PlanError as exc:
        assert str(exc).startswith("the dependencies form a cycle: s0 -> s4999 -> s4998")
    else:
        raise AssertionError("the cycle was not found")


# -- text built to stall a regex: every parser of model text reads it in one pass --------------------

STALLING = r'''
import json
from agent.agents.outcome import UnitOutcome
from agent.agents.plan_execute.plan import PlanError, parse_plan
from agent.runtime.code import InvalidAnswer, parse_answer
from recode_tui.plain.prompt_text import render_prompt

found = {}
try:
    parse_answer("```py\n" * 180_000)  # 1 MB of unclosed fences: a regex looked for each one's close
except InvalidAnswer as exc:
    found["fences"] = str(exc)
found["blank fence"] = parse_answer("<execute>\n```\n" + "\n" * 200_000 + "x = 1\n</execute>").code
try:
    parse_plan("```" + " " * 1_000_000)  # an unclosed fence, then blanks: the plan's regex backtracked
except PlanError as exc:
    found["plan"] = str(exc)
claim = UnitOutcome("done", "holding " + "hold " * 200_000, [("take mug 1", "You pick up the mug 1.")], "mug 1")
found["claim"] = claim.problem()  # a regex looked for an object after every "hold"
tokens, _ = render_prompt("<execute>" * 100_000, folded=False)  # the plain mode's prompt colouring
found["prompt"] = sum(len(text) for _, text in tokens)
import sys, tempfile
from pathlib import Path
from agent.sessions.journal_read import JOURNAL_FILE, read_journal
from agent.sessions.journal_view import read_view
folder = Path(tempfile.mkdtemp())
records = [{"type": "session", "version": "recode.journal.v1", "env": "alfworld", "episode": "put-01", "agent": "recode",
            "llm": "demo", "max_steps": 10, "limits": {}, "prompt_set": "x"},
           {"type": "answer", "index": 1, "node_id": "n0", "stub": "solve()", "prompt": "- instruction (x\n" * 100_000,
            "answer": "<execute>\nrun('look')\n</execute>", "accepted": True}]
(folder / JOURNAL_FILE).write_text("".join(json.dumps(r) + "\n" for r in records))
found["task"] = read_view(read_journal(folder)).task  # a journal's prompt, for `tui --open` and export
print(json.dumps(found))
'''


def test_model_text_built_to_stall_a_regex_is_read_in_one_pass() -> None:
    """Each of these took the square (or worse) of its length: minutes to hours for a megabyte. The child
    process's time limit is a guard, not a figure (`benchmarks/bench_hostile_answers.py` has the figures)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=str(root))
    done = subprocess.run([sys.executable, "-c", STALLING], capture_output=True, text=True, env=env, cwd=root,
                          timeout=240)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["fences"].startswith("the answer has no <execute>...</execute> section")
    assert found["blank fence"] == "```\n" + "\n" * 200_000 + "x = 1"  # not a fence that is all of the code
    assert found["plan"].startswith("the answer holds no JSON")
    assert found["claim"] == ""
    assert found["prompt"] == len("<execute>" * 100_000) + 1
    assert found["task"] == ""
