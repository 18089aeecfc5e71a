"""The console under hostile input: where its crash report goes, and a slow answer check off its event loop.

On the toy world, node code in-process (tests/console/page.py); a resume replays in-process too.
"""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path

import pytest

from .helpers import SIZE, WIDE, armed, drawn, next_stop, published, stop_shown, worked
from .page import ConsolePage, toy_app


async def set_in_time(event: threading.Event, what: str) -> None:
    """Await a thread's `event` (the limit bounds a real hang only)."""
    assert await asyncio.to_thread(event.wait, 30), f"{what} did not happen"


async def test_a_crash_report_goes_to_the_sessions_folder_given_with_sessions(tmp_path: Path, monkeypatch,
                                                                               toy_env) -> None:
    from recode_tui.console.session.session_control import SessionControl

    def broken(self, app, replace_run) -> None:
        raise RuntimeError("a bug in the console")

    monkeypatch.setattr(SessionControl, "attach", broken)
    mine = tmp_path / "my-sessions"
    app = toy_app(sessions_dir=mine)
    with pytest.raises(RuntimeError, match="a bug in the console"):
        async with app.run_test(size=SIZE):
            pass  # the console fails as it starts: leaving `run_test` raises what it raised
    assert app.return_code == 1
    report = Path(app.crash_line.rsplit("traceback in ", 1)[1])
    assert report.parent == mine / ".crashes" and "RuntimeError: a bug in the console" in report.read_text()
    default = Path(os.environ["RECODE_TUI_SESSIONS"]) / ".crashes"  # the folder it went to before
    assert not default.exists() or not any(default.iterdir())


async def test_keys_still_work_while_a_long_answer_is_being_checked(toy_game) -> None:
    """The agent judges an answer off the console's event loop: `p` is taken while the check runs."""
    from agent.agents.recode.engine import Engine
    from agent.runtime.limits import Limits
    from agent.runtime.thread_runner import ThreadRunner
    from envs.registry import make_env
    from mockllm.scripted import ScriptedLLM
    from mockllm.scripted import ScriptEntry
    from recode_tui.console.app import RecodeApp


    checking, go_on = threading.Event(), threading.Event()
    waited: list[bool] = []

    def slow_check(code: str) -> str | None:
        """A check as slow as a long answer's, until the test has pressed its key."""
        if not waited:
            checking.set()
            waited.append(go_on.wait(5))  # False: the test could not run meanwhile (the loop was blocked)
        return None

    llm = ScriptedLLM([ScriptEntry(answer="<think>t</think>\n<execute>\nrun('look')\n</execute>")])
    agent = Engine(make_env(toy_game), llm, ThreadRunner(), limits=Limits(max_retry=0), code_check=slow_check)
    async with ConsolePage.open(RecodeApp(agent, cursor_blink=False)) as page:
        await page.step("continue")  # to the breakpoint on every stub: the LLM is asked next
        await page.press("c")
        await set_in_time(checking, "the answer check's start")
        stop = next_stop(page.app)
        await page.press("p")
        assert page.reason.startswith("pausing after the current event")  # taken now, not after the check
        go_on.set()
        await stop_shown(page.pilot, stop)  # the pause
        assert not page.screen.driver.busy
    assert waited == [True]


async def test_a_pasted_answer_over_the_size_limit_is_refused_at_once_by_any_agents_editor() -> None:
    from agent.runtime.verdict import MAX_ANSWER_CHARS
    from agent.runtime.answer_check import check_answer
    from tests.agents.test_plan_execute import agent_with, in_order

    agent = agent_with(in_order())  # Plan-and-Execute: its own judge, not ReCode's judge_answer
    pasted = "x" * (MAX_ANSWER_CHARS + 1)
    check = check_answer(agent, pasted, "plan", "planner")
    await agent.close()
    assert not check.ok and check.message.startswith(f"the answer is {MAX_ANSWER_CHARS + 1:,} characters, over the limit")


async def test_typing_goes_on_while_the_live_check_judges_a_long_answer(toy_game) -> None:
    """The editor's check after a pause in typing runs in a thread: keys typed meanwhile land at once,
    and submitting the text it judged uses that verdict instead of judging again on the event loop."""
    from agent.agents.recode.engine import Engine
    from agent.runtime.limits import Limits
    from agent.runtime.thread_runner import ThreadRunner
    from envs.registry import make_env
    from mockllm.human import HumanLLM
    from recode_tui.console.app import RecodeApp


    checking, go_on, first_slow = threading.Event(), threading.Event(), threading.Lock()
    calls: list[str] = []
    on_loop: list[bool] = []  # each check: did it run on the console's event loop (the main thread)?
    held: list[bool] = []

    def slow_check(code: str) -> str | None:
        """As slow as a long answer's check, for the text ending in '# slow', until the test typed on."""
        calls.append(code)
        on_loop.append(threading.current_thread() is threading.main_thread())
        with first_slow:  # only the first check of the slow text is held (under load a second may start meanwhile)
            hold = code.rstrip().endswith("# slow") and not checking.is_set()
            if hold:
                checking.set()
        if hold:
            held.append(go_on.wait(5))  # False: the test could not type meanwhile (the loop was blocked)
        return None

    agent = Engine(make_env(toy_game), HumanLLM(), ThreadRunner(), limits=Limits(max_retry=0), code_check=slow_check)
    async with ConsolePage.open(RecodeApp(agent, cursor_blink=False)) as page:
        await page.step("continue")
        assert page.screen.editor.is_open
        opened = len(calls)  # opening the editor judges its (empty) draft at once
        page.screen.editor.editor.load_text("run('look')  # slow")
        await set_in_time(checking, "the live check's start")
        await page.press("end", "x")
        assert page.editor_text.endswith("# slowx")  # typed while the check was running
        go_on.set()
        page.screen.editor.editor.load_text("run('look')")  # not page.put_answer: its own check would run on the loop
        while not (page.check is not None and page.check.ok and calls.count("run('look')") >= 1):
            await published(armed(page.app, page.screen.editor.check_shown), "the check of the final text")
        await page.command("ctrl+s")  # the submitted answer's stop
        # the live checks ran in a thread, submit took their verdict, the agent judged in its own thread
        assert calls[opened:].count("run('look')") >= 2 and not any(on_loop[opened:]), (calls, on_loop)
    assert held == [True]


async def test_the_sessions_list_shows_a_crafted_journals_markup_and_escapes_as_text(tmp_path) -> None:
    """A session someone sent: `[/oops]` in its game crashed the list, and its cells, read as markup,
    could carry `[@click=app.screenshot(...)]` links (the tester's click wrote a file). Now every field
    is a text cell shown as written, its escapes visible, and the screen sends no control."""
    from textual.app import App
    from textual.widgets import DataTable

    from recode_tui.console.screens.sessions import SessionsScreen
    from tests.hostile_data import hostile, hostile_journal, shown

    sessions = tmp_path / "sessions"
    hostile_journal(sessions / "20260101-000000-crafted")

    class Host(App[None]):
        def on_mount(self) -> None:
            self.push_screen(SessionsScreen(sessions))

    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        await worked(pilot, "sessions-list")
        assert screen.loaded
        table = screen.query_one(DataTable)
        cells = table.get_row_at(0)
        assert not [cell for cell in cells if isinstance(cell, str) and "[" in cell]  # no cell is markup to parse
        plain = [str(getattr(cell, "plain", cell)) for cell in cells]
        for field in ("game", "llm"):
            assert any(shown(hostile(field)) in cell for cell in plain)  # as written (a narrow row stacks them)
        assert not any("\x1b" in cell or "\x9b" in cell for cell in plain)
        await drawn(app)
        assert_no_terminal_control(terminal_output(app))


def terminal_output(app) -> str:
    """What every widget of the screen on show sends to the terminal, line by line (styles included)."""
    from textual.geometry import Region

    lines = []
    for widget in app.screen.walk_children(with_self=True):
        if widget.size.area:
            strips = widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))
            lines += [strip.render(app.console) for strip in strips]
    return "\n".join(lines)


def assert_no_terminal_control(output: str) -> None:
    """Only Textual's own colours and styles (SGR, `\\x1b[...m`): no control from data."""
    import re

    rest = re.sub(r"\x1b\[[0-9;:]*m", "", output).replace("\n", "")
    assert not [c for c in rest if not c.isprintable() and c != "\t"], repr(rest[:300])


@pytest.fixture
async def played_session(tmp_path, toy_env) -> Path:
    """The toy put episode won by the nested scripted model (thoughts in its answers), journaled as a run
    journals it, node code in-process (the sandbox worker is not what is checked): the session folder."""
    from agent.runtime import events as ev
    from agent.sessions.session import start_session
    from envs.registry import EpisodeRef
    from recode_tui.setup.build import make_agent
    from tests.settings import episode_named, run_settings

    from tests.settings import in_process
    from .test_pilot import nested_model

    agent = make_agent(run_settings(), episode_named("toy:vase-1"), nested_model(), runner_maker=in_process)
    session = start_session(agent, tmp_path / "played", EpisodeRef.parse("toy:vase-1"), "scripted")
    try:
        while not isinstance(await agent.step(), ev.RunFinished):
            pass
        assert agent.host.finished is not None and agent.host.finished.success, agent.host.finished
    finally:
        session.writer.close()
        await agent.close()
    return session.folder


async def test_a_crafted_session_resumes_with_its_markup_and_escapes_shown_as_text(tmp_path, played_session) -> None:
    """A session someone sent, its LLM, thoughts and end reason crafted: resumed, every pane and the
    notifications show them as text; nothing reaches the terminal but Textual's own styles."""
    from tests.hostile_data import hostile, hostile_session, shown

    from .helpers import notifications

    folder = hostile_session(played_session, tmp_path / "sessions" / played_session.name)
    # with the note on the session's LLM; wide: the node pane shows the thoughts unwrapped
    async with ConsolePage.open(toy_app(sessions_dir=folder.parent, resume=folder), size=WIDE) as page:
        app = page.app
        assert_no_terminal_control(terminal_output(app))
        note = next(n for n in notifications(app) if "cannot be used" in n.message)
        assert hostile("llm")[:40] in note.message
        assert not any(n.markup for n in notifications(app))  # every toast shows its text as text, links and all
        thoughtful = [node.id for node in page.agent.tree.nodes.values() if node.thought]
        assert len(thoughtful) == 2
        for node in thoughtful:  # nodes the model answered with a thought: their thoughts in the node pane
            await page.select(node)
            output = terminal_output(app)
            assert_no_terminal_control(output)
            assert shown(hostile("thought"))[:40] in output
        for key in ("r", "e", "O", "B"):  # the lower panes: prompt, expansion, observation, breakpoints
            await page.press(key)
            assert_no_terminal_control(terminal_output(app))


async def test_a_variable_the_models_code_sets_to_markup_is_shown_as_text(toy_game) -> None:
    """The variables pane shows each value's summary in a table whose text cells Textual reads as markup:
    a value of `[/oops]` crashed the console, `[@click=...]` made a link. Now it is shown as written."""
    from textual.widgets import DataTable

    from agent.agents.recode.engine import Engine
    from agent.runtime.limits import Limits
    from agent.runtime.thread_runner import ThreadRunner
    from envs.registry import make_env
    from mockllm.scripted import ScriptedLLM
    from mockllm.scripted import ScriptEntry
    from recode_tui.console.app import RecodeApp

    value = "[/oops][@click=app.quit]x[/]"
    answer = f"<think>t</think>\n<execute>\nnote = {value!r}\nrun('look')\n</execute>"
    agent = Engine(make_env(toy_game), ScriptedLLM([ScriptEntry(answer=answer)]), ThreadRunner(),
                   limits=Limits(max_retry=0))
    async with ConsolePage.open(RecodeApp(agent, cursor_blink=False)) as page:
        await page.step("continue")  # to the breakpoint on the stub
        await page.step("continue")  # its answer runs: `note` is bound
        table = page.screen.query_one("#vars-table", DataTable)
        assert "note" in table.rows  # the stop is shown with the variables read at it
        shown = table.get_cell("note", "value").plain  # as written, cut to fit (`[/oops]…` at 100x30)
        assert shown.startswith("[/oops]") and value.startswith(shown.removesuffix("…"))
        assert_no_terminal_control(terminal_output(page.app))
