"""The executor's outcomes and namespace rules (spec §2), in-process runner."""

import asyncio

import pytest

from agent.runtime.runner import ActionRequest, EvaluationError, NodeOutcome
from agent.runtime.thread_runner import ThreadRunner


async def _run_to_end(runner: ThreadRunner, code: str, observations=()) -> tuple[list[str], NodeOutcome]:
    """Run code, answering each run() with the next observation; return actions and outcome."""
    replies = iter(observations)
    actions: list[str] = []
    await runner.start(code)
    while True:
        message = await runner.next_message()
        if isinstance(message, NodeOutcome):
            return actions, message
        assert isinstance(message, ActionRequest)
        actions.append(message.action)
        runner.answer(next(replies, "Nothing happens."))


async def test_completed_node_keeps_new_names_and_reports_changes():
    runner = ThreadRunner()
    await runner.set_variables({"items": ["a"]})
    _, outcome = await _run_to_end(runner, "items.append('b')\ncount = len(items)\n_hidden = 1")
    assert outcome.status == "completed"
    assert runner.namespace["count"] == 2 and "_hidden" not in runner.namespace
    changes = {c.name: c.change for c in outcome.changes}
    assert changes == {"items": "changed", "count": "new"}  # in-place mutation counts


async def test_modules_functions_and_classes_are_not_kept():
    runner = ThreadRunner()
    _, outcome = await _run_to_end(runner, "import math\nsq = lambda x: x * x\nclass K: pass\nv = sq(3)")
    assert outcome.status == "completed"
    assert set(runner.namespace) == {"v"}


async def test_each_run_call_is_one_request_and_its_result_is_printed():
    runner = ThreadRunner()
    await runner.set_variables({"locs": ["shelf 1", "desk 1", "bed 1"]})
    actions, outcome = await _run_to_end(
        runner, "for loc in locs:\n    run(f'go to {loc}')", ["at shelf", "at desk", "at bed"]
    )
    assert actions == ["go to shelf 1", "go to desk 1", "go to bed 1"]
    assert outcome.output.splitlines() == ["at shelf", "at desk", "at bed"]


async def test_name_error_of_a_called_name_is_a_stub():
    runner = ThreadRunner()
    await runner.set_variables({"target": "apple"})
    _, outcome = await _run_to_end(runner, "obj, loc = find_obj(target)")
    assert outcome.status == "stub" and outcome.stub_name == "find_obj"


async def test_name_error_of_a_name_that_is_not_called_is_a_real_error():
    runner = ThreadRunner()
    _, outcome = await _run_to_end(runner, "y = undefined_thing + 1")
    assert outcome.status == "error"
    assert "NameError" in outcome.error and "undefined_thing" in outcome.error


async def test_other_exceptions_are_errors_with_type_and_message():
    runner = ThreadRunner()
    _, outcome = await _run_to_end(runner, "x = [1][5]")
    assert outcome.status == "error" and outcome.error.startswith("IndexError: list index out of range")
    _, outcome = await _run_to_end(runner, "raise SystemExit(3)")
    assert outcome.status == "error" and outcome.error.startswith("SystemExit")


async def test_side_effects_before_an_error_stay_made():
    runner = ThreadRunner()
    actions, outcome = await _run_to_end(runner, "run('look')\nx = 1 / 0")
    assert actions == ["look"] and outcome.status == "error"


async def test_stop_ends_the_code_as_aborted():
    runner = ThreadRunner()
    await runner.start("for i in range(5):\n    run('look')")
    assert isinstance(await runner.next_message(), ActionRequest)
    runner.answer("You won.", stop=True)
    outcome = await runner.next_message()
    assert isinstance(outcome, NodeOutcome) and outcome.status == "aborted"


async def test_an_infinite_loop_times_out_and_the_runner_still_works():
    runner = ThreadRunner(node_timeout=0.3)  # the loop spins for the whole budget: its CPU is the timeout
    await runner.set_variables({"canary": "alive"})
    _, outcome = await _run_to_end(runner, "while True:\n    pass")
    assert outcome.status == "error" and outcome.error == "timed out after 0.3 s"
    _, outcome = await _run_to_end(runner, "z = canary.upper()")
    assert outcome.status == "completed" and runner.namespace["z"] == "ALIVE"


async def test_time_spent_waiting_for_the_environment_does_not_count():
    slow = 0.2  # the environment's time per action: twice that is longer than the node's limit
    runner = ThreadRunner(node_timeout=0.3)
    await runner.start("run('a')\nrun('b')")
    for _ in range(2):
        assert isinstance(await runner.next_message(), ActionRequest)
        await asyncio.sleep(slow)  # the environment is slow; the node's clock is stopped
        runner.answer("ok")
    outcome = await runner.next_message()
    assert outcome.status == "completed"
    assert outcome.seconds < 2 * slow  # the node's own time: the environment's waits are not in it


async def test_huge_prints_are_capped():
    runner = ThreadRunner(max_output_chars=1000)
    _, outcome = await _run_to_end(runner, "for i in range(10000):\n    print('x' * 100)")
    assert outcome.status == "completed"
    assert len(outcome.output) < 1200 and "output cut at 1000 chars" in outcome.output


async def test_prompt_lines_and_conditions_read_the_namespace():
    runner = ThreadRunner()
    await runner.set_variables({"obj": "apple", "locs": ["fridge 1"]})
    assert await runner.prompt_lines(["obj", "missing", "locs"]) == [
        "- obj (str): apple",
        "- locs (list[str]): ['fridge 1']",
    ]
    assert await runner.evaluate_condition("obj == 'apple' and len(locs) == 1")
    with pytest.raises(NameError):
        await runner.evaluate_condition("nope > 1")


async def test_watch_expressions_give_type_and_value_or_the_named_error():
    runner = ThreadRunner()
    await _run_to_end(runner, "seen = {'drawer 1': ['pen 1']}\ncount = len(seen)")
    assert await runner.evaluate("count + 1") == ("int", "2")
    assert await runner.evaluate("list(seen)") == ("list[str]", "['drawer 1']")
    with pytest.raises(EvaluationError, match=r"^KeyError: 'shelf 1'$"):
        await runner.evaluate("seen['shelf 1']")


async def test_imports_from_the_allowed_modules_stay_for_later_nodes():
    runner = ThreadRunner()
    _, outcome = await _run_to_end(runner, "import json\nfrom collections import Counter as C\nimport os")
    assert outcome.status == "completed"
    assert {"json", "C"} <= await runner.names() and "os" not in await runner.names()
    _, outcome = await _run_to_end(runner, "data = json.loads('[1, 2]')\nn = C('aab')['a']")
    assert outcome.status == "completed", outcome
    assert (runner.namespace["data"], runner.namespace["n"]) == ([1, 2], 2)
    _, outcome = await _run_to_end(runner, "C = 3")  # rebinding the name makes it a variable
    assert runner.namespace["C"] == 3 and "json" in await runner.names()


async def test_a_statement_at_a_stop_runs_once_and_cannot_send_actions():
    runner = ThreadRunner()
    await runner.set_variables({"hits": []})
    with pytest.raises(EvaluationError, match="SyntaxError"):
        await runner.execute("hits.append(1) or eval('(')")  # raises while running: not run again as a statement
    assert (await runner.evaluate("len(hits)"))[1] == "1"
    with pytest.raises(EvaluationError, match="only from a node's code"):
        await runner.execute("run('look')")  # used to wait forever for an answer no node would give
    await runner.close()
