"""Viewing a journal from elsewhere without running its code: `export --no-exec` and `tui --open`.

A real recorded session (the bundled demo on put-01) is moved outside the
sessions folder and given a hostile `!` statement. The exports run in a real
process with an audit hook that reports every process it starts: with
--no-exec no sandbox worker (no process at all) starts and the statement never
runs, yet the answers, actions and the tree are all there.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from recode_tui.console.viewers.journal_file import JournalFileApp, load_journal_view
from tests.console.helpers import drawn, key_pressed
from tests.eval.helpers import run_main

pytestmark = pytest.mark.heavy  # real ALFWorld games, played by the command line


ROOT = Path(__file__).resolve().parents[2]
AUDITED = """
import sys
def hook(event, args):
    if event in ("subprocess.Popen", "os.posix_spawn", "os.fork", "os.exec", "os.system"):
        print("SPAWNED", event, file=sys.stderr, flush=True)
sys.addaudithook(hook)
from recode_tui.commands.cli import main
sys.exit(main(sys.argv[1:]))
"""


def recode(*args: str, sessions: Path) -> subprocess.CompletedProcess:
    """`recode-tui ARGS` in a real process that reports every process it starts."""
    env = {**os.environ, "RECODE_TUI_SESSIONS": str(sessions)}
    return subprocess.run([sys.executable, "-c", AUDITED, *args], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=120)


def here(*args: str, sessions: Path) -> subprocess.CompletedProcess:
    """`recode-tui ARGS` in this process (`run_main`): for a play or resume whose processes are not looked at
    (the ALFWorld engine this process has loaded serves them all; a process of its own loads it again)."""
    return run_main(list(args), {**os.environ, "RECODE_TUI_SESSIONS": str(sessions)}, cwd=ROOT)


@pytest.fixture(scope="module")
def elsewhere(tmp_path_factory) -> dict:
    """A won demo session outside the sessions folder, its tree as a replay exports it, then a hostile statement."""
    base = tmp_path_factory.mktemp("noexec")
    sessions, foreign = base / "sessions", base / "downloaded"
    played = here("run", "--llm", "demo", "--game", "put-01", "--quiet", "--sessions", str(foreign), sessions=sessions)
    assert played.returncode == 0, played.stderr
    folder = next(foreign.iterdir())
    replayed = recode("export", str(folder), "--tree", "--exec", sessions=sessions)  # replaying runs the code, in the sandbox
    assert replayed.returncode == 0, replayed.stderr
    marker = base / "MARKER"
    hostile = f"__import__('os').system('touch {marker}'); open({str(marker)!r}, 'w').write('ran')"
    with open(folder / "journal.jsonl", "a", encoding="utf-8") as handle:
        handle.write(json.dumps({"type": "statement", "node_id": "n1", "after": 3, "code": hostile,
                                 "changed": []}) + "\n")
    return {"sessions": sessions, "folder": folder, "marker": marker, "replayed": replayed, "hostile": hostile}


def test_a_replayed_export_of_a_journal_from_elsewhere_says_its_code_runs_in_the_sandbox(elsewhere):
    replayed = elsewhere["replayed"]
    assert "SPAWNED subprocess.Popen" in replayed.stderr  # the hook sees the sandbox worker start
    notes = [line for line in replayed.stderr.splitlines() if "from elsewhere" in line]
    assert len(notes) == 1
    assert "outside your sessions folder" in notes[0] and "runs again in the sandbox when it is exported" in notes[0]
    assert f"recode-tui export {elsewhere['folder']} --markdown," in notes[0]


def test_markdown_no_exec_shows_answers_actions_and_statements_without_running_anything(elsewhere):
    done = recode("export", str(elsewhere["folder"]), "--markdown", "--no-exec", sessions=elsewhere["sessions"])
    assert done.returncode == 0, done.stderr
    assert "SPAWNED" not in done.stderr and not elsewhere["marker"].exists()
    text = done.stdout
    assert "**Task:** put a vase in sidetable." in text
    assert "  - `n5` `obj, source = find_and_take(obj_type, places, seen)`\n\n  **Expansion of `n5`** (demo)" in text
    assert "obj, source = locate_object(obj_type, places, seen)" in text  # the answer's code
    assert "- `> take vase 1 from diningtable 1` — You pick up the vase 1 from the diningtable 1." in text
    assert "(recorded, not run here)" in text and elsewhere["hostile"] in text
    assert "**Result:** won; 7 steps" in text
    assert "without running any code (--exec replays it); not shown: what running shows: printed output" in done.stderr


def test_tree_and_trace_no_exec_match_the_replayed_tree_without_running_anything(elsewhere):
    sessions, folder = elsewhere["sessions"], elsewhere["folder"]
    tree = recode("export", str(folder), "--tree", "--no-exec", sessions=sessions)
    trace = recode("export", str(folder), "--trace", "--no-exec", sessions=sessions)
    for done in (tree, trace):
        assert done.returncode == 0, done.stderr
        assert "SPAWNED" not in done.stderr
    assert not elsewhere["marker"].exists()
    rebuilt, replayed = json.loads(tree.stdout), json.loads(elsewhere["replayed"].stdout)
    assert rebuilt["edges"] == replayed["edges"]  # the same nodes, numbered as the agent numbers them
    assert {k: n["code"] for k, n in rebuilt["nodes"].items()} == {k: n["code"] for k, n in replayed["nodes"].items()}
    assert rebuilt["meta"]["no_exec"] is True and rebuilt["meta"]["success"] is True
    assert any("printed output" in item for item in rebuilt["meta"]["not_shown"])
    items = json.loads(trace.stdout)["trace"]
    assert [i["type"] for i in items].count("llm_call") == 4
    assert {"type": "action", "node_id": "n8", "step": 5, "action": "take vase 1 from diningtable 1",
            "observation": "You pick up the vase 1 from the diningtable 1.", "done": False, "won": False} in items
    assert {"type": "statement", "node_id": "n1", "code": elsewhere["hostile"], "run": False} in items


def test_the_default_transcript_is_the_replayed_one_but_for_what_only_running_shows(tmp_path):
    sessions = tmp_path / "sessions"
    assert here("run", "--llm", "demo", "--game", "put-01", "--quiet", sessions=sessions).returncode == 0
    [folder] = sessions.iterdir()
    replayed = recode("export", folder.name, "--markdown", "--exec", sessions=sessions)
    default = recode("export", folder.name, "--markdown", sessions=sessions)
    assert replayed.returncode == default.returncode == 0, replayed.stderr + default.stderr
    assert "SPAWNED" in replayed.stderr and "SPAWNED" not in default.stderr
    note = next(line for line in default.stdout.splitlines() if line.startswith("> shown from the journal's records"))
    first_observation = replayed.stdout.split("**Task:** put a vase in sidetable.\n\n", 1)[1].split("\n\n", 1)[0]
    assert first_observation.startswith("```text\nYou are in the middle of a room.")
    assert default.stdout.replace(note + "\n\n", "") == replayed.stdout.replace(first_observation + "\n\n", "")


@pytest.mark.parametrize("form", ["--tree", "--trace", "--markdown"])
def test_export_runs_none_of_a_journals_code_unless_asked(elsewhere, form):
    sessions, folder = elsewhere["sessions"], elsewhere["folder"]
    default = recode("export", str(folder), form, sessions=sessions)
    assert default.returncode == 0, default.stderr
    assert "SPAWNED" not in default.stderr and not elsewhere["marker"].exists()
    # the same output as --no-exec gives (whose processes the tests above watch), here in this process
    assert default.stdout == here("export", str(folder), form, "--no-exec", sessions=sessions).stdout


def test_trusted_export_needs_exec_and_exec_with_no_exec_is_refused(elsewhere):
    sessions, folder = elsewhere["sessions"], elsewhere["folder"]
    # usage errors, in this process: what they refuse is checked, not which processes start
    trusted = here("export", str(folder), "--tree", "--trusted", sessions=sessions)
    assert trusted.returncode == 2 and "add --exec" in trusted.stderr and not elsewhere["marker"].exists()
    both = here("export", str(folder), "--tree", "--exec", "--no-exec", sessions=sessions)
    assert both.returncode == 2 and "not allowed with argument" in both.stderr


def _children() -> list[str]:
    return [c for task in Path("/proc/self/task").iterdir() for c in (task / "children").read_text().split()]


async def test_tui_open_shows_the_session_read_only_without_running_it(elsewhere):
    view = load_journal_view(str(elsewhere["folder"]))
    before = _children()
    app = JournalFileApp(view)
    async with app.run_test(size=(140, 40)):
        await drawn(app)  # what mounting posted (the tree's nodes, the log's lines) is handled
        tree = app.query_one("#code-tree")
        assert set(tree._items) == set(view.tree.nodes) and len(view.tree.nodes) == 19
        log = "\n".join(line.text for line in app.query_one("#env-log").lines)
        assert "n8 > take vase 1 from diningtable 1  You pick up the vase 1" in log
        assert "n5 answer (expand, demo)" in log and "locate_object(obj_type, places, seen)" in log
        assert "(recorded, not run here)" in log and "WON" in log
        assert "read-only session, nothing runs" in app.query_one("#journal-file-meta").render().plain
        await key_pressed(app, "down")
        assert tree.cursor_node.data == "n1"
        assert _children() == before  # no sandbox worker, no process of any kind
        await key_pressed(app, "q")
    assert not elsewhere["marker"].exists()


def test_tui_open_of_a_missing_journal_is_one_line(tmp_path):
    done = run_main(["tui", "--open", str(tmp_path / "nope")], dict(os.environ), cwd=ROOT)
    assert done.returncode == 2
    assert done.stderr.startswith("recode-tui: error: no session") and done.stderr.count("\n") == 1


def test_resuming_says_so_for_a_journal_from_elsewhere_only(tmp_path):
    import shutil

    sessions = tmp_path / "sessions"
    played = here("run", "--llm", "demo", "--game", "put-01", "--quiet", sessions=sessions)
    assert played.returncode == 0, played.stderr
    own = next(sessions.iterdir())
    resumed = here("run", "--quiet", "--resume", own.name, sessions=sessions)
    assert resumed.returncode == 0 and "from elsewhere" not in resumed.stderr  # your own session: no note
    copied = tmp_path / "mail" / own.name
    shutil.copytree(own, copied)
    resumed = here("run", "--quiet", "--resume", str(copied), sessions=sessions)
    notes = [line for line in resumed.stderr.splitlines() if "from elsewhere" in line]
    assert resumed.returncode == 0 and len(notes) == 1
    assert "runs again in the sandbox when it is resumed" in notes[0] and f"tui --open {copied}" in notes[0]


def test_no_exec_shows_another_agents_session_too(tmp_path):
    sessions = tmp_path / "sessions"
    played = here("run", "--agent", "codeact", "--llm", "demo", "--game", "put-01", "--quiet", sessions=sessions)
    assert played.returncode == 0, played.stderr
    folder = next(sessions.iterdir())
    done = recode("export", folder.name, "--markdown", "--no-exec", sessions=sessions)
    assert done.returncode == 0 and "SPAWNED" not in done.stderr
    assert "- agent: `codeact`" in done.stdout and "**Answer for `n0`** `cell 2` (act; demo)" in done.stdout
    assert "- `> move vase 1 to sidetable 1` — You move the vase 1 to the sidetable 1.\n\n**Result:** won" in done.stdout
    view = load_journal_view(folder.name, str(sessions))
    assert view.tree.root.code == "(codeact run)" and not view.unplaced
