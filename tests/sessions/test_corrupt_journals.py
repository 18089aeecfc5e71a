"""Corrupt journals are reported, never a traceback.

One bad line (a 0xFF byte, JSON that is not an object, an action without its
observation, JSON nested too deeply) in a real won session: every reader says
the file, the line and what is wrong and exits 2; `sessions list` lists the
others and marks the corrupt one; `--from-last-good` goes on from before it;
the console's sessions screen (`S`) shows it marked.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agent.sessions.journal_read import JOURNAL_FILE
from envs.alfworld.catalog import resolve_game
from recode_tui.commands.cli import main
from recode_tui.console.app import build_app
from recode_tui.console.screens.sessions import SessionsScreen
from tests.console.page import ConsolePage
from tests.settings import console_options

pytestmark = pytest.mark.heavy  # real ALFWorld games, played by the command line


GAME = "heat-01"


def nested(depth: int) -> bytes:
    return b'{"type": "action", "step": 1, "action": "look", "observation": ' + b"[" * depth + b"]" * depth + b"}"


# name -> (how the 3rd line of the journal is spoilt, what the error says about it)
SPOILERS = {
    "byte 0xFF": (lambda line: line[:20] + b"\xff" + line[21:], "byte 0xff at column 21 is not UTF-8 text"),
    "not an object": (lambda line: b"[1, 2, 3]", "a JSON list where a record (a JSON object) belongs"),
    "no observation": (lambda line: json.dumps({k: v for k, v in json.loads(line).items() if k != "observation"}
                                               ).encode(), "an action record without `observation`"),
    "nested too deeply": (lambda line: nested(100_000), "the JSON is nested too deeply to read"),
}


@pytest.fixture(scope="module")
def won_session(tmp_path_factory) -> Path:
    """A real won ALFWorld session, recorded once; each test copies it."""
    scratch = tmp_path_factory.mktemp("won")
    steps = json.loads(resolve_game(GAME).read_text())["walkthrough"]
    script = scratch / "walk.jsonl"
    code = "for action in " + json.dumps(steps) + ":\n    run(action)"
    script.write_text(json.dumps({"stub": "solve(instruction, observation)", "answer": f"<execute>\n{code}\n</execute>"}))
    assert main(["run", "--game", GAME, "--llm", f"scripted:{script}", "--sessions", str(scratch / "s"), "--quiet"]) == 0
    (folder,) = (scratch / "s").iterdir()
    return folder


def spoilt_sessions(tmp_path: Path, won_session: Path, spoiler) -> tuple[Path, Path]:
    """A sessions folder with a good copy and a copy whose 3rd line (an action) is spoilt."""
    sessions = tmp_path / "sessions"
    good, bad = sessions / "20200101-000000-good", sessions / "20200101-000001-bad"
    shutil.copytree(won_session, good)
    shutil.copytree(won_session, bad)
    lines = (bad / JOURNAL_FILE).read_bytes().split(b"\n")
    assert b'"type": "action"' in lines[2]
    lines[2] = spoiler(lines[2])
    (bad / JOURNAL_FILE).write_bytes(b"\n".join(lines))
    return sessions, bad


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("name", list(SPOILERS))
def test_every_reader_names_the_file_the_line_and_what_is_wrong(tmp_path, capsys, won_session, name):
    spoiler, what = SPOILERS[name]
    sessions, bad = spoilt_sessions(tmp_path, won_session, spoiler)
    where = f"{bad / JOURNAL_FILE} is corrupt at line 3: {what}"

    code, out, err = run_cli(capsys, "sessions", "list", "--sessions", str(sessions))
    assert code == 2
    rows = {line.split()[0]: line for line in out.splitlines()}
    assert " won " in rows["20200101-000000-good"] and " corrupt " in rows["20200101-000001-bad"]
    assert err.strip().count("\n") == 0 and where in err and "--from-last-good" in err

    for argv in (["run", "--resume", bad.name, "--llm", "demo", "--quiet"], ["export", bad.name, "--markdown", "--exec"]):
        code, out, err = run_cli(capsys, *argv, "--sessions", str(sessions))
        assert code == 2, argv
        assert err.startswith("recode-tui: error: ") and err.strip().count("\n") == 0 and where in err, err

    code, out, err = run_cli(capsys, "run", "--resume", bad.name, "--from-last-good", "--llm", "demo", "--quiet",
                             "--sessions", str(sessions))
    assert code in (0, 1) and "Traceback" not in err
    assert "line 3 is corrupt" in err and "last-good" in err


def test_sessions_list_reads_a_huge_line_without_holding_it(tmp_path, capsys, won_session):
    sessions = tmp_path / "sessions"
    big = sessions / "20200101-000002-big"
    shutil.copytree(won_session, big)
    lines = (big / JOURNAL_FILE).read_bytes().split(b"\n")
    record = json.loads(lines[2])
    huge = json.dumps({**record, "action": "x" * 30_000_000}).encode()  # 30 MB on one line
    (big / JOURNAL_FILE).write_bytes(b"\n".join([*lines[:2], huge, *lines[2:]]))
    import tracemalloc

    tracemalloc.start()
    code, out, err = run_cli(capsys, "sessions", "list", "--sessions", str(sessions))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert code == 0 and " won " in out, err
    assert peak < 10_000_000  # the 30 MB line is skipped through, never held


async def test_the_console_sessions_screen_marks_a_corrupt_journal(tmp_path, won_session):
    sessions, bad = spoilt_sessions(tmp_path, won_session, SPOILERS["byte 0xFF"][0])
    app = build_app(console_options("put-01", "demo", breakpoints=[], sessions_dir=sessions))
    async with ConsolePage.open(app, size=(140, 40)) as page:
        await page.press("S")
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        await page.work_done("sessions-list")  # the list's read, in its worker, and the rows it shows
        assert screen.loaded
        rows = {row.session_id: row for row in screen.rows}
        assert rows[bad.name].result == "corrupt" and rows["20200101-000000-good"].result == "won"
        assert app.is_running  # the console lives on
