"""The parent against a worker that node code has taken over: a forged worker (`forged_worker.py`)
speaks the framing protocol and misbehaves. Whatever it sends, the node ends by its deadline, the
parent keeps at most the output cap and bounded memory, the worker is killed with the reason, and
the next node runs on a fresh worker."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from agent.runtime.runner import NodeOutcome
from agent.sandbox import budgets
from agent.sandbox.runner import SandboxRunner
from agent.sandbox.walls import SandboxPolicy

from .conftest import SPIN_TIMEOUT

FORGED = Path(__file__).with_name("forged_worker.py")
CAP = 10_000
MIB = 1024 * 1024
# However a node ends, it ends well within this (the runner's own deadlines are a few seconds here).
BOUND = 20.0


NO_WALLS = SandboxPolicy(walls=frozenset(), weak_ok=True)


def rss() -> int:
    """The test process's resident memory (the parent's), in bytes."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def forged(**settings) -> SandboxRunner:
    settings.setdefault("node_timeout", 1.0)
    # a fake interpreter outside any namespace: what is tested is the parent, not the walls
    return SandboxRunner(python=str(FORGED), max_output_chars=CAP, memory_mb=None, policy=NO_WALLS, **settings)


async def run_node(runner: SandboxRunner, code: str, actions: list[str] | None = None) -> tuple[NodeOutcome, float]:
    """The node's outcome and the seconds it took; every action answered "ok" (and recorded)."""
    began = time.monotonic()

    async def drive() -> NodeOutcome:
        await runner.start(code)
        while True:
            message = await runner.next_message()
            if isinstance(message, NodeOutcome):
                return message
            if actions is not None:
                actions.append(message.action)
            runner.answer("ok")

    outcome = await asyncio.wait_for(drive(), timeout=3 * BOUND)
    return outcome, time.monotonic() - began


async def assert_next_node_runs(runner: SandboxRunner) -> None:
    outcome, _ = await run_node(runner, "ok")
    assert outcome.status == "completed", outcome


# heavy: the sandbox worker
pytestmark = [pytest.mark.heavy,
              pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the parent's memory in /proc")]


@pytest.mark.asyncio
async def test_an_output_flood_is_cut_at_the_cap_and_its_worker_killed():
    runner = forged(node_timeout=5.0)
    try:
        await runner.ensure_started()
        before = rss()
        outcome, seconds = await run_node(runner, "flood out 300")
        grown = rss() - before
        assert grown < 100 * MIB, f"the parent grew by {grown / MIB:.0f} MiB for a 300 MiB flood"
        assert outcome.status == "error" and "far more than the output cap of 10000" in outcome.error, outcome.error
        assert len(outcome.output) <= CAP + 40 and outcome.output.endswith("[output cut at 10000 chars]\n")
        assert seconds < BOUND
        await assert_next_node_runs(runner)
    finally:
        await runner.close()


@pytest.mark.asyncio
async def test_one_huge_output_frame_is_refused_before_the_parent_reads_it():
    runner = forged(node_timeout=5.0)  # time enough to read it whole, if the parent did
    try:
        await runner.ensure_started()
        before = rss()
        outcome, _ = await run_node(runner, "one huge out 150")
        grown = rss() - before
        assert grown < 100 * MIB, f"the parent grew by {grown / MIB:.0f} MiB for a 150 MiB frame"
        assert outcome.status == "error" and "oversized" in outcome.error, outcome.error
        await assert_next_node_runs(runner)
    finally:
        await runner.close()


@pytest.mark.asyncio
async def test_output_after_the_code_ended_does_not_extend_the_save_deadline():
    runner = forged()
    try:
        outcome, seconds = await run_node(runner, "ran then drip")
        assert outcome.status == "error" and "'out' after the node's code ended" in outcome.error, outcome.error
        assert seconds < BOUND, f"a node with a 1 s limit took {seconds:.1f} s"
        await assert_next_node_runs(runner)
    finally:
        await runner.close()


@pytest.mark.asyncio
async def test_a_worker_that_never_saves_is_killed_at_the_save_deadline():
    runner = forged(save_timeout=1.0)
    try:
        outcome, seconds = await run_node(runner, "ran then silence")
        assert outcome.status == "error" and "timed out saving the variables after 1 s" in outcome.error, outcome
        assert seconds < BOUND
        await assert_next_node_runs(runner)
    finally:
        await runner.close()


@pytest.mark.asyncio
async def test_a_second_ran_is_refused():
    runner = forged()
    try:
        outcome, _ = await run_node(runner, "two ran")
        assert outcome.status == "error" and "second 'ran'" in outcome.error, outcome
        await assert_next_node_runs(runner)
    finally:
        await runner.close()


@pytest.mark.asyncio
async def test_an_action_request_without_its_action_never_reaches_the_environment():
    runner = forged()
    actions: list[str] = []
    try:
        outcome, _ = await run_node(runner, "action without action", actions)
        assert actions == []
        assert outcome.status == "error" and "'action' message from the worker without its 'action'" in outcome.error
        await assert_next_node_runs(runner)
    finally:
        await runner.close()


@pytest.mark.asyncio
async def test_a_worker_that_dies_restoring_fails_the_node_not_the_agent():
    runner = forged(node_timeout=SPIN_TIMEOUT)  # the node hangs until the limit: its length is not checked
    try:
        await runner.set_variables({"canary": "alive"})
        outcome, _ = await run_node(runner, "hang then fail restore")
        assert outcome.status == "error", outcome
        assert f"timed out after {SPIN_TIMEOUT:.1f} s" in outcome.error
        assert "did not restore the variables" in outcome.error
    finally:
        await runner.close()


# -- what the parent keeps of what the worker says -------------------------------------------------


@pytest.mark.asyncio
async def test_the_parent_keeps_a_clipped_summary_and_error_however_large_the_worker_sends_them():
    runner = forged(node_timeout=5.0)
    try:
        await runner.ensure_started()
        before = rss()
        for _ in range(3):  # 3 nodes, each 72 MiB of summary, type and error: 144 MiB kept, before
            outcome, _ = await run_node(runner, "huge summaries")
            assert len(outcome.error) <= budgets.ERROR_CHARS + len(budgets.CUT), len(outcome.error)
            assert len(outcome.stub_name) <= budgets.NAME_CHARS + len(budgets.CUT)
        grown = rss() - before
        summaries = await runner.variables()
        assert len(summaries) == 3
        for summary in summaries:
            assert len(summary.type) <= budgets.TYPE_CHARS + len(budgets.CUT)
            assert len(summary.summary) <= budgets.SUMMARY_CHARS + len(budgets.CUT)
        assert grown < 100 * MIB, f"the parent grew by {grown / MIB:.0f} MiB over 3 nodes"
    finally:
        await runner.close()


@pytest.mark.asyncio
async def test_a_worker_that_reports_more_variables_than_the_parent_keeps_is_broken():
    runner = forged()
    try:
        outcome, _ = await run_node(runner, "many variables")
        assert outcome.status == "error" and "more than the parent takes" in outcome.error, outcome.error[:300]
        assert len(await runner.variables()) <= budgets.VARIABLES
        await assert_next_node_runs(runner)
    finally:
        await runner.close()


@pytest.mark.asyncio
async def test_one_node_sends_at_most_the_node_budget_whatever_its_frames():
    runner = forged(node_timeout=30.0)
    try:
        outcome, _ = await run_node(runner, "call flood")
        limit = budgets.NODE_BYTES // MIB
        assert outcome.status == "error" and f"more than the {limit} MiB a node may send" in outcome.error, outcome
        await assert_next_node_runs(runner)
    finally:
        await runner.close()


@pytest.mark.asyncio
async def test_forged_prompt_lines_are_capped_before_they_reach_a_prompt():
    runner = forged(node_timeout=30.0)  # time enough to read all 16 MiB under load
    try:
        await runner.set_variables({"x": "honest"})
        lines = await runner.prompt_lines(["x"])
        assert len(lines) == 1  # one name asked for: one line, not the 16 the worker sent
        assert len(lines[0]) <= budgets.PROMPT_LINE_CHARS + len(budgets.CUT)
    finally:
        await runner.close()


@pytest.mark.asyncio
async def test_an_action_reaches_the_environment_and_the_journal_clipped():
    runner = forged(node_timeout=30.0)
    actions: list[str] = []
    try:
        outcome, _ = await run_node(runner, "huge action", actions)
        assert outcome.status == "completed", outcome
        assert len(actions) == 1 and len(actions[0]) <= budgets.ACTION_CHARS + len(budgets.CUT)
        assert actions[0].startswith("go to xxx")
    finally:
        await runner.close()
