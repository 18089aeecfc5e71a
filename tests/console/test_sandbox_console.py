"""The sandbox in the console: timeouts, interrupts, refusals, the TRUSTED badge."""

from __future__ import annotations

import io
import time

import pytest
from rich.console import Console

from agent.runtime import events as ev
from agent.runtime.tree import NodeStatus
from recode_tui.commands import cli
from recode_tui.console.app import build_app
from recode_tui.console.widgets.node_detail import NodeDetail

from .helpers import SIZE, command, next_stop, select_node, started, type_text, wait_for
from tests.settings import console_options

PUT_PLAN = (
    'run("go to diningtable 1")\nrun("take vase 1 from diningtable 1")\n'
    'run("go to sidetable 1")\nrun("put vase 1 in/on sidetable 1")'
)
SPIN = "n = 0\nwhile True:\n    n += 1"
READ_SECRETS = 'data = open("/etc/passwd").read()'


def detail_text(app) -> str:
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(app.debug_screen.query_one(NodeDetail).query_one("#detail-body").content)
    return console.export_text()


async def select(pilot, app, node_id: str) -> None:
    app.debug_screen.tree_view.select_node(app.debug_screen.tree_view.item(node_id))
    await select_node(pilot, app, node_id)


async def test_a_typed_infinite_loop_times_out_and_the_run_goes_on() -> None:
    app = build_app(console_options(breakpoints=[], node_timeout=2.0))  # room for a loaded machine
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")
        await type_text(pilot, SPIN)
        await command(pilot, app, "ctrl+s")
        await command(pilot, app, "c")  # `n = 0` runs, then the loop spins until the node timeout
        looping = next(n for n in app.debug_screen.agent.tree.nodes.values() if n.code.startswith("while True"))
        assert looping.status is NodeStatus.ERROR and looping.error == "timed out after 2.0 s"
        # The agent asks for a repair: the console is alive and awaits the person.
        assert app.debug_screen.run_state == "awaiting expansion" and "repair" in app.debug_screen.reason
        await pilot.press("escape")
        await select(pilot, app, looping.id)
        assert "error timed out after 2.0 s" in detail_text(app)
        await pilot.press("e")
        await type_text(pilot, PUT_PLAN)
        await command(pilot, app, "ctrl+s")
        await command(pilot, app, "c")
        assert app.debug_screen.agent.finished is not None and app.debug_screen.agent.finished.success
        assert app.debug_screen.agent.runner.restarts >= 1


# Even code that catches KeyboardInterrupt ends as interrupted.
CATCHES_INTERRUPT = "while True:\n    try:\n        n = 1\n    except KeyboardInterrupt:\n        n = 2"


@pytest.mark.parametrize("code", ["while True:\n    pass", CATCHES_INTERRUPT], ids=["plain", "catches"])
async def test_interrupt_stops_a_long_running_node(code: str) -> None:
    app = build_app(console_options(breakpoints=[], node_timeout=60.0))
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")
        await type_text(pilot, code)
        await command(pilot, app, "ctrl+s")
        stop = next_stop(app)
        await pilot.press("c")
        await wait_for(pilot, lambda: app.debug_screen.agent.current is not None and app.debug_screen.agent.current.id == "n1"
                       and app.debug_screen.agent.current.status is NodeStatus.RUNNING, what="the loop to run")
        began = time.monotonic()
        await pilot.press("i")
        await wait_for(pilot, lambda: stop.done() and not app.debug_screen.driver.busy, timeout=15, what="the stop")
        assert time.monotonic() - began < 10  # not the 60 s node timeout
        node = app.debug_screen.agent.tree.nodes["n1"]
        assert node.status is NodeStatus.ERROR and node.error.startswith("interrupted")
        assert isinstance(app.debug_screen.debugger.last_event, ev.LLMRequested)  # the repair, awaited
        await pilot.press("escape")
        await select(pilot, app, "n1")
        assert "error interrupted" in detail_text(app)


async def test_a_forbidden_call_is_refused_in_the_editor_before_submit_and_a_trusted_run_takes_it() -> None:
    app = build_app(console_options(breakpoints=[]))
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        assert "TRUSTED" not in app.debug_screen.query_one("#status").text
        await command(pilot, app, "c")
        await type_text(pilot, READ_SECRETS)
        # The check line shows the sandbox's refusal while typing, before any submit,
        # with the editor line of the statement.
        check_line = app.debug_screen.query_one("#expand-check")
        await wait_for(pilot, lambda: "forbidden: open" in str(check_line.content), what="the live refusal")
        assert str(check_line.content).startswith("✗ line 5: forbidden: open"), str(check_line.content)
        assert not app.debug_screen.agent.tree.root.llm_calls and app.debug_screen.run_state == "awaiting expansion"
        await pilot.press("ctrl+s")  # submitting changes nothing: the text stays, the agent still waits
        await pilot.pause()
        assert not app.debug_screen.agent.tree.root.llm_calls and app.debug_screen.debugger.awaiting_human
        assert READ_SECRETS in app.debug_screen.editor.editor.text
    trusted = build_app(console_options(breakpoints=[], trusted=True))
    async with trusted.run_test(size=SIZE) as pilot:
        await started(pilot, trusted)
        assert trusted.debug_screen.agent.runner.trusted
        assert "TRUSTED" in trusted.query_one("#status").text
        await command(pilot, trusted, "c")
        assert trusted.debug_screen.editor.check(READ_SECRETS).ok  # a trusted run takes it: the check follows the runner


def test_the_tui_command_passes_sandbox_and_model_options(monkeypatch) -> None:
    from recode_tui.console.app import RecodeApp

    seen: dict = {}

    class FakeApp:  # a stand-in that records what the command line would start
        return_code = 0
        load_error = None
        session_control = None

        def run(self) -> None:
            seen["ran"] = True

    def fake_load_run(options, llm=None, env_maker=None, runner_maker=None):
        seen.update(options=options, llm=llm)
        return "the run"

    def fake_for_run(run, **kwargs):
        seen.update(kwargs, run=run)
        return FakeApp()

    monkeypatch.setattr("recode_tui.console.app.load_run", fake_load_run)
    monkeypatch.setattr(RecodeApp, "for_run", fake_for_run)
    code = cli.main(["tui", "--llm", "profile:local", "--profiles", "p.yaml", "--trusted",
                     "--node-timeout", "2.5", "--review"])
    assert code == 0 and seen["ran"] and seen["run"] == "the run"
    options = seen["options"]
    assert options.run.llm.spec == "profile:local" and seen["profiles"] == "p.yaml" and seen["llm"] is None
    assert options.run.settings.trusted is True and options.run.settings.node_timeout == 2.5
    assert seen["review"] is True
