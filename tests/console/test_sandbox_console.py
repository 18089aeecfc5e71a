"""The sandbox in the console: timeouts, interrupts, refusals, the TRUSTED badge (the real sandbox worker).

On the toy world (tests/toyenv): the worker is what these tests are about, not ALFWorld."""

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

from .page import TOY_GAME, ConsolePage
from tests.settings import console_options

pytestmark = [pytest.mark.heavy,  # the sandbox's worker process is what these tests are about
              pytest.mark.usefixtures("toy_env")]

PUT_PLAN = (
    'run("go to diningtable 1")\nrun("take vase 1 from diningtable 1")\n'
    'run("go to sidetable 1")\nrun("put vase 1 in/on sidetable 1")'
)
SPIN = "n = 0\nwhile True:\n    n += 1"
READ_SECRETS = 'data = open("/etc/passwd").read()'


def detail_text(page: ConsolePage) -> str:
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(page.screen.query_one(NodeDetail).content)
    return console.export_text()


async def select(page: ConsolePage, node_id: str) -> None:
    """The node selected (its detail shown), the cursor on it."""
    page.screen.tree_view.select_node(page.screen.tree_view.item(node_id))
    await page.select(node_id)


async def test_a_typed_infinite_loop_times_out_and_the_run_goes_on() -> None:
    app = build_app(console_options(TOY_GAME, breakpoints=[], node_timeout=2.0))  # room for a loaded machine
    async with ConsolePage.open(app) as page:
        await page.step("continue")
        await page.answer(SPIN)
        await page.step("continue")  # `n = 0` runs, then the loop spins until the node timeout
        looping = next(n for n in page.screen.agent.tree.nodes.values() if n.code.startswith("while True"))
        assert looping.status is NodeStatus.ERROR and looping.error == "timed out after 2.0 s"
        # The agent asks for a repair: the console is alive and awaits the person.
        assert page.state == "awaiting expansion" and "repair" in page.reason
        await page.press("escape")
        await select(page, looping.id)
        assert "error timed out after 2.0 s" in detail_text(page)
        await page.press("e")
        await page.answer(PUT_PLAN)
        await page.step("continue")
        assert page.screen.agent.host.finished is not None and page.screen.agent.host.finished.success
        assert page.screen.agent.runner.restarts >= 1


# Even code that catches KeyboardInterrupt ends as interrupted.
CATCHES_INTERRUPT = "while True:\n    try:\n        n = 1\n    except KeyboardInterrupt:\n        n = 2"


@pytest.mark.parametrize("code", ["while True:\n    pass", CATCHES_INTERRUPT], ids=["plain", "catches"])
async def test_interrupt_stops_a_long_running_node(code: str) -> None:
    app = build_app(console_options(TOY_GAME, breakpoints=[], node_timeout=60.0))
    async with ConsolePage.open(app) as page:
        await page.step("continue")
        await page.answer(code)
        await page.press("c")
        agent = page.screen.agent  # no stop marks a node's start: the loop is awaited running, as the panes take it
        await page.events_applied(lambda: agent.current is not None and agent.current.id == "n1"
                                  and agent.current.status is NodeStatus.RUNNING, "the loop to run")
        began = time.monotonic()
        await page.command("i")  # the run stops at the interrupt
        assert time.monotonic() - began < 10  # not the 60 s node timeout
        node = agent.tree.nodes["n1"]
        assert node.status is NodeStatus.ERROR and node.error.startswith("interrupted")
        assert isinstance(page.screen.debugger.last_event, ev.LLMRequested)  # the repair, awaited
        await page.press("escape")
        await select(page, "n1")
        assert "error interrupted" in detail_text(page)


async def test_a_forbidden_call_is_refused_in_the_editor_before_submit() -> None:
    async with ConsolePage.open(build_app(console_options(TOY_GAME, breakpoints=[]))) as page:
        assert "TRUSTED" not in page.screen.query_one("#status").text
        await page.step("continue")
        await page.type(READ_SECRETS)
        # The check line shows the sandbox's refusal while typing, before any submit,
        # with the editor line of the statement.
        await page.checked()
        check_line = page.screen.query_one("#expand-check")
        assert str(check_line.content).startswith("✗ line 5: forbidden: open"), str(check_line.content)
        assert not page.screen.agent.tree.root.llm_calls and page.state == "awaiting expansion"
        await page.press("ctrl+s")  # submitting changes nothing: the text stays, the agent still waits
        assert not page.screen.agent.tree.root.llm_calls and page.screen.debugger.awaiting_human
        assert READ_SECRETS in page.screen.editor.editor.text


async def test_a_trusted_run_takes_what_the_sandbox_refuses() -> None:
    async with ConsolePage.open(build_app(console_options(TOY_GAME, breakpoints=[], trusted=True))) as page:
        assert page.screen.agent.runner.trusted
        assert "TRUSTED" in page.app.query_one("#status").text
        await page.step("continue")
        assert page.screen.editor.check(READ_SECRETS).ok  # a trusted run takes it: the check follows the runner


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
    assert options.run.settings.runner.trusted is True and options.run.settings.runner.node_timeout == 2.5
    assert seen["review"] is True
