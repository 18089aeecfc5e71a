"""The prompt workspace driven like a person: edit, watch the prompt and counts, re-expand, choose.

The second model is the real `openai` client talking to the local
OpenAI-compatible test server on 127.0.0.1.
"""

from __future__ import annotations

from pathlib import Path

from agent.agents.recode.authoring import DraftPromptSet
from agent.runtime import events as ev
from agent.runtime.prompts import DEFAULT_PROMPTS, PromptSet
from mockllm.openai_server import OpenAICompatibleServer
from mockllm.scripted import ScriptedLLM, ScriptEntry
from recode_tui.console.app import build_app
from recode_tui.console.workspace.compare import CompareScreen
from recode_tui.console.workspace.screen import PromptWorkspace
from textual.widgets import Input, TextArea

from .helpers import SIZE, armed, command, next_stop, published, select_node, started, type_text, wait_for
from tests.settings import console_options

PUT = "alfworld/examples/put.txt"
SOLVE = "solve(instruction, observation)"
# put-01: "put a vase in sidetable."; the vase is on diningtable 1.
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


async def open_workspace(pilot, app) -> PromptWorkspace:
    await pilot.press("W")
    await wait_for(pilot, lambda: isinstance(app.screen, PromptWorkspace), what="the prompt workspace")
    await pilot.pause()
    return app.screen


async def edit(pilot, ws: PromptWorkspace, text: str) -> None:
    """Append `text` to the open file and wait for the debounced re-render."""
    rendered = armed(pilot.app, ws.prompt_rendered)
    editor = ws.query_one("#ws-editor", TextArea)
    editor.insert(text, editor.document.end)
    await published(rendered, "the re-render")
    await pilot.pause()


def rendered(ws: PromptWorkspace) -> str:
    return ws.query_one("#ws-rendered", TextArea).text


async def test_editing_an_example_rerenders_the_prompt_and_moves_the_count() -> None:
    app = build_app(console_options(), scripted())
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")  # the every-stub breakpoint: solve awaits its expansion
        ws = await open_workspace(pilot, app)
        assert ws.target.node_id == "n0" and ws.target.awaiting
        assert ws.current_file == PUT  # the task type's examples file is open
        assert rendered(ws) == app.debug_screen.debugger.last_event.prompt  # exactly what the agent sent
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
        assert [c.ok for c in ws.checks[PUT]] == [False, True, True, True]
        assert "starts with 'Function: '" in ws.checks[PUT][0].problems[0]
        header = ws.query_one("#ws-header").render()
        assert "edited →" in str(header)
        # Another file: the action list, also part of the prompt.
        ws.select_file("alfworld/actions.txt")
        await pilot.pause()
        await edit(pilot, ws, "- dance: never useful.\n")
        assert "- dance: never useful." in rendered(ws)
        assert PromptSet(DEFAULT_PROMPTS).text(PUT).count("---") == 2  # nothing written to disk


async def test_an_invalid_example_is_flagged_next_to_its_file() -> None:
    app = build_app(console_options(), scripted())
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")
        ws = await open_workspace(pilot, app)
        assert all(c.ok for c in ws.checks[PUT])
        await edit(pilot, ws, BAD_EXAMPLE)
        bad = [c for c in ws.checks[PUT] if not c.ok]
        assert len(bad) == 1 and bad[0].function == "done = put_down(item)"
        assert "place" in bad[0].problems[0] and "neither given nor assigned" in bad[0].problems[0]
        files = ws.query_one("#ws-files")
        label = str(files.get_option(PUT).prompt)
        assert label.startswith("✗ put.txt") and "1 of 4 examples flagged" in label
        assert "line 1: place" in str(ws.query_one("#ws-checks").render())
        # The run keys do not step the agent under the workspace.
        ws.query_one("#ws-files").focus()
        stop, events = next_stop(app), app.debug_screen.debugger.events_seen
        await pilot.press("c", "n")
        await pilot.pause(0.1)
        assert app.screen is ws and not stop.done() and app.debug_screen.debugger.events_seen == events
        ws.query_one("#ws-editor").focus()
        # A `def` is refused the same way a live answer is.
        await edit(pilot, ws, BAD_EXAMPLE.replace("done = True", "def f():\n    pass\ndone = True"))
        assert any("`def f` is not allowed" in p for c in ws.checks[PUT] for p in c.problems)


async def test_reexpand_with_scripted_and_local_server_then_continue(tmp_path: Path) -> None:
    with OpenAICompatibleServer(lambda prompt: DIRECT) as server:
        app = build_app(console_options(profiles=profiles_file(tmp_path, server.base_url)), scripted())
        async with app.run_test(size=SIZE) as pilot:
            await started(pilot, app)
            await command(pilot, app, "c")
            ws = await open_workspace(pilot, app)
            await edit(pilot, ws, NEW_EXAMPLE)
            ws.query_one("#ws-llms", Input).value = "scripted, profile:local"
            await pilot.press("ctrl+r")
            await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen), what="the comparison")
            await pilot.pause()
            cmp = app.screen
            assert [c.candidate.source for c in (cmp.column(1), cmp.column(2))] == ["scripted", "profile:local"]
            assert cmp.column(1).text == SCRIPTED and cmp.column(2).text == DIRECT
            assert "✓ 4 child node(s)" in str(cmp.query_one("#cmp-title-2").render())  # the agent's own line
            # The server got the edited prompt.
            assert "Function: done = put_down(item)" in server.calls[-1].prompt
            assert "no recorded answer" in str(cmp.query_one("#cmp-diff-1").render())  # n0 not expanded yet
            stop = next_stop(app)
            await pilot.press("f2")  # continue with the local model's answer
            await wait_for(pilot, lambda: stop.done() and not app.debug_screen.driver.busy, what="the run to go on")
            assert app.screen is app.screen_stack[0]
            assert isinstance(app.debug_screen.agent.prompts, DraftPromptSet)
            assert "put_down" in app.debug_screen.agent.prompts.text(PUT)
            assert isinstance(app.debug_screen.debugger.last_event, ev.LLMAnswered)
            root = app.debug_screen.agent.tree.root
            assert root.thought.startswith("The vase is on the dining table")
            assert root.llm_calls[-1].source == "model" and len(root.children) == 4
            await command(pilot, app, "c")
            assert app.debug_screen.agent.finished is not None and app.debug_screen.agent.finished.success


async def test_compare_against_the_recorded_answer_and_refuse_a_stale_stub(tmp_path: Path) -> None:
    """A stub expanded earlier: the diff is against its recorded answer; continuing needs a fork."""
    app = build_app(console_options(), scripted())
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")
        await command(pilot, app, "n")  # the scripted answer is taken
        app.debug_screen.tree_view.select_node(app.debug_screen.tree_view.item("n0"))
        await select_node(pilot, app, "n0")
        ws = await open_workspace(pilot, app)
        assert ws.target.node_id == "n0" and ws.target.recorded_answer == SCRIPTED
        assert ws.target.variables_from == "recorded prompt"
        ws.query_one("#ws-llms", Input).value = "human"
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen), what="the comparison")
        cmp = app.screen
        person = cmp.query_one("#cmp-text-1", TextArea)
        person.load_text(DIRECT)
        await wait_for(
            pilot,
            lambda: '+run("move vase 1 to sidetable 1")' in str(cmp.query_one("#cmp-diff-1").render()),
            what="the diff of the typed answer",
        )
        diff = str(cmp.query_one("#cmp-diff-1").render())
        assert "-vase = find_vase(instruction)" in diff
        await pilot.press("f1")
        await wait_for(pilot, lambda: app.screen is app.screen_stack[0], what="back to the console")
        await pilot.pause()
        assert not isinstance(app.debug_screen.agent.prompts, DraftPromptSet)  # nothing applied
        assert app.debug_screen.agent.tree.root.llm_calls[-1].answer == SCRIPTED


async def test_save_writes_a_prompt_set_and_never_the_bundled_one(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("RECODE_TUI_PROMPTS", str(tmp_path / "prompts"))
    app = build_app(console_options(), scripted())
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")
        ws = await open_workspace(pilot, app)
        await edit(pilot, ws, NEW_EXAMPLE)
        draft_hash = ws.draft.content_hash()
        ws.query_one("#ws-name", Input).value = "vases"
        await pilot.press("ctrl+o")
        await pilot.pause()
        saved = tmp_path / "prompts" / "vases"
        assert "put_down" in (saved / PUT).read_text()
        assert PromptSet(saved).content_hash() == draft_hash
        assert "put_down" not in (DEFAULT_PROMPTS / PUT).read_text()
        assert ws.base_hash == draft_hash and "(unedited)" in str(ws.query_one("#ws-header").render())


async def test_choosing_an_answer_for_an_earlier_stub_forks_the_session_and_continues(tmp_path: Path) -> None:
    """Re-expanding a stub that was expanded earlier: the choice continues in a fork."""
    from agent.sessions.journal import read_journal

    app = build_app(console_options(sessions_dir=tmp_path), scripted())
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")
        await command(pilot, app, "n")  # the scripted answer is taken and journaled
        old = app.session_control.session.folder
        app.debug_screen.tree_view.select_node(app.debug_screen.tree_view.item("n0"))
        await select_node(pilot, app, "n0")
        ws = await open_workspace(pilot, app)
        await edit(pilot, ws, NEW_EXAMPLE)
        ws.query_one("#ws-llms", Input).value = "human"
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen), what="the comparison")
        app.screen.query_one("#cmp-text-1", TextArea).load_text(DIRECT)
        await pilot.pause(0.3)
        await pilot.press("f1")
        await wait_for(
            pilot,
            lambda: app.session_control.session.folder != old and not app.session_control.busy
            and app.screen is app.screen_stack[0],
            what="the fork",
        )
        fork = app.session_control.session.folder
        assert (read_journal(fork).header.parent.session, read_journal(fork).header.parent.records,
                read_journal(fork).header.parent.at) == (old.name, 0, "fork n0")
        assert isinstance(app.debug_screen.agent.prompts, DraftPromptSet) and "put_down" in app.debug_screen.agent.prompts.text(PUT)
        await command(pilot, app, "c")
        assert app.debug_screen.agent.finished is not None and app.debug_screen.agent.finished.success
        assert app.debug_screen.agent.tree.root.llm_calls[-1].answer == DIRECT
        fork_answers = [r["answer"] for r in read_journal(fork).records if r["type"] == "answer"]
        old_answers = [r["answer"] for r in read_journal(old).records if r["type"] == "answer"]
        assert fork_answers == [DIRECT] and old_answers == [SCRIPTED]  # both branches survive
