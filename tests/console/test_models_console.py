"""Real models in the console: review mode, LLM failures, switching, usage and cost.

Every model here is the real `openai` client talking to the local
OpenAI-compatible test server on 127.0.0.1; the game is the toy world's (put-01's twin), node code
in-process (tests/console/page.py).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from agent.runtime import events as ev
from agent.runtime.tree import NodeStatus
from agent.sessions.header import JournalHeader
from agent.sessions.journal import JournalWriter
from mockllm.openai_server import OpenAICompatibleServer, script_responder, write_profiles
from recode_tui.setup.build import DEMO_SCRIPT
from recode_tui.console.screens.llm_picker import LLMPicker
from recode_tui.console.widgets.node_detail import NodeDetail
from recode_tui.console.widgets.status_bar import short_label
from textual.widgets import Input

from recode_tui.console.run.run_state import RunState

from .helpers import WIDE, next_stop
from .page import TOY_GAME, ConsolePage, alfworld_app, filled, toy_app


@pytest.fixture(autouse=True)
def toy(toy_env):
    return toy_env

PRICE_IN, PRICE_OUT = 2.0, 8.0  # USD per million tokens, set in the profiles file

# toy:vase-1 (as put-01): "put a vase in sidetable."; the vase is on diningtable 1.
GOOD = (
    "<think>The vase is on the dining table.</think>\n<execute>\n"
    'run("go to diningtable 1")\nrun("take vase 1 from diningtable 1")\n'
    'run("go to sidetable 1")\nrun("put vase 1 in/on sidetable 1")\n</execute>\n'
)
WANDER = '<think>Look around first.</think>\n<execute>\nrun("go to garbagecan 1")\nfind_vase()\n</execute>\n'
TYPED = (
    'run("go to diningtable 1")\nrun("take vase 1 from diningtable 1")\n'
    'run("go to sidetable 1")\nrun("put vase 1 in/on sidetable 1")'
)


def profiles_file(tmp_path: Path, base_url: str, retries: int = 0) -> str:
    path = tmp_path / "profiles.yaml"
    return str(write_profiles(path, base_url, max_retries=retries, timeout=5, prices=(PRICE_IN, PRICE_OUT)))


def answers(*texts: str):
    """A responder giving `texts` in turn, then the last one again."""
    queue = list(texts)
    return lambda prompt: queue.pop(0) if len(queue) > 1 else queue[0]


def rendered(renderable) -> str:
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def journal_answers(folder: Path) -> list[dict]:
    lines = (folder / "journal.jsonl").read_text().splitlines()
    return [r for r in map(json.loads, lines) if r.get("type") == "answer"]


def review_app(tmp_path: Path, server: OpenAICompatibleServer):
    app = toy_app("profile:local", profiles=profiles_file(tmp_path, server.base_url), review=True, breakpoints=[])
    app.debug_screen.agent.host.observers.append(JournalWriter(tmp_path / "session", JournalHeader(game=TOY_GAME)))
    return app


async def proposal_shown(page: ConsolePage, round_: int = 1) -> None:
    """The model's proposal (of review round `round_`) on show in the open editor."""
    await page.reached(RunState.REVIEWING)
    control = page.screen.llm_control
    assert control.reviewing is not None and control.reviewing.round == round_ and page.screen.editor.is_open


async def run_to_the_end(page: ConsolePage) -> None:
    await page.reached(RunState.DONE)
    assert page.agent.host.done and page.finished.success, page.finished.reason


async def test_review_accept_applies_the_proposal_as_is(tmp_path: Path) -> None:
    with OpenAICompatibleServer(answers(GOOD)) as server:
        app = review_app(tmp_path, server)
        async with ConsolePage.open(app) as page:
            assert "LLM review:profile:local" in page.status()
            await page.press("c")
            await proposal_shown(page)
            assert page.editor_text == GOOD and page.screen.review_bar.display
            assert page.state == "reviewing"
            assert not page.agent.tree.root.children  # nothing applied before the decision
            await page.press("ctrl+s")
            await run_to_the_end(page)
    root = page.agent.tree.root
    assert root.llm_calls[-1].source == "model" and root.llm_calls[-1].answer == GOOD
    [record] = journal_answers(tmp_path / "session")
    assert record["source"] == "model" and record["answer"] == GOOD and record["proposed"] == GOOD


async def test_review_edit_then_accept_records_both_texts(tmp_path: Path) -> None:
    with OpenAICompatibleServer(answers(GOOD)) as server:
        app = review_app(tmp_path, server)
        async with ConsolePage.open(app) as page:
            await page.press("c")
            await proposal_shown(page)
            assert page.app.focused is not page.screen.editor.editor  # a proposal never takes the focus
            await page.press("e")
            page.screen.editor.editor.cursor_location = (0, len("<think>"))
            await page.type("Checked by a person. ")
            await page.press("ctrl+s")
            await run_to_the_end(page)
    edited = GOOD.replace("<think>", "<think>Checked by a person. ", 1)
    root = page.agent.tree.root
    assert root.thought == "Checked by a person. The vase is on the dining table."
    [record] = journal_answers(tmp_path / "session")
    assert record["source"] == "model+edited"
    assert record["answer"] == edited and record["proposed"] == GOOD


async def test_review_regenerate_asks_the_model_again_and_counts_both_calls(tmp_path: Path) -> None:
    with OpenAICompatibleServer(answers(WANDER, GOOD)) as server:
        app = review_app(tmp_path, server)
        async with ConsolePage.open(app) as page:
            await page.press("c")
            await proposal_shown(page)
            assert page.editor_text == WANDER
            await page.press("ctrl+g")
            await proposal_shown(page, round_=2)
            assert page.editor_text == GOOD
            assert "round 2" in str(page.screen.query_one("#review-info").render())
            await page.press("ctrl+s")
            await run_to_the_end(page)
    assert len(server.calls) == 2
    [record] = journal_answers(tmp_path / "session")  # one decision, one record
    assert record["source"] == "model" and record["answer"] == GOOD and record["proposed"] == GOOD
    assert record["input_tokens"] == sum(c.prompt_tokens for c in server.calls)
    assert record["output_tokens"] == sum(c.completion_tokens for c in server.calls)


async def test_review_reject_then_type_your_own(tmp_path: Path) -> None:
    with OpenAICompatibleServer(answers(WANDER)) as server:
        app = review_app(tmp_path, server)
        async with ConsolePage.open(app) as page:
            await page.press("c")
            await proposal_shown(page)
            await page.press("ctrl+o")
            assert "<execute>\n\n</execute>" in page.editor_text  # the skeleton
            assert "rejected" in str(page.screen.query_one("#review-info").render())
            await page.put_answer(filled(page.editor_text, TYPED))  # pasted: typing is test_pilot's subject
            await page.press("ctrl+s")
            await run_to_the_end(page)
    [record] = journal_answers(tmp_path / "session")
    assert record["source"] == "human" and record["proposed"] == WANDER
    assert TYPED in record["answer"] and "garbagecan" not in record["answer"]
    assert page.agent.tree.root.llm_calls[-1].proposed == WANDER


async def test_dead_server_pauses_the_run_and_a_scripted_llm_takes_over(tmp_path: Path) -> None:
    with OpenAICompatibleServer(lambda prompt: "") as server:
        url = server.base_url  # stopped on leaving the block: nothing listens there
    script = tmp_path / "plan.yaml"
    script.write_text("answers:\n  - stub: 'solve(instruction, observation)'\n    answer: |\n"
                      + "".join(f"      {line}\n" for line in GOOD.splitlines()))
    app = toy_app("profile:local", profiles=profiles_file(tmp_path, url), breakpoints=[])
    async with ConsolePage.open(app, size=WIDE) as page:  # wide: the status line holds the whole failure
        await page.command("c")
        status = page.status()
        assert isinstance(page.last_event, ev.LLMFailed)
        assert "cannot connect to http://127.0.0.1:" in status and "is the server running?" in status
        assert "c retry · L switch LLM · t type the answer" in status
        assert page.state == "paused" and not page.agent.host.done
        assert len(page.agent.tree) == 1 and page.agent.tree.root.status is NodeStatus.AWAITING_LLM
        await page.command("c")  # retry: same failure, the console stays up
        assert page.last_event.attempt == 2
        await page.press("L")
        assert isinstance(page.app.screen, LLMPicker)
        assert "profile:local" in [o.id for o in page.app.screen.query_one("#llm-choices").options]
        page.app.screen.query_one(Input).focus()
        page.app.screen.query_one(Input).value = f"scripted:{script}"  # pasted: typing is test_pilot's subject
        await page.press("enter")
        assert page.agent.host.llm.name.startswith("scripted:")  # switched as the picker closed
        assert f"LLM {short_label(f'scripted:{script}')}" in page.status()
        await page.command("c")
        assert page.agent.host.finished is not None and page.agent.host.finished.success


async def test_server_errors_pause_the_run_and_the_person_types_the_answer(tmp_path: Path) -> None:
    with OpenAICompatibleServer(answers(GOOD)) as server:
        server.inject("500")
        app = toy_app("profile:local", profiles=profiles_file(tmp_path, server.base_url), breakpoints=[])
        async with ConsolePage.open(app, size=WIDE) as page:  # wide: the status line holds the whole failure
            await page.command("c")
            assert "answered HTTP 500" in page.status()
            stop = next_stop(page.app)
            await page.press("t")  # type this one; the profile answers again afterwards
            assert page.screen.editor.is_open
            assert page.app.focused is page.screen.editor.editor and page.state == "awaiting expansion"
            status = page.status()
            assert "LLM human" in status and "then profile:local answers again" in status
            assert page.screen.pending_prompt is not None and "solve(instruction, observation)" in page.screen.pending_prompt[1]
            assert not stop.done()
            await page.put_answer(filled(page.editor_text, TYPED))
            await page.command("ctrl+s")
            assert page.agent.host.llm.name == "profile:local"
            assert page.agent.tree.root.llm_calls[-1].source == "human"
            await page.command("c")
            assert page.agent.host.finished.success
        assert len(server.calls) == 1  # only the failure: the typed answer cost nothing


async def test_status_line_and_node_detail_show_tokens_and_cost_from_the_price_table(tmp_path: Path) -> None:
    with OpenAICompatibleServer(script_responder(str(DEMO_SCRIPT))) as server:
        app = toy_app("profile:local", profiles=profiles_file(tmp_path, server.base_url), breakpoints=[])
        async with ConsolePage.open(app, size=WIDE) as page:  # wide: the status line shows tokens
            await page.command("c")
            assert page.agent.host.finished.success
            served = [c for c in server.calls if c.status == 200]
            tokens_in = sum(c.prompt_tokens for c in served)
            tokens_out = sum(c.completion_tokens for c in served)
            cost = (tokens_in * PRICE_IN + tokens_out * PRICE_OUT) / 1_000_000
            status = page.status()
            assert f"LLM calls {len(served)}" in status and f"tokens {tokens_in}+{tokens_out}" in status
            assert f"${cost:.4f}" in status and cost > 0
            # The root's own answer, in its detail view.
            await page.press("home")
            first = served[0]
            own = (first.prompt_tokens * PRICE_IN + first.completion_tokens * PRICE_OUT) / 1_000_000
            detail = rendered(page.screen.query_one(NodeDetail).content)
            assert f"#1 expand by model: tokens {first.prompt_tokens}+{first.completion_tokens} · ${own:.4f}" in detail


@pytest.mark.heavy  # the demo model plays ALFWorld's bundled games only (node code in-process)
@pytest.mark.parametrize("spec", ["human", "demo"])
async def test_switching_at_a_stub_opens_or_closes_the_editor(spec: str) -> None:
    start = "demo" if spec == "human" else "human"
    app = alfworld_app(start)  # every-stub breakpoint on
    async with ConsolePage.open(app) as page:
        await page.command("c")
        assert isinstance(page.last_event, ev.LLMRequested)
        await page.press("escape", "L")  # out of the editor first, when it has the keys
        picker = page.app.screen
        assert isinstance(picker, LLMPicker)
        index = [o.id for o in picker.query_one("#llm-choices").options].index(spec)
        picker.query_one("#llm-choices").highlighted = index
        await page.press("enter")
        assert page.agent.host.llm.name == spec  # "human" or "demo": short names for the status line
        assert page.screen.editor.is_open is (spec == "human")
        assert page.screen.debugger.awaiting_human is (spec == "human")
