"""Sessions from the console: journal, rewind, fork, the sessions list, tree files, journal errors.

On the toy world (tests/toyenv: "put a vase in sidetable.", the vase on diningtable 1) with node code
in-process (tests/console/page.py): journals, branches and the sessions list are the console's.
`recorded_to_n2` journals vase-1 answered by hand up to n2 in-process, for the tests (here and in other
files) of what a person does from there in a console that resumes it.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from agent.runtime import events as ev
from agent.sessions.journal_read import read_journal
from recode_tui.console.screens.replay import ReplayScreen
from recode_tui.console.screens.sessions import SessionsScreen
from recode_tui.console.viewers.tree_file import TreeFileApp, load_tree_file, meta_line
from recode_tui.console.widgets.node_detail import NodeDetail
from tests.settings import in_process

from .helpers import SIZE, drawn, key_pressed, notifications, queues_drained
from .page import ConsolePage, toy_app

TAKE = 'run("go to diningtable 1")\nrun("take vase 1 from diningtable 1")\nobj = "vase 1"'


@pytest.fixture(autouse=True)
def toy(toy_env):
    return toy_env


def status(page: ConsolePage) -> str:
    return page.status()


N0 = "take_vase()\nplace_vase()"


def by_hand(code: str) -> str:
    """An answer as the console journals what a person typed in its editor (no thought)."""
    return f"<think>\n\n</think>\n<execute>\n{code}\n</execute>\n"


async def recorded_to_n2(sessions: Path) -> Path:
    """vase-1 by hand, journaled in-process into `sessions`: n0 splits the task in two, n1 takes the vase
    (each answer as a person's), and the run is left where n2 is asked, as a console closed there leaves
    it. Returns the session's folder, for a console to resume (`resume=`): it shows n2 awaiting an answer."""
    from agent.sessions.session import start_session
    from envs.registry import EpisodeRef
    from mockllm.scripted import ScriptedLLM, ScriptEntry
    from recode_tui.setup.build import make_agent
    from tests.settings import episode_named, run_settings

    person = ScriptedLLM([ScriptEntry(by_hand(N0), stub="solve(instruction, observation)"),
                          ScriptEntry(by_hand(TAKE), stub="take_vase()")], name="human", source="human")
    agent = make_agent(run_settings(), episode_named("toy:vase-1"), person, runner_maker=in_process)
    session = start_session(agent, sessions, EpisodeRef.parse("toy:vase-1"), "human")
    try:
        while not (isinstance(event := await agent.step(), ev.LLMRequested) and event.node_id == "n2"):
            assert not agent.host.done, f"the run ended before n2 was asked: {agent.host.finished}"
    finally:
        session.writer.close()
        await agent.close()
    return session.folder


async def test_rewind_makes_a_branch_and_keeps_the_old_session(tmp_path: Path) -> None:
    async with ConsolePage.open(toy_app(sessions_dir=tmp_path, resume=await recorded_to_n2(tmp_path))) as page:
        old = page.app.session_control.session.folder
        old_journal = (old / "journal.jsonl").read_text()
        await page.select("n1")
        await page.replaced("R")
        new = page.app.session_control.session.folder
        assert new.parent == old.parent and new != old
        header = read_journal(new).header
        assert header.parent.session == old.name and header.parent.at == "rewind n1"
        assert (old / "journal.jsonl").read_text() == old_journal  # the old branch is untouched
        # the console is just before n1 runs: n0's answer kept, n1's not
        last = page.screen.debugger.last_event
        assert isinstance(last, ev.NodeStarted) and last.node_id == "n1"
        assert page.screen.agent.env.steps == 0 and len(page.screen.agent.tree) == 3
        assert f"↳ session {new.name}" in status(page)
        await page.step("continue")
        assert page.screen.debugger.awaiting_human and page.screen.debugger.last_event.node_id == "n1"
        await page.answer('run("go to diningtable 1")\nobj = "vase 1"')
        answers = [r for r in read_journal(new).records if r["type"] == "answer"]
        assert [a["node_id"] for a in answers] == ["n0", "n1"] and answers[-1]["source"] == "human"
        assert "take vase" not in answers[-1]["answer"]
    assert len(read_journal(old).records) == len(old_journal.splitlines()) - 1  # header + records, unchanged


async def fork_n1(page: ConsolePage) -> tuple[Path, Path]:
    """At n2, fork at n1 (F), and return the old session's folder and the fork's, the
    fork on show."""
    assert page.awaiting_answer and page.last_event.node_id == "n2"
    old = page.app.session_control.session.folder
    await page.select("n1")
    await page.replaced("F")
    return old, page.app.session_control.session.folder


async def test_fork_opens_the_old_answer_and_keeps_it_in_the_old_branch(tmp_path: Path) -> None:
    async with ConsolePage.open(toy_app(sessions_dir=tmp_path, resume=await recorded_to_n2(tmp_path))) as page:
        old, fork = await fork_n1(page)
        assert read_journal(fork).header.parent.at == "fork n1"
        # the editor is open on n1 with the old answer to change
        assert page.screen.debugger.awaiting_human and page.screen.editor.node_id == "n1"
        assert page.app.focused is page.screen.editor.editor
        assert 'run("take vase 1 from diningtable 1")' in page.screen.editor.editor.text
        assert page.screen.agent.env.steps == 0
        await page.press("ctrl+r")  # back to the skeleton
        await page.answer('run("go to diningtable 1")\nrun("take vase 1 from diningtable 1")\nobj = "the vase"')
        fork_answers = [r for r in read_journal(fork).records if r["type"] == "answer"]
        assert fork_answers[-1]["node_id"] == "n1" and 'obj = "the vase"' in fork_answers[-1]["answer"]
        old_answers = [r for r in read_journal(old).records if r["type"] == "answer"]
        assert 'obj = "vase 1"' in old_answers[-1]["answer"]  # the original answer stays in its branch


async def forked_at_n1(folder: Path) -> Path:
    """A fork of the session in `folder` at n1's answer, made in-process as the console's F makes it (the
    branch beside it, the person's editor to answer n1 in); returns the fork's folder."""
    from agent.sessions.session import branch_session, fork_at_answer
    from envs.registry import make_env
    from mockllm.human import HumanLLM

    fork, _ = await branch_session(folder, fork_at_answer("n1"), HumanLLM(), make_env, folder.parent, "fork n1",
                                   runner_maker=in_process)
    fork.writer.close()
    await fork.agent.close()
    return fork.folder


async def test_both_branches_are_listed_and_enter_resumes_the_one_chosen(tmp_path: Path) -> None:
    old = await recorded_to_n2(tmp_path)
    fork = await forked_at_n1(old)  # the console's F is test_fork_opens_the_old_answer_and_keeps_it_in_the_old_branch's
    async with ConsolePage.open(toy_app(sessions_dir=tmp_path, resume=fork)) as page:
        assert page.app.session_control.session.folder == fork
        page.screen.tree_view.focus()  # out of the fork's open editor: S is the console's key again
        await page.press("S")
        screen = page.app.screen
        assert isinstance(screen, SessionsScreen)
        await page.work_done("sessions-list")
        assert screen.loaded
        rows = {row.session_id: row for row in screen.rows}
        assert set(rows) == {old.name, fork.name}
        assert rows[fork.name].parent == f"{old.name} at fork n1" and rows[old.name].parent == ""
        assert rows[old.name].game == "toy:vase-1" and rows[old.name].result == "unfinished"
        # enter on the original resumes it, with n2 awaiting as it was left
        table = screen.query_one("#sessions-table")
        table.move_cursor(row=[r.session_id for r in screen.rows].index(old.name))
        await page.replaced("enter")
        assert page.app.session_control.session.folder == old and "↻ session" in status(page)
        assert page.screen.debugger.awaiting_human and page.screen.debugger.last_event.node_id == "n2"


async def test_a_journal_write_failure_is_shown_and_the_run_goes_on(tmp_path: Path) -> None:
    async with ConsolePage.open(toy_app("gold", breakpoints=[], sessions_dir=tmp_path)) as page:
        control = page.app.session_control
        control.session.writer._fd = os.open("/dev/full", os.O_WRONLY)  # every write: ENOSPC
        await page.step("continue")
        assert page.screen.agent.host.finished is not None and page.screen.agent.host.finished.success  # the run went on
        assert "No space left on device" in control.error  # said at the stop, not a timer's tick later
        assert "✗ journal" in status(page)
        assert any("No space left on device" in n.message for n in notifications(page.app))


@pytest.fixture(scope="module")
def won_demo(tmp_path_factory, toy_module) -> tuple[Path, dict]:
    """vase-1 won by the gold model through the command line in-process (`recode-tui run`, then
    `recode-tui export --tree`), recorded once for the tests that read its journal or its exported tree:
    the session's folder and the tree document."""
    from recode_tui.commands.cli import main
    from tests.settings import node_code_in_process

    sessions = tmp_path_factory.mktemp("won-demo") / "sessions"
    tree = sessions.parent / "tree.json"
    with node_code_in_process():  # what the run records, not where its code ran, is what the tests read
        assert main(["run", "--game", "toy:vase-1", "--llm", "gold", "--quiet", "--sessions", str(sessions)]) == 0
    (folder,) = sessions.iterdir()
    assert main(["export", str(folder), "--tree", "-o", str(tree), "--sessions", str(sessions)]) == 0
    return folder, json.loads(tree.read_text())


async def test_a_replay_mismatch_is_one_line_and_nothing_is_lost(tmp_path: Path, won_demo, node_code_in_process) -> None:
    folder = Path(shutil.copytree(won_demo[0], tmp_path / won_demo[0].name))
    journal = folder / "journal.jsonl"
    lines = journal.read_text().splitlines()
    first_action = next(i for i, line in enumerate(lines) if '"type": "action"' in line)
    record = json.loads(lines[first_action])
    record["observation"] = "Nothing happens."
    lines[first_action] = json.dumps(record)
    journal.write_text("\n".join(lines) + "\n")
    saved = journal.read_text()

    app = toy_app(sessions_dir=tmp_path, resume=folder)
    async with app.run_test(size=SIZE) as pilot:
        await queues_drained(app)  # the start-up's loading and replay are under way
        await app.workers.wait_for_complete()
        await drawn(app)  # what they posted is handled: the replay screen says how it failed
        assert isinstance(app.screen, ReplayScreen) and app.screen.failed
        line = app.screen.failed
        assert "\n" not in line and "step 1" in line and "differs from the recording" in line
        assert "step 1" in ConsolePage(pilot).status()  # the run's status line, under the cover
        await key_pressed(app, "escape")  # nothing to go back to at start-up: the cover stays
        assert isinstance(app.screen, ReplayScreen)
        await key_pressed(app, "S")
        assert isinstance(app.screen, SessionsScreen)
    assert journal.read_text() == saved


def test_resume_of_an_unknown_session_is_one_line(tmp_path: Path, capsys) -> None:
    from recode_tui.commands import cli

    assert cli.main(["tui", "--resume", "nope", "--sessions", str(tmp_path)]) == 2  # the command line's exit status
    err = capsys.readouterr().err
    assert err.strip().count("\n") == 0 and "no session 'nope'" in err


async def test_an_exported_tree_opens_read_only(tmp_path: Path, won_demo) -> None:
    document = won_demo[1]
    path = tmp_path / "tree.json"
    path.write_text(json.dumps(document))
    tree, meta = load_tree_file(path)
    viewer = TreeFileApp(path, tree, meta)
    async with viewer.run_test(size=SIZE) as pilot:
        view = viewer.query_one("#code-tree")
        await drawn(viewer)
        assert set(view._items) == set(document["nodes"])  # the whole tree shown
        shown = meta_line(path, meta).plain
        assert "read-only tree" in shown and "won" in shown and "put a vase in sidetable" in shown
        await key_pressed(viewer, "down")
        assert view.cursor_node.data == "n1" and viewer.query_one(NodeDetail)._key[0] == "n1"
        for key in ("c", "n", "ctrl+s"):  # no agent: the console's keys do nothing here
            await key_pressed(viewer, key)
        await key_pressed(viewer, "q")


def test_a_broken_tree_file_is_refused_in_one_line(tmp_path: Path, won_demo, capsys) -> None:
    from recode_tui.commands import cli

    document = won_demo[1]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**document, "edges": document["edges"][:-1]}))
    assert cli.main(["tui", "--open-tree", str(bad)]) == 2  # the command line's exit status
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not a recode.plan.v1 tree" in err
