"""Debugger staples: `!` at a stop, run to here, the current line, the model clock.

On the toy world with node code in-process (tests/console/page.py), resumes and forks replay included;
the shell's checks keep the real sandbox worker.
"""

from __future__ import annotations

import json
import re
import time
from contextlib import asynccontextmanager
from pathlib import Path
from typing import AsyncIterator

import pytest

from agent.runtime import events as ev
from agent.runtime.breakpoints import parse_breakpoint
from recode_tui.console.app import build_app
from recode_tui.console.screens.shell_prompt import ShellPrompt

from .helpers import WIDE, armed, notifications, published, select_node
from .page import TOY_GAME, ConsolePage, at, shared_consoles, toy_app, toy_console
from .test_pilot import nested_model
from tests.settings import console_options


@pytest.fixture(scope="module", autouse=True)
def toy(toy_module):
    return toy_module


@asynccontextmanager
async def ran_to_the_second_child() -> AsyncIterator[ConsolePage]:
    """The nested model's run stepped (n) until the root has its two children, then run to here (h) on
    the second: the first one ran on the way. Wide: the node pane's rows hold what a stub became."""
    async with ConsolePage.open(toy_app(nested_model(), breakpoints=[]), size=WIDE) as page:
        while len(page.screen.agent.tree.root.children) < 2:
            await page.step("next")
        await page.select(page.screen.agent.tree.root.children[-1].id)
        await page.command("h")
        yield page


page = shared_consoles({"ran to here": ran_to_the_second_child})  # for the tests marked at(); they only read it


async def shell_line(page: ConsolePage, code: str) -> str:
    """Open `!`, type one line, wait for its answer, close; the answer shown."""
    await page.press("exclamation_mark")
    screen = page.app.screen
    assert isinstance(screen, ShellPrompt)
    answer = armed(page.app, screen.answered)
    await page.type(code)
    await page.press("enter")
    result = await published(answer, "the line's answer")
    await page.press("escape")
    assert not isinstance(page.app.screen, ShellPrompt)  # the prompt closed
    return result


@pytest.mark.heavy  # the sandbox worker's checks refuse the line (on the toy world)
async def test_a_statement_at_a_stop_is_journaled_and_survives_a_resume_and_a_refused_one_changes_nothing(
        tmp_path: Path) -> None:
    app = build_app(console_options(TOY_GAME, breakpoints=[], sessions_dir=tmp_path), nested_model())
    async with ConsolePage.open(app) as page:
        before = await page.agent.runner.variables()
        result = await shell_line(page, "notes = open('/etc/passwd').read()")
        assert "forbidden" in result and "open" in result and "\n" not in result
        result = await shell_line(page, "my_mark = 'x'; 1 / 0")
        assert result.startswith("ZeroDivisionError")
        assert await page.agent.runner.variables() == before
        assert "my_mark" not in page.variables.values
        assert await shell_line(page, "my_mark = 'mug 1'") == "changed my_mark"
        assert page.variables.marks.get("my_mark") == "shell"
        assert page.variables.values["my_mark"].summary == "mug 1"
        assert await shell_line(page, "my_mark.upper()") == "MUG 1"  # an expression shows its value
        await page.step("continue")
        assert page.state == "done" and page.finished.success
        assert (await page.agent.runner.evaluate("my_mark == 'mug 1'"))[1] == "True"
        folder = page.app.session_control.session.folder
    records = [json.loads(line) for line in (folder / "journal.jsonl").read_text().splitlines()]
    statements = [r for r in records if r["type"] == "statement"]
    assert [s["code"] for s in statements] == ["my_mark = 'mug 1'"]  # the refused lines and the expression: not kept

    app = build_app(console_options(TOY_GAME, sessions_dir=tmp_path, resume=folder), nested_model())
    async with ConsolePage.open(app) as page:
        assert page.app.session_control.session.folder == folder
        assert page.state == "done" and page.finished.success
        assert (await page.agent.runner.evaluate("my_mark == 'mug 1'"))[1] == "True"


async def test_fork_under_a_model_opens_the_old_answer_and_the_model_goes_on_after_it(tmp_path: Path) -> None:
    async with toy_console(nested_model(), breakpoints=[], sessions_dir=tmp_path) as page:
        await page.step("continue")
        assert page.finished.success
        model = page.agent.host.llm.name
        stub = next(n for n in page.agent.tree.nodes.values() if n.parent is not None and n.llm_calls)
        old = stub.llm_calls[-1].answer
        await page.select(stub.id)
        await page.replaced("F")
        asked = page.last_event
        assert isinstance(asked, ev.LLMRequested) and asked.node_id == stub.id
        assert page.screen.editor.node_id == stub.id and not page.screen.editor.editor.read_only
        assert page.editor_text == old  # not "No expansion is awaited"
        assert page.agent.host.llm.name == "human" and page.screen.llm_control.restore_after.name == model
        await page.command("ctrl+s")
        assert page.agent.host.llm.name == model  # the model answers the next stubs, not the person
        await page.step("continue")
        assert page.finished is not None and page.finished.success
        sources = [r["source"] for r in json.loads("[" + ",".join(
            (page.app.session_control.session.folder / "journal.jsonl").read_text().splitlines()) + "]")
            if r["type"] == "answer"]
        assert "human" in sources and sources[-1] != "human"


LOOP = (
    "<think>Look around two places.</think>\n<execute>\n"
    'for place in ["diningtable 1", "sidetable 1"]:\n'
    '    run(f"go to {place}")\n'
    '    run("look")\n'
    "</execute>\n"
)


def detail_text(page: ConsolePage) -> str:
    from recode_tui.console.widgets.node_detail import NodeDetail

    pane = page.screen.query_one(NodeDetail)
    return "\n".join(strip.text for strip in pane.render_lines(pane.region.reset_offset))


async def test_the_running_line_moves_between_the_actions_of_a_loop() -> None:
    from mockllm.scripted import ScriptedLLM, ScriptEntry

    llm = ScriptedLLM([ScriptEntry(LOOP, stub="solve(instruction, observation)")], name="scripted")
    # a stop at each action; wide: the node pane's rows hold the loop's lines and the running-line mark
    async with ConsolePage.open(toy_app(llm, breakpoints=[parse_breakpoint("action .")]), size=WIDE) as page:
        lines = []
        while len(lines) < 4:
            await page.step("continue")
            event = page.screen.debugger.last_event
            assert isinstance(event, ev.ActionSent), event
            assert page.screen.tree_view.cursor_node.data == event.node_id
            lines.append(event.line)
            assert f"running line {event.line}" in detail_text(page)
        assert lines == [2, 3, 2, 3]
        await page.step("over")  # the node ends: no mark
        assert "running line" not in detail_text(page)


class GatedLLM:
    """A model that answers only when the test opens the gate (a slow model, without sleeping)."""

    name = "slowmodel"

    def __init__(self) -> None:
        import asyncio

        from mockllm.scripted import ScriptedLLM, ScriptEntry

        self.gate = asyncio.Event()
        self.inner = ScriptedLLM([ScriptEntry(LOOP, stub="solve(instruction, observation)")], name="scripted")

    async def complete(self, prompt, context=None):
        await self.gate.wait()
        return await self.inner.complete(prompt, context)


@pytest.fixture
def quick_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The model clock redrawn every 50 ms, not every half second: its ticks are what these tests read
    (the seconds shown are the call's, moved back by hand), not how often they come; each tick waited
    for was half a second of the test doing nothing."""
    from recode_tui.console.screens import debug_screen

    monkeypatch.setattr(debug_screen, "MODEL_CLOCK_SECONDS", 0.05)


@pytest.mark.usefixtures("quick_clock")
async def test_the_status_line_counts_the_time_a_model_is_answering() -> None:
    llm = GatedLLM()
    async with toy_console(llm, breakpoints=[]) as page:
        await page.press("c")
        def seconds() -> int:  # the clock the status line shows (0 while it shows none)
            shown = re.search(r"slowmodel is answering n0… (\d+) s", page.status())
            return int(shown.group(1)) if shown else 0

        # The call's start moved a second back, twice, stands for the seconds a slow model takes (none is
        # waited): the clock must show the time so far at its ticks and move on, whichever second it shows.
        await page.status_shows(lambda text: "slowmodel is answering n0… " in text, "the model clock")
        assert "▶ running" in page.status().splitlines()[0]  # a command that lasts is said to be running
        page.agent.host.answering_since -= 1.0
        await page.status_shows(lambda _: seconds() >= 1, "the model clock at 1 s or more")
        first = seconds()
        page.agent.host.answering_since -= 1.0
        await page.status_shows(lambda _: seconds() > first, "the clock moving on")
        llm.gate.set()
        await page.status_shows(lambda text: "is answering" not in text, "the clock gone after the answer")


class TwiceGatedLLM(GatedLLM):
    """Two gated answers: the first proposal, and the one a regenerate asks for."""

    def __init__(self) -> None:
        super().__init__()
        from mockllm.scripted import ScriptedLLM, ScriptEntry

        self.inner = ScriptedLLM([ScriptEntry(LOOP, stub="solve(instruction, observation)")] * 2, name="scripted")


@pytest.mark.usefixtures("quick_clock")
async def test_the_model_clock_starts_again_when_the_proposal_is_regenerated() -> None:
    llm = TwiceGatedLLM()
    async with toy_console(llm, review=True, breakpoints=[]) as page:
        await page.press("c")
        await page.status_shows(lambda text: "slowmodel is answering n0… " in text, "the first call's clock")
        page.agent.host.answering_since -= 2.0  # as if the model had taken 2 s more (none is waited)

        def first_call_at_2_s() -> bool:
            shown = re.search(r"slowmodel is answering n0… (\d+) s", page.status())
            return shown is not None and int(shown.group(1)) >= 2

        await page.status_shows(lambda _: first_call_at_2_s(), "the first call at 2 s or more")
        llm.gate.set()
        await page.reached("reviewing")
        llm.gate.clear()  # the second answer waits
        pressed = time.monotonic()
        await page.press("ctrl+g")

        def counts_from_the_press() -> bool:
            # A clock started again shows at most the time since ctrl+g (a second for rounding); the
            # first call's clock would show 2 s more. Read as a state, so a slow machine's ticks do not matter.
            shown = re.search(r"is answering n0… (\d+) s", page.status())
            return shown is not None and int(shown.group(1)) <= time.monotonic() - pressed + 1

        await page.status_shows(lambda _: counts_from_the_press(), "the clock from 0 after ctrl+g")
        llm.gate.set()


async def test_compare_offers_one_key_per_answer_column() -> None:
    from textual.widgets import Input

    from recode_tui.console.workspace.compare import CompareScreen

    from .test_workspace import open_workspace_page, scripted

    async with toy_console(scripted()) as page:
        await page.step("continue")
        await page.step("next")
        await select_node(page.pilot, page.app, "n0")
        ws = await open_workspace_page(page)
        ws.query_one("#ws-llms", Input).value = "human"
        await page.press("ctrl+r")
        await page.worked("reexpand")
        screen = page.app.screen
        assert isinstance(screen, CompareScreen)
        offered = {key for key, b in screen.active_bindings.items() if b.binding.show and b.enabled}
        assert {k for k in offered if k.startswith("f") and k[1:].isdigit()} == {"f1"}


def test_an_answer_replayed_from_a_journal_is_labelled_journal(tmp_path: Path) -> None:
    import asyncio

    from mockllm.journal import journal_llm

    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "journal.jsonl").write_text(
        json.dumps({"type": "session", "version": "recode.journal.v1"}) + "\n"
        + json.dumps({"type": "answer", "index": 1, "node_id": "n0", "stub": "solve(instruction, observation)",
                      "purpose": "expand", "prompt": "p", "answer": "<execute>\nrun('look')\n</execute>",
                      "source": "model", "accepted": True}) + "\n")
    from agent.llm import CallContext, Purpose

    completion = asyncio.run(journal_llm(folder).complete("p", CallContext(purpose=Purpose.EXPAND, label="solve(instruction, observation)")))
    assert completion.source == "journal"


@pytest.mark.heavy  # the sandbox worker runs a line while a node waits on its action (in-process cannot)
async def test_a_statement_between_two_actions_of_a_loop_sees_the_loop_and_replays_there(tmp_path: Path) -> None:
    from mockllm.scripted import ScriptedLLM, ScriptEntry

    def llm():
        return ScriptedLLM([ScriptEntry(LOOP, stub="solve(instruction, observation)")], name="scripted")

    app = build_app(console_options(TOY_GAME, breakpoints=[], sessions_dir=tmp_path), llm())
    async with ConsolePage.open(app) as page:
        while not isinstance(page.last_event, ev.ActionSent):
            await page.step("step")
        assert await shell_line(page, "extra = place.upper()") == "changed extra"
        assert page.variables.marks.get("extra") == "shell"
        await page.step("continue")
        assert (await page.agent.runner.evaluate("extra"))[1] == "DININGTABLE 1"
        folder = page.app.session_control.session.folder
    app = build_app(console_options(TOY_GAME, sessions_dir=tmp_path, resume=folder), llm())
    async with ConsolePage.open(app) as page:
        assert page.state == "done"
        assert (await page.agent.runner.evaluate("extra"))[1] == "DININGTABLE 1"


def test_run_to_here_with_the_shell_are_in_the_palette_as_in_the_manual() -> None:
    from recode_tui.console.controllers.palette import TITLES

    assert "run.to-here" in TITLES and "shell.open" in TITLES
    manual = (Path(__file__).resolve().parents[2] / "docs" / "console.md").read_text()
    assert "`run.to-here`" in manual and "`shell.open`" in manual


# -- tests that read the shared console (the `page` fixture); last, so it closes as they end


@at("ran to here")
async def test_run_to_here_stops_where_the_selected_node_starts(page: ConsolePage) -> None:
    stop = page.screen.debugger.last_stop
    target = page.screen.agent.tree.root.children[-1].id  # the node selected before h
    assert isinstance(stop.event, ev.NodeStarted) and stop.event.node_id == target
    assert "ran to here" in stop.reason.text
    assert page.screen.agent.tree.root.children[0].status.value == "COMPLETED"  # the earlier sibling ran on the way


@at("ran to here")
async def test_run_to_here_on_a_node_that_already_ran_only_says_so(page: ConsolePage) -> None:
    stop = page.screen.debugger.last_stop
    page.app.clear_notifications()
    await page.select(page.screen.agent.tree.root.children[0].id)
    await page.press("h")
    assert page.screen.debugger.last_stop is stop
    assert any("has already run" in str(n.message) for n in notifications(page.app))


@at("ran to here")
async def test_the_node_pane_shows_what_a_stub_became(page: ConsolePage) -> None:
    await page.select("n0")
    text = detail_text(page)
    assert "expanded into" in text
    first = page.screen.agent.tree.root.children[0]
    assert f"{first.id} {first.code.splitlines()[0][:20]}" in text


@at("ran to here")
async def test_help_lists_run_to_here_with_the_shell(page: ConsolePage) -> None:
    from recode_tui.console.screens.help_screen import HelpScreen

    await page.press("question_mark")
    assert isinstance(page.app.screen, HelpScreen)
    rows = {row[2]: row[0] for row in page.app.screen.rows}
    await page.press("escape")  # put back: the run's screen, for the other tests of this stop
    assert rows["run.to-here"] == "h" and rows["shell.open"] == "!"
    assert not isinstance(page.app.screen, HelpScreen)
