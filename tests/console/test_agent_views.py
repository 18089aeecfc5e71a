"""Each agent's own view in the console's bottom tab (`a`): Plan-and-Execute's plan and replan
diffs, ReCAP's levels, re-injections and window, ReAct's turns, CodeAct's cells; redrawn at
stops only; readable at 80x24.

On the toy world (tests/toyenv) with node code run in-process (tests/console/page.py): the views
are the agents' and the console's, not ALFWorld's or the sandbox's.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import AsyncIterator

import pytest

from agent.runtime import events as ev
from agent.runtime.breakpoints import parse_breakpoint
from mockllm.scripted import ScriptedLLM, ScriptEntry
from recode_tui.console.widgets.agent_view import AgentViewPane
from recode_tui.console.widgets.node_detail import NodeDetail
from tests.agents import test_plan_execute as pe
from tests.agents import test_recap as rc

from .helpers import drawn, notifications
from .page import ConsolePage, at, shared_consoles, toy_app, toy_console

FIRST = pe.plan(("s1", "find the vase on the sofa and take it", []), ("s2", "put the vase on sidetable 1", ["s1"]))
REPLANNED = pe.plan(("s3", "take the vase from diningtable 1", []), ("s2", "put the vase on sidetable 1", ["s3"]))


@pytest.fixture(scope="module", autouse=True)
def toy(toy_module):
    return toy_module


def replanning_llm() -> ScriptedLLM:
    return pe.in_order(
        ("plan", FIRST), ("act", pe.turn("Action: go to sofa 1")), ("act", pe.turn("Failed: no vase on sofa 1")),
        ("replan", REPLANNED), *pe.WIN_TURNS[:2], ("act", pe.turn("Done: holding vase 1")), *pe.WIN_TURNS[3:],
    )


@asynccontextmanager
async def plan_execute_acting() -> AsyncIterator[ConsolePage]:
    """Plan-and-Execute (the replanning model) continued to its executor's first call, for s1."""
    async with toy_console(replanning_llm(), agent="plan-execute", agent_options={"max_replans": 1}) as page:
        await until_call(page, lambda e: e.purpose == "act")
        yield page


page = shared_consoles({  # for the tests marked at(): they read the console, or put back what they change
    "recode": lambda: toy_console("gold"),  # ReCode at its first stop
    "plan-execute acting": plan_execute_acting,
})


def pane(page: ConsolePage) -> AgentViewPane:
    return page.screen.query_one(AgentViewPane)


def shown(page: ConsolePage) -> str:
    return "\n".join(pane(page).lines)


async def until_call(page: ConsolePage, predicate) -> None:
    """`c` until the run stops at an LLM call that `predicate` accepts."""
    for _ in range(20):
        await page.step("continue")
        last = page.screen.debugger.last_event
        if isinstance(last, ev.LLMRequested) and predicate(last):
            return
    raise AssertionError(f"never stopped at the call; last: {page.screen.debugger.last_event}")


async def test_plan_execute_shows_a_replan_as_a_diff() -> None:
    first_of_s3 = [parse_breakpoint("action ^go to diningtable 1$")]  # s1 went to the sofa: s3's first action
    async with toy_console(replanning_llm(), agent="plan-execute", breakpoints=first_of_s3,
                           agent_options={"max_replans": 1}) as page:
        await page.step("continue")
        assert isinstance(page.last_event, ev.ActionSent) and page.agent.env.steps == 1
        text = shown(page)  # after the replan: s3 runs, s1 failed, the diff says what changed
        assert "── Replan 1: step s1 failed: no vase on sofa 1" in text
        assert "- s1: find the vase on the sofa and take it" in text and "+ s3: take the vase from diningtable 1" in text
        assert "▶ s3: take the vase from diningtable 1  [running]" in text
        marks = dict(zip(pane(page).lines, pane(page)._marks))
        assert marks["- s1: find the vase on the sofa and take it"] == "removed"
        assert marks["+ s3: take the vase from diningtable 1"] == "added"
        await page.step("next")  # the action's observation
        assert "> go to diningtable 1  => You arrive at diningtable 1." in shown(page)


async def test_the_node_pane_follows_the_tree_to_the_next_step_where_the_finished_one_was() -> None:
    """s1 finishes at its first turn: folded, its row holds s2 next, under the cursor that was on the turn."""
    steps = pe.plan(("s1", "look around", []), ("s2", "go to the table", ["s1"]))
    llm = pe.in_order(("plan", steps), ("act", pe.turn("Done: looked")), ("act", pe.turn("Action: go to diningtable 1")))
    async with toy_console(llm, agent="plan-execute", breakpoints=[parse_breakpoint("depth 2")]) as page:
        screen = page.screen
        await page.step("continue")  # at s1's first turn, the tree's cursor on it
        turn = screen.agent.tree.nodes[page.last_event.node_id]
        assert turn.depth == 2 and screen.tree_view.cursor_node.data == turn.id
        second = None
        for _ in range(20):
            if second is not None and screen.tree_view.current_id == second:
                break
            await page.step("next")
            children = screen.agent.tree.root.children
            second = children[1].id if len(children) > 1 else None
        assert second is not None and screen.tree_view.current_id == second, "the tree never moved to the second step"
        assert screen.query_one(NodeDetail).shown_id == second  # the node pane on the node the tree marks ▸


async def test_the_view_is_redrawn_at_stops_only() -> None:
    app = toy_app(pe.in_order(("plan", pe.WIN_PLAN), *pe.WIN_TURNS), agent="plan-execute", breakpoints=[])
    agent = app.debug_screen.agent
    asked = []
    view = agent.view
    agent.view = lambda: asked.append(agent.host.events_emitted) or view()  # type: ignore[method-assign]
    async with ConsolePage.open(app) as page:
        before = len(asked)
        await page.step("continue")  # no breakpoint: one command to the end, dozens of events
        assert page.screen.agent.host.finished.success and agent.host.events_emitted > 30
        assert len(asked) == before + 1  # one stop, one view
        assert "✓ s2: put the vase on sidetable 1 [after s1]  [done]" in shown(page)


async def test_recap_shows_both_levels_while_the_child_level_runs() -> None:
    async with toy_console(rc.in_order(*rc.WIN), agent="recap", agent_options={"window": 1}) as page:
        await until_call(page, lambda e: e.purpose == "refine" and e.node_id != page.screen.agent.tree.root.id)
        text = shown(page)  # the child level, on its first revision: both levels are open
        assert "depth 0: put a vase in sidetable." in text and "depth 1: find the vase and take it" in text
        assert "▶ 1. subtask: find the vase and take it  (in progress)" in text
        assert "▶ 1. action: go to diningtable 1" in text and "  2. action: take vase 1 from diningtable 1" in text


async def test_recap_at_a_return_shows_the_reinjection_in_its_cut_window() -> None:
    async with toy_console(rc.in_order(*rc.WIN), agent="recap", breakpoints=[parse_breakpoint("note re-injection")],
                           agent_options={"window": 1}) as page:
        await page.step("continue")  # the child level returned: its outcome re-injected at the root
        await page.step("next")  # the root's next call, with that outcome in its window
        asked = page.last_event
        assert isinstance(asked, ev.LLMRequested) and asked.purpose == "refine" and asked.node_id == page.agent.tree.root.id
        text = shown(page)  # back at the root: the re-injection, and the window cut to 1 round + the path
        assert "── Re-injected at each return" in text
        assert ("The subtask `find the vase and take it` returned: done; last action `take vase 1 from diningtable 1`"
                in text and 'holding: vase 1; claim: "holding vase 1"' in text)  # the structured outcome
        assert "── Window: what the model sees now (2 of 4 rounds; window 1)" in text
        cut = "[... 2 earlier rounds cut from the window ...]"
        assert cut in pane(page).lines and pane(page)._marks[pane(page).lines.index(cut)] == "cut"
        assert "(kept: on the path to the current subtask)" in text


async def test_react_marks_the_turn_at_hand() -> None:
    async with toy_console(agent="react") as page:
        await page.step("continue")
        assert "▶ turn 1: the LLM is asked" in shown(page)
        await page.put_answer("Thought: the vase may be on the table\nAction: go to diningtable 1")
        await page.command("ctrl+s")
        await page.step("continue")
        text = shown(page)
        assert "turn 1: go to diningtable 1" in text and "  thought: the vase may be on the table" in text
        assert "  => You arrive at diningtable 1." in text and "▶ turn 2: the LLM is asked" in text


async def test_codeact_shows_each_cell_with_its_output_or_error() -> None:
    cells = ScriptedLLM([ScriptEntry('<think>look</think>\n<execute>\nprint("hello")\nrun("go to diningtable 1")\n'
                                     '</execute>', purpose="act", once=True),
                         ScriptEntry("<think>oops</think>\n<execute>\nundefined_helper()\n</execute>", purpose="act")])
    async with toy_console(cells, agent="codeact") as page:
        await until_call(page, lambda e: "cell 3" in shown(page))
        text = shown(page)
        assert "cell 1 ✓" in text and '  │ print("hello")' in text and "  => hello" in text
        assert "cell 2 ✗ NameError" in text and "▶ cell 3: the LLM is asked" in text


async def test_enter_in_codeacts_cells_shows_a_cells_whole_output() -> None:
    printing = "<think>count</think>\n<execute>\nfor i in range(12):\n    print(f'line {i} ' + 'x' * 160)\n</execute>"
    async with toy_console(ScriptedLLM([ScriptEntry(printing, purpose="act", once=True)]), agent="codeact") as page:
        await until_call(page, lambda e: "cell 2" in shown(page))
        await page.press("escape", "a")
        assert page.app.focused is pane(page)  # the Cells tab
        whole = [f"  => line {i} " + "x" * 160 for i in range(12)]
        assert "  => line 0 " not in shown(page) and whole[-1] not in pane(page).lines  # the last 6, each cut
        await page.press("enter")
        assert all(line in pane(page).lines for line in whole)  # every output line whole


async def test_at_80x24_the_plan_view_has_rows_and_keeps_the_current_step_in_sight() -> None:
    steps = [(f"s{i}", f"step number {i} of a long plan that wraps at eighty columns", [f"s{i - 1}"] if i > 1 else [])
             for i in range(1, 9)]
    llm = ScriptedLLM([ScriptEntry(pe.plan(*steps), purpose="plan"),
                       ScriptEntry(pe.turn("Done: ok"), purpose="act")])
    async with ConsolePage.open(toy_app(llm, agent="plan-execute"), size=(80, 24)) as page:
        await page.press("a")
        await until_call(page, lambda e: "▶ s4:" in shown(page))  # below the view's first rows at 80x24
        await drawn(page.app)  # the view brings the current step into sight after the stop's refresh
        view = pane(page)
        assert view.region.height >= 5 and view.region.width >= 70, view.region
        current = next(i for i, mark in enumerate(view._marks) if mark == "current")
        row = view._row_of(current)
        assert row >= view.scrollable_content_region.height, "s4 fits the first rows: nothing to bring into sight"
        assert view.scroll_y <= row < view.scroll_y + view.scrollable_content_region.height


# -- breakpoints on agent decisions ----------------------------------------------------------------


async def add_breakpoint(page: ConsolePage, spec: str) -> None:
    """Type a breakpoint in the Breakpoints tab's entry, as a person does (B, a, the spec, enter)."""
    await page.press("B", "a")
    await page.type(spec)
    await page.press("enter")


async def test_a_note_replan_breakpoint_stops_plan_execute_at_the_replan() -> None:
    async with toy_console(replanning_llm(), agent="plan-execute", breakpoints=[],
                           agent_options={"max_replans": 1}) as page:
        await add_breakpoint(page, "note replan")
        [bp] = page.screen.debugger.breakpoints
        assert bp.describe() == "on replan" and bp.spec() == "note replan"
        await page.step("continue")  # plan, s1's two turns: the plan adopted is no replan, it runs on
        last = page.screen.debugger.last_event
        assert isinstance(last, ev.AgentNote) and last.label == "replan" and page.screen.agent.env.steps == 1
        assert page.reason.startswith("breakpoint 1: on replan — replan at n0: why: step s1 failed: no vase on sofa 1")
        assert bp.hit_count == 1 and "── Replan 1: step s1 failed: no vase on sofa 1" in shown(page)
        await page.step("continue")  # no second replan: on to the win
        assert page.screen.agent.host.finished.success and bp.hit_count == 1


async def test_a_note_reinjection_breakpoint_stops_recap_at_each_return() -> None:
    breakpoints = [parse_breakpoint("note re-injection"),
                   parse_breakpoint("note plan adopted")]  # Plan-and-Execute's label: never hit here
    async with toy_console(rc.in_order(*rc.WIN), agent="recap", breakpoints=breakpoints) as page:  # typed: the replan test
        await page.step("continue")
        last = page.screen.debugger.last_event
        assert isinstance(last, ev.AgentNote) and last.label == "re-injection"
        assert "breakpoint 1: on re-injection — re-injection at n0: The subtask `find the vase and take it`" in page.reason
        assert "── Re-injected at each return" in shown(page) and page.screen.agent.env.steps == 2
        await page.step("continue")
        assert page.screen.agent.host.finished.success
        assert [b.hit_count for b in page.screen.debugger.breakpoints] == [1, 0]


def test_note_breakpoints_parse() -> None:
    assert parse_breakpoint("note Replan").match(ev.AgentNote("n0", label="replan", text="why"), "")
    either = parse_breakpoint("on replan|re-injection")
    assert either.match(ev.AgentNote("n3", label="re-injection", text="x"), "") == "re-injection at n3: x"
    assert either.match(ev.AgentNote("n0", label="plan adopted", text="x"), "") is None
    assert parse_breakpoint("note").describe() == "on every agent decision"
    assert parse_breakpoint("note replan if steps > 2").spec() == "note replan if steps > 2"


def test_a_note_breakpoint_with_a_bad_regex_or_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="bad regular expression"):
        parse_breakpoint("note (")
    with pytest.raises(ValueError, match="note LABEL"):
        parse_breakpoint("decision replan")


async def test_ctrl_a_then_a_fast_answer_replaces_the_whole_format() -> None:
    """ctrl+a is handled as the key arrives, like enter and backspace: a paste-speed answer typed
    right behind it replaces the skeleton instead of landing after `Thought: `."""
    from textual import events

    async with toy_console(agent="react") as page:
        await page.step("continue")
        assert page.app.focused is page.screen.editor.editor and page.screen.editor.editor.text == "Thought: \nAction: "
        page.app.post_message(events.Key("ctrl+a", None))  # queued right before the typed keys, as a terminal sends them
        await page.type("Thought: go\nAction: go to diningtable 1")
        await page.checked()
        assert page.editor_text == "Thought: go\nAction: go to diningtable 1"
        assert page.check.ok


# -- tests that read ReCode's shared console (`page`); last, so it closes as they end


@at("recode")
async def test_recode_has_no_agent_tab(page: ConsolePage) -> None:
    assert not page.screen.query("#tab-agent") and not page.screen.query(AgentViewPane)


@at("recode")
async def test_a_on_recode_says_it_has_no_agent_view(page: ConsolePage) -> None:
    page.app.clear_notifications()
    await page.press("a")
    assert any("no agent view" in str(n.message) for n in notifications(page.app))


@at("plan-execute acting")
async def test_a_opens_the_agent_tab_with_the_focus_on_it(page: ConsolePage) -> None:
    bottom = page.screen.query_one("#bottom")
    before = bottom.active
    assert before != "tab-agent"
    await page.press("a")
    assert bottom.active == "tab-agent" and page.app.focused is pane(page)
    bottom.active = before  # put back: the tab the stop showed, the keys the tree's
    page.screen.tree_view.focus()


@at("plan-execute acting")
async def test_plan_execute_shows_its_plan_with_the_running_step_s_turns(page: ConsolePage) -> None:
    text = shown(page)  # at the first executor call of s1
    assert "── Plan (0 of 1 replans used)" in text
    assert "▶ s1: find the vase on the sofa and take it  [running]" in text
    assert "· s2: put the vase on sidetable 1 [after s1]  [pending]" in text
    assert "── Executor turns of s1 (0 of 10)" in text
