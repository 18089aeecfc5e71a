"""The prompt workspace driven like a person: edit, watch the prompt and counts, re-expand, choose.

On the toy world (tests/toyenv: "put a vase in sidetable.", the vase on diningtable 1) with node code
in-process (tests/console/page.py), ReCode's prompt set with the toy world's examples in it: the
workspace is the console's and ReCode's. The second model is the real `openai` client talking to the
local OpenAI-compatible test server on 127.0.0.1.
"""

from __future__ import annotations

import shutil
import tempfile
from contextlib import asynccontextmanager
from pathlib import Path
from typing import AsyncIterator

import pytest
from agent.runtime.prompt_parts import DraftPromptSet
from agent.runtime import events as ev
from agent.runtime.prompts import DEFAULT_PROMPTS, PromptSet
from mockllm.openai_server import OpenAICompatibleServer
from mockllm.scripted import ScriptedLLM, ScriptEntry
from recode_tui.console.app import build_app
from recode_tui.console.workspace.compare import CompareScreen
from recode_tui.console.workspace.screen import PromptWorkspace
from textual.widgets import Input, TextArea

from .helpers import armed, drawn, next_stop, notifications, published, type_text
from .page import ConsolePage, at, shared_consoles, toy_app

PUT = "alfworld/examples/put.txt"  # the file the workspace opens on put-01 (tests of other files)
TOY_PUT = "toy/examples/put.txt"  # the one it opens on toy:vase-1
SOLVE = "solve(instruction, observation)"
# put-01 and toy:vase-1: "put a vase in sidetable."; the vase is on diningtable 1.
DIRECT = (
    "<think>The vase is on the dining table; four actions do it.</think>\n<execute>\n"
    'run("go to diningtable 1")\nrun("take vase 1 from diningtable 1")\n'
    'run("go to sidetable 1")\nrun("move vase 1 to sidetable 1")\n</execute>\n'
)
SCRIPTED = (
    "<think>Find the vase, then put it down.</think>\n<execute>\n"
    'run("go to diningtable 1")\nvase = find_vase(instruction)\n</execute>\n'
)
NEW_EXAMPLE = (
    "\n---\nFunction: done = put_down(item)\nVariables:\n- item (str): vase 1\nAnswer:\n"
    "<think>Walk to the side table and put the vase there.</think>\n<execute>\n"
    'run("go to sidetable 1")\nobs = run(f"move {item} to sidetable 1")\ndone = "You move" in obs\n</execute>\n'
)
BAD_EXAMPLE = (
    "\n---\nFunction: done = put_down(item)\nVariables:\n- item (str): vase 1\nAnswer:\n"
    "<think>Use the place found before.</think>\n<execute>\nobs = run(f\"move {item} to {place}\")\n"
    "done = True\n</execute>\n"
)


def scripted() -> ScriptedLLM:
    return ScriptedLLM([ScriptEntry(SCRIPTED, stub=SOLVE)], name="scripted")


def profiles_file(tmp_path: Path, base_url: str) -> str:
    path = tmp_path / "profiles.yaml"
    path.write_text(
        f"models:\n  local:\n    base_url: {base_url}\n    model: local-test-model\n"
        "    api_key: test\n    max_retries: 0\n    timeout: 5\n"
    )
    return str(path)


@pytest.fixture
def toy_prompts(tmp_path: Path, toy_env) -> Path:
    """ReCode's bundled prompt set with the toy world's examples in it: the workspace lists and edits
    them as it does ALFWorld's."""
    return prompts_with_the_toy_examples(tmp_path, toy_env)


def prompts_with_the_toy_examples(folder: Path, toyenv) -> Path:
    root = folder / "toy-prompts"
    shutil.copytree(DEFAULT_PROMPTS, root)
    shutil.copytree(toyenv.HERE / "examples", root / "toy" / "examples")
    return root


@pytest.fixture(scope="module", autouse=True)
def toy(toy_module):
    return toy_module


@pytest.fixture
def toy_env(toy):
    """The toy world stays registered for the whole module: its shared console (below) runs throughout."""
    return toy


@asynccontextmanager
async def awaiting_the_root() -> AsyncIterator[ConsolePage]:
    """The scripted model's run at its first expansion (the every-stub breakpoint), on its own prompt set."""
    from tests import toyenv

    with tempfile.TemporaryDirectory() as folder:
        async with ConsolePage.open(workspace_app(prompts_with_the_toy_examples(Path(folder), toyenv))) as page:
            await page.step("continue")
            yield page


# For the tests marked at(): each opens the workspace on the awaited stub and closes it (`workspace_on`);
# what they edit is the workspace's draft, never the run's prompt set, and unsaved edits are kept under
# each test's own sessions folder.
page = shared_consoles({"awaiting the root": awaiting_the_root})


@asynccontextmanager
async def workspace_on(page: ConsolePage) -> AsyncIterator[PromptWorkspace]:
    """W on the shared console; esc at the end (however the test ended), back to the run as it was."""
    ws = await open_workspace_page(page)
    try:
        yield ws
    finally:
        if page.app.screen is not page.screen:
            await page.opened("escape")


def workspace_app(prompts: Path, llm=None, **options):
    """The console on toy:vase-1 with `prompts`, the scripted model unless `llm`."""
    return toy_app(llm or scripted(), prompts=prompts, **options)


async def open_workspace_page(page: ConsolePage) -> PromptWorkspace:
    """W: the prompt workspace on the selected (or awaited) stub."""
    ws = await page.opened("W")
    assert isinstance(ws, PromptWorkspace)
    return ws


async def edit(pilot, ws: PromptWorkspace, text: str) -> None:
    """Append `text` to the open file and wait for the debounced re-render."""
    rendered = armed(pilot.app, ws.prompt_rendered)
    editor = ws.query_one("#ws-editor", TextArea)
    editor.insert(text, editor.document.end)
    await published(rendered, "the re-render")
    await drawn(pilot.app)


def rendered(ws: PromptWorkspace) -> str:
    return ws.query_one("#ws-rendered", TextArea).text


@at("awaiting the root")
async def test_editing_an_example_rerenders_the_prompt_and_moves_the_count(page: ConsolePage) -> None:
    pilot = page.pilot
    async with workspace_on(page) as ws:  # solve awaits its expansion
        assert ws.target.node_id == "n0" and ws.target.awaiting
        assert ws.current_file == TOY_PUT  # the task type's examples file is open
        assert rendered(ws) == page.screen.debugger.last_event.prompt  # exactly what the agent sent
        total = ws.counter.count(rendered(ws)).tokens
        # A person types in the editor: the prompt follows after a short quiet.
        ws.query_one("#ws-editor", TextArea).move_cursor((0, 0))
        again = armed(pilot.app, ws.prompt_rendered)
        await type_text(pilot, "# vases\n")
        await published(again, "re-render after typing")
        assert "# Examples\n\n# vases\nFunction: solve" in rendered(ws)
        await edit(pilot, ws, NEW_EXAMPLE)
        assert "Function: done = put_down(item)" in rendered(ws)
        assert ws.total.tokens == ws.counter.count(rendered(ws)).tokens > total
        assert ws.total.label().startswith("≈ ") and ws.total.label().endswith("tokens (estimate: chars/4)")
        # The typed comment line breaks the first example's layout; the new example is fine.
        assert [c.ok for c in ws.checks[TOY_PUT]] == [False, True]
        assert "starts with 'Function: '" in ws.checks[TOY_PUT][0].problems[0]
        header = ws.query_one("#ws-header").render()
        assert "edited →" in str(header)
        # Another file: the action list, also part of the prompt.
        ws.select_file("toy/actions.txt")
        await drawn(pilot.app)
        await edit(pilot, ws, "- dance: never useful.\n")
        assert "- dance: never useful." in rendered(ws)
    assert PromptSet(page.agent.prompts.root).text(TOY_PUT).count("Function: ") == 1  # nothing written to disk
    assert not isinstance(page.agent.prompts, DraftPromptSet)  # closed without a choice: the run's set as it was


@at("awaiting the root")
async def test_an_invalid_example_is_flagged_next_to_its_file(page: ConsolePage) -> None:
    pilot = page.pilot
    async with workspace_on(page) as ws:
        assert all(c.ok for c in ws.checks[TOY_PUT])
        await edit(pilot, ws, BAD_EXAMPLE)
        bad = [c for c in ws.checks[TOY_PUT] if not c.ok]
        assert len(bad) == 1 and bad[0].function == "done = put_down(item)"
        assert "place" in bad[0].problems[0] and "neither given nor assigned" in bad[0].problems[0]
        files = ws.query_one("#ws-files")
        label = str(files.get_option(TOY_PUT).prompt)
        assert label.startswith("✗ put.txt") and "1 of 2 examples flagged" in label
        assert "line 1: place" in str(ws.query_one("#ws-checks").render())
        # A `def` is refused the same way a live answer is.
        await edit(pilot, ws, BAD_EXAMPLE.replace("done = True", "def f():\n    pass\ndone = True"))
        assert any("`def f` is not allowed" in p for c in ws.checks[TOY_PUT] for p in c.problems)


@at("awaiting the root")
async def test_the_run_keys_do_not_step_the_agent_under_the_workspace(page: ConsolePage) -> None:
    app, pilot = page.app, page.pilot
    async with workspace_on(page) as ws:
        ws.query_one("#ws-files").focus()
        stop, events = next_stop(app), page.screen.debugger.events_seen
        await page.press("c", "n")
        # each key was the workspace's, which says how to step the run instead
        assert any(n.message == "Close the workspace (esc) to step the run." for n in notifications(app))
        assert app.screen is ws and not stop.done() and page.screen.debugger.events_seen == events
        assert not page.screen.driver.busy


async def test_reexpand_with_scripted_and_local_server_then_continue(tmp_path: Path, toy_prompts: Path) -> None:
    with OpenAICompatibleServer(lambda prompt: DIRECT) as server:
        app = workspace_app(toy_prompts, profiles=profiles_file(tmp_path, server.base_url))
        async with ConsolePage.open(app) as page:
            await page.step("continue")
            ws = await open_workspace_page(page)
            await edit(page.pilot, ws, NEW_EXAMPLE)
            ws.query_one("#ws-llms", Input).value = "scripted, profile:local"
            cmp = await page.opened("ctrl+r")
            assert isinstance(cmp, CompareScreen)
            assert [c.candidate.source for c in (cmp.column(1), cmp.column(2))] == ["scripted", "profile:local"]
            assert cmp.column(1).text == SCRIPTED and cmp.column(2).text == DIRECT
            assert "✓ 4 child node(s)" in str(cmp.query_one("#cmp-title-2").render())  # the agent's own line
            # The server got the edited prompt.
            assert "Function: done = put_down(item)" in server.calls[-1].prompt
            assert "no recorded answer" in str(cmp.query_one("#cmp-diff-1").render())  # n0 not expanded yet
            await page.command("f2")  # continue with the local model's answer
            assert app.screen is app.screen_stack[0]
            agent = page.screen.agent
            assert isinstance(agent.prompts, DraftPromptSet)
            assert "put_down" in agent.prompts.text(TOY_PUT)
            assert isinstance(page.screen.debugger.last_event, ev.LLMAnswered)
            root = agent.tree.root
            assert root.thought.startswith("The vase is on the dining table")
            assert root.llm_calls[-1].source == "model" and len(root.children) == 4
            await page.step("continue")
            assert agent.host.finished is not None and agent.host.finished.success


async def test_compare_against_the_recorded_answer_and_refuse_a_stale_stub(toy_prompts: Path) -> None:
    """A stub expanded earlier: the diff is against its recorded answer; continuing needs a fork."""
    async with ConsolePage.open(workspace_app(toy_prompts)) as page:
        app = page.app
        await page.step("continue")
        await page.step("next")  # the scripted answer is taken
        await page.select("n0")
        ws = await open_workspace_page(page)
        assert ws.target.node_id == "n0" and ws.target.recorded_answer == SCRIPTED
        assert ws.target.variables_from == "recorded prompt"
        ws.query_one("#ws-llms", Input).value = "human"
        cmp = await page.opened("ctrl+r")
        assert isinstance(cmp, CompareScreen)
        person = cmp.query_one("#cmp-text-1", TextArea)
        column = cmp.column(1)
        assert column is not None
        judged = armed(app, column.verdict_shown)
        person.load_text(DIRECT)
        await published(judged, "the verdict on the typed answer")  # after a short quiet, with its diff
        diff = str(cmp.query_one("#cmp-diff-1").render())
        assert '+run("move vase 1 to sidetable 1")' in diff
        assert "-vase = find_vase(instruction)" in diff
        await page.opened("f1")
        assert app.screen is app.screen_stack[0]
        assert not isinstance(page.screen.agent.prompts, DraftPromptSet)  # nothing applied
        assert page.screen.agent.tree.root.llm_calls[-1].answer == SCRIPTED


@at("awaiting the root")
async def test_save_writes_a_prompt_set_and_never_the_one_it_started_from(tmp_path: Path, monkeypatch,
                                                                           page: ConsolePage) -> None:
    monkeypatch.setenv("RECODE_TUI_PROMPTS", str(tmp_path / "prompts"))
    started_from = page.agent.prompts.root
    async with workspace_on(page) as ws:
        await edit(page.pilot, ws, NEW_EXAMPLE)
        draft_hash = ws.draft.content_hash()
        ws.query_one("#ws-name", Input).value = "vases"
        await page.press("ctrl+o")
        saved = tmp_path / "prompts" / "vases"
        assert "put_down" in (saved / TOY_PUT).read_text()
        assert PromptSet(saved).content_hash() == draft_hash
        assert "put_down" not in (started_from / TOY_PUT).read_text()
        assert ws.base_hash == draft_hash and "(unedited)" in str(ws.query_one("#ws-header").render())


@at("awaiting the root")
async def test_saving_a_set_with_flagged_examples_says_how_many_and_which(monkeypatch, tmp_path: Path,
                                                                       page: ConsolePage) -> None:
    monkeypatch.setenv("RECODE_TUI_PROMPTS", str(tmp_path / "prompts"))
    async with workspace_on(page) as ws:
        await edit(page.pilot, ws, BAD_EXAMPLE)
        ws.query_one("#ws-name", Input).value = "flagged"
        await page.press("ctrl+o")
        assert (tmp_path / "prompts" / "flagged" / TOY_PUT).is_file()  # saved all the same
        note = next(n for n in notifications(page.app) if f"saved to {tmp_path / 'prompts' / 'flagged'}" in n.message)
        assert note.severity == "warning"
        assert "1 example flagged: put.txt #2" in note.message and "done = put_down(item)" in note.message
        assert "place" in note.message


async def test_choosing_an_answer_for_an_earlier_stub_forks_the_session_and_continues(tmp_path: Path,
                                                                                      toy_prompts: Path) -> None:
    """Re-expanding a stub that was expanded earlier: the choice continues in a fork."""
    from agent.sessions.journal_read import read_journal

    async with ConsolePage.open(workspace_app(toy_prompts, sessions_dir=tmp_path / "sessions")) as page:
        app = page.app
        await page.step("continue")
        await page.step("next")  # the scripted answer is taken and journaled
        old = app.session_control.session.folder
        await page.select("n0")
        ws = await open_workspace_page(page)
        await edit(page.pilot, ws, NEW_EXAMPLE)
        ws.query_one("#ws-llms", Input).value = "human"
        cmp = await page.opened("ctrl+r")
        cmp.query_one("#cmp-text-1", TextArea).load_text(DIRECT)
        await drawn(app)
        await page.replaced("f1")
        fork = app.session_control.session.folder
        assert fork != old and app.screen is app.screen_stack[0]
        assert (read_journal(fork).header.parent.session, read_journal(fork).header.parent.records,
                read_journal(fork).header.parent.at) == (old.name, 0, "fork n0")
        agent = page.screen.agent
        assert isinstance(agent.prompts, DraftPromptSet) and "put_down" in agent.prompts.text(TOY_PUT)
        await page.step("continue")
        assert agent.host.finished is not None and agent.host.finished.success
        assert agent.tree.root.llm_calls[-1].answer == DIRECT
        fork_answers = [r["answer"] for r in read_journal(fork).records if r["type"] == "answer"]
        old_answers = [r["answer"] for r in read_journal(old).records if r["type"] == "answer"]
        assert fork_answers == [DIRECT] and old_answers == [SCRIPTED]  # both branches survive
