"""The ReCode stepper on the in-memory test environment (tests/toyenv): events, limits and bad input (spec §2-§5).

Nothing here is ALFWorld's: the toy episode `vase-1` plays like put-01 (the vase is on
diningtable 1) in microseconds a step. ALFWorld's own behaviour is tested in tests/envs.
"""

from __future__ import annotations

import textwrap

import pytest

from agent.agents.recode.engine import Engine
from agent.runtime.limits import Limits
from agent.llm import CallContext, Completion
from agent.runtime import events as ev
from agent.runtime.thread_runner import ThreadRunner
from agent.runtime.tree import NodeStatus
from envs.registry import make_env
from mockllm.scripted import ScriptEntry, ScriptedLLM


def answer(code: str, thought: str = "plan") -> str:
    return f"<think>{thought}</think>\n<execute>\n{textwrap.dedent(code).strip()}\n</execute>"


def scripted(*entries: tuple[str, str]) -> ScriptedLLM:
    return ScriptedLLM([ScriptEntry(answer=text, stub=stub) for stub, text in entries])


async def collect(agent: Engine, limit: int = 2000) -> list[ev.Event]:
    seen = []
    for _ in range(limit):
        event = await agent.step()
        seen.append(event)
        if isinstance(event, ev.RunFinished):
            return seen
    raise AssertionError("run did not finish")


def kinds(events: list[ev.Event]) -> list[str]:
    return [e.kind for e in events]


async def test_a_loop_of_actions_yields_one_event_pair_per_action_and_can_stop_between(toy_game):
    llm = scripted(("solve(instruction, observation)", answer("for i in range(3):\n    run('look')")))
    agent = Engine(make_env(toy_game), llm, ThreadRunner(), limits=Limits(max_retry=0))
    events = []
    while not any(isinstance(e, ev.ActionSent) for e in events):
        events.append(await agent.step())
    # Stopped between actions: one sent, none observed yet, env untouched
    assert agent.env.steps == 0
    first_obs = await agent.step()
    assert isinstance(first_obs, ev.ObservationReceived) and agent.env.steps == 1
    rest = await collect(agent)
    assert sum(isinstance(e, ev.ActionSent) for e in events + rest) == 3
    assert sum(isinstance(e, ev.ObservationReceived) for e in [first_obs, *rest]) == 3
    await agent.close()


async def test_event_sequence_stub_expansion_children_actions(toy_game):
    llm = scripted(
        ("solve(instruction, observation)", answer("where = look_around()\nrun('inventory')")),
        ("where = look_around()", answer("where = run('look')")),
    )
    agent = Engine(make_env(toy_game), llm, ThreadRunner(), limits=Limits(max_retry=0))
    events = await collect(agent)
    assert kinds(events)[:6] == [
        "run_started", "node_started", "stub_found", "llm_requested", "llm_answered", "node_started",
    ]
    received = next(e for e in events if isinstance(e, ev.LLMAnswered))
    assert received.thought == "plan" and received.blocks == ("where = look_around()", "run('inventory')")
    assert agent.tree.root.status is NodeStatus.AWAITING_LLM and len(agent.tree.root.children) == 2
    actions = [e.action for e in events if isinstance(e, ev.ActionSent)]
    assert actions == ["look", "inventory"]
    finished = events[-1]
    assert isinstance(finished, ev.RunFinished) and not finished.success
    assert finished.reason == "no pending nodes left and the task is not done"
    assert finished.steps == 2 and finished.llm_calls == 2
    requested = [e for e in events if isinstance(e, ev.LLMRequested)]
    assert "where = look_around()" in requested[1].prompt
    await agent.close()


async def test_unknown_action_is_an_observation_not_a_crash(toy_game):
    llm = scripted(("solve(instruction, observation)", answer("reply = run('fly to the moon')\nok = 1")))
    agent = Engine(make_env(toy_game), llm, ThreadRunner())
    events = await collect(agent)
    obs = next(e for e in events if isinstance(e, ev.ObservationReceived))
    assert obs.observation == "Nothing happens."
    assert agent.tree.root.children[1].status is NodeStatus.COMPLETED
    await agent.close()


async def test_step_limit_ends_the_episode_mid_node(toy_game):
    llm = scripted(("solve(instruction, observation)", answer("while True:\n    run('look')")))
    agent = Engine(make_env(toy_game, max_steps=4), llm, ThreadRunner())
    events = await collect(agent)
    assert sum(isinstance(e, ev.ActionSent) for e in events) == 4
    assert events[-1].reason == "step limit reached (4 steps)" and not events[-1].success
    loop_node = agent.tree.root.children[0]
    assert loop_node.status is NodeStatus.ERROR and "step limit" in loop_node.error
    await agent.close()


async def test_depth_limit_stops_before_expanding_too_deep(toy_game):
    llm = scripted(
        ("solve(instruction, observation)", answer("a = level_one()")),
        ("a = level_one()", answer("a = level_two()")),
        ("a = level_two()", answer("a = level_three()")),
    )
    agent = Engine(make_env(toy_game), llm, ThreadRunner(), limits=Limits(max_depth=2))
    events = await collect(agent)
    assert events[-1].reason == "depth limit: `level_two` at depth 2 is not expanded (max_depth 2)"
    assert agent.stats.llm_calls == 2
    await agent.close()


async def test_invalid_answers_are_re_asked_with_the_reason_then_the_run_stops(toy_game):
    llm = scripted(("solve(instruction, observation)", answer("def solve(a, b):\n    pass")))
    agent = Engine(make_env(toy_game), llm, ThreadRunner(), limits=Limits(max_rewrite=2))
    events = await collect(agent)
    rejected = [e for e in events if isinstance(e, ev.LLMRejected)]
    assert len(rejected) == 3 and all("`def solve` is not allowed" in e.reason for e in rejected)
    requests = [e for e in events if isinstance(e, ev.LLMRequested)]
    assert [r.attempt for r in requests] == [1, 2, 3]
    assert "`def solve` is not allowed" in requests[1].prompt and "not allowed" not in requests[0].prompt.split("Current function")[-1]
    assert events[-1].reason.startswith("rewrite limit: 3 invalid answers in a row")
    assert len(agent.tree.root.llm_calls) == 3 and not any(x.accepted for x in agent.tree.root.llm_calls)
    await agent.close()


async def test_a_rejected_answer_followed_by_a_good_one_continues(toy_game):
    llm = ScriptedLLM(
        [
            ScriptEntry(answer="no tags at all", once=True),
            ScriptEntry(answer=answer("for loc in ['a']:\n    check(loc)"), once=True),
            ScriptEntry(answer=answer("run('look')")),
        ]
    )
    agent = Engine(make_env(toy_game), llm, ThreadRunner())
    events = await collect(agent)
    reasons = [e.reason for e in events if isinstance(e, ev.LLMRejected)]
    assert "no <execute>" in reasons[0] and "inside a loop" in reasons[1]
    assert [e.action for e in events if isinstance(e, ev.ActionSent)] == ["look"]
    await agent.close()


async def test_empty_expansion_marks_the_stub_skip(toy_game):
    llm = scripted(
        ("solve(instruction, observation)", answer("nothing_to_do()\nrun('look')")),
        ("nothing_to_do()", "<think>nothing</think><execute>\n</execute>"),
    )
    agent = Engine(make_env(toy_game), llm, ThreadRunner())
    events = await collect(agent)
    assert any(isinstance(e, ev.NodeSkipped) for e in events)
    assert agent.tree.root.children[0].status is NodeStatus.SKIP
    assert [e.action for e in events if isinstance(e, ev.ActionSent)] == ["look"]
    await agent.close()


async def test_code_that_raises_is_repaired_with_the_error_in_the_prompt(toy_game):
    llm = ScriptedLLM(
        [
            ScriptEntry(stub="solve(instruction, observation)", answer=answer("x = [1, 2][7]\nrun('inventory')")),
            ScriptEntry(stub="x = [1, 2][7]", purpose="repair", answer=answer("x = [1, 2][1]")),
        ]
    )
    agent = Engine(make_env(toy_game), llm, ThreadRunner(), limits=Limits(max_retry=1))
    events = await collect(agent)
    error = next(e for e in events if isinstance(e, ev.NodeError))
    assert error.error == "IndexError: list index out of range"
    repair = next(e for e in events if isinstance(e, ev.LLMRequested) and e.purpose == "repair")
    assert "IndexError: list index out of range" in repair.prompt
    broken = agent.tree.root.children[0]
    assert broken.status is NodeStatus.ERROR and broken.children[0].status is NodeStatus.COMPLETED
    assert [e.action for e in events if isinstance(e, ev.ActionSent)] == ["inventory"]
    await agent.close()


async def test_with_max_retry_zero_an_error_is_left_and_the_run_goes_on(toy_game):
    llm = scripted(("solve(instruction, observation)", answer("x = 1 / 0\nrun('look')")))
    agent = Engine(make_env(toy_game), llm, ThreadRunner(), limits=Limits(max_retry=0))
    events = await collect(agent)
    assert [e.action for e in events if isinstance(e, ev.ActionSent)] == ["look"]
    assert agent.stats.llm_calls == 1
    await agent.close()


async def test_a_missing_scripted_answer_pauses_naming_the_stub_and_a_batch_run_ends(toy_game):
    llm = scripted(("solve(instruction, observation)", answer("obj = find_it(instruction)")))
    agent = Engine(make_env(toy_game), llm, ThreadRunner())
    events = []
    while not isinstance(events[-1:] and events[-1], ev.LLMFailed):
        events.append(await agent.step())
    message = (
        "the script has no answer for stub `obj = find_it(instruction)`; "
        "add an entry with stub: 'obj = find_it(instruction)'"
    )
    assert events[-1].error == message
    # paused, not ended: asking again fails again (same script), and the tree is intact
    again = await agent.step()
    assert isinstance(again, ev.LLMFailed) and again.attempt == 2 and not agent.host.done
    assert agent.tree.root.children[0].status is NodeStatus.AWAITING_LLM
    # switching the LLM of a paused run: the next step asks the new one
    agent.host.llm = scripted(("obj = find_it(instruction)", answer("obj = 'apple'")))
    received = await agent.step()
    assert isinstance(received, ev.LLMAnswered) and received.blocks == ("obj = 'apple'",)
    await agent.close()

    batch = Engine(make_env(toy_game), scripted(("solve(instruction, observation)", answer("obj = find_it(instruction)"))), ThreadRunner())
    result = await batch.run()
    assert result.reason == f"LLM error: {message}" and not result.success
    await batch.close()


async def test_root_variables_and_keyword_literals_reach_the_prompt(toy_game):
    llm = scripted(
        ("solve(instruction, observation)", answer("found = search(instruction, where='countertop 1')")),
        ("found = search(instruction, where='countertop 1')", answer("found = where")),
    )
    agent = Engine(make_env(toy_game), llm, ThreadRunner())
    events = await collect(agent)
    first, second = [e for e in events if isinstance(e, ev.LLMRequested)]
    task = agent.task
    assert f"- instruction (str): {task}" in first.prompt and "- observation (str): You are in the middle" in first.prompt
    assert "- where (str): countertop 1" in second.prompt
    assert "observation (str)" not in second.prompt.split("Current function")[-1]
    await agent.close()


class _Answers:
    """A non-model LLM answering from a list, to check usage and cost accounting."""

    name = "counting"

    def __init__(self, texts):
        self.texts = list(texts)

    async def complete(self, prompt: str, context: CallContext | None = None) -> Completion:
        from agent.llm import Usage

        return Completion(self.texts.pop(0), Usage(100, 10), 0.25, "model")


async def test_usage_and_cost_are_summed_into_the_result(toy_game):
    agent = Engine(make_env(toy_game), _Answers([answer("a = step_a()"), answer("a = 1")]), ThreadRunner())
    events = await collect(agent)
    finished = events[-1]
    assert (finished.llm_calls, finished.input_tokens, finished.output_tokens, finished.cost) == (2, 200, 20, 0.5)
    await agent.close()


async def test_an_answer_the_parser_gives_up_on_is_rejected_and_asked_again(toy_game):
    from agent.sandbox.runner import SandboxRunner

    huge = "x = " + " + ".join(["1"] * 20_000)
    llm = ScriptedLLM([
        ScriptEntry(answer=answer(huge), stub="solve(instruction, observation)", once=True),
        ScriptEntry(answer=answer("x = 1 + 1\nrun('look')"), stub="solve(instruction, observation)"),
    ])
    checks = SandboxRunner(node_timeout=5.0)  # only its static checks (no worker starts): the node runs in-process
    agent = Engine(make_env(toy_game), llm, runner=ThreadRunner(), limits=Limits(max_retry=0), code_check=checks.check)
    try:
        events = await collect(agent)
    finally:
        await agent.close()
    rejected = [e for e in events if isinstance(e, ev.LLMRejected)]
    assert len(rejected) == 1 and "nested too deeply to parse" in rejected[0].reason
    assert [e.action for e in events if isinstance(e, ev.ActionSent)] == ["look"]
    assert "internal error" not in events[-1].reason
    assert events[-1].reason == "no pending nodes left and the task is not done"


@pytest.mark.parametrize("where", [pytest.param("sandbox", marks=pytest.mark.heavy), "in-process"])  # each runner's imports
async def test_an_imported_name_in_a_later_node_is_not_a_placeholder(toy_game, where):
    from agent.sandbox.runner import SandboxRunner

    llm = scripted(
        ("solve(instruction, observation)", answer("from collections import Counter\ncount_words(instruction)")),
        ("count_words(instruction)", answer("n = Counter(instruction.split())['a'] + 1\nrun('look')")),
    )
    runner = SandboxRunner(node_timeout=5.0) if where == "sandbox" else ThreadRunner()
    agent = Engine(make_env(toy_game), llm, runner=runner, limits=Limits(max_retry=0))
    try:
        events = await collect(agent)
    finally:
        await agent.close()
    assert not [e for e in events if isinstance(e, ev.LLMRejected)]
    assert [e.name for e in events if isinstance(e, ev.StubFound)] == ["solve", "count_words"]
    assert [e.action for e in events if isinstance(e, ev.ActionSent)] == ["look"]
    assert agent.stats.llm_calls == 2


async def test_node_events_carry_the_nodes_own_time(toy_game):
    llm = scripted(("solve(instruction, observation)", answer("x = sum(range(10))\nrun('look')")))
    agent = Engine(make_env(toy_game), llm, ThreadRunner(), limits=Limits(max_retry=0))
    events = await collect(agent)
    await agent.close()
    done = [e for e in events if isinstance(e, ev.NodeCompleted)]
    assert len(done) == 2 and all(0.0 < e.seconds < 1.0 and e.restore_seconds == 0.0 for e in done)


async def test_recode_tells_its_llm_the_stubs_code_as_the_label_and_its_name_in_recodes_own_notes(toy_game):
    """The protocol's context is generic; the stub's name is ReCode's note, which only ReCode reads."""
    from agent.agents.recode.call_notes import noted_stub

    told: list[CallContext] = []

    class Listening(_Answers):
        async def complete(self, prompt: str, context: CallContext | None = None) -> Completion:
            assert context is not None
            told.append(context)
            return await super().complete(prompt, context)

    agent = Engine(make_env(toy_game), Listening([answer("a = step_a()"), answer("a = 1")]), ThreadRunner())
    await collect(agent)
    await agent.close()
    assert [(c.purpose, c.label, noted_stub(c)) for c in told] == [
        ("expand", "solve(instruction, observation)", "solve"), ("expand", "a = step_a()", "step_a")]
