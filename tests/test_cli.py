"""The headless command line as a user runs it: a real process, real exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from envs.alfworld.catalog import resolve_game

pytestmark = pytest.mark.heavy  # real ALFWorld games, played by the command line


def recode(*args: str) -> subprocess.CompletedProcess[str]:
    """`recode-tui ARGS` in a process of its own: the exit status a shell sees."""
    import os
    import tempfile

    with tempfile.TemporaryDirectory(prefix="recode-sessions-") as scratch:  # its journals go here
        env = dict(os.environ, RECODE_TUI_SESSIONS=scratch)
        return subprocess.run(
            [sys.executable, "-m", "recode_tui", *args], capture_output=True, text=True, timeout=300, env=env
        )


def in_process(tmp_path, *args: str) -> subprocess.CompletedProcess[str]:
    """`recode-tui ARGS` through the command line's `main` in this process (`run_main`): no interpreter start."""
    import os

    from tests.eval.helpers import run_main

    return run_main(list(args), dict(os.environ, RECODE_TUI_SESSIONS=str(tmp_path / "sessions")))


def walkthrough_script(tmp_path, episode_ref: str) -> str:
    """A scripted answer that plays the game's stored planner walkthrough."""
    steps = json.loads(resolve_game(episode_ref).read_text())["walkthrough"]
    code = "for action in " + json.dumps(steps) + ":\n    run(action)"
    path = tmp_path / "walk.jsonl"
    path.write_text(json.dumps({"stub": "solve(instruction, observation)", "answer": f"<execute>\n{code}\n</execute>"}))
    return str(path)


def test_a_won_episode_prints_one_line_per_event_and_exits_0(tmp_path):
    result = recode("run", "--game", "heat-01", "--llm", "scripted:" + walkthrough_script(tmp_path, "heat-01"))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("run started: ") and lines[0].endswith("(type: heat)")
    assert any(line.strip().startswith("> action ") and ": heat " in line for line in lines)
    assert lines[-1].startswith("SUCCESS: won — ")


def test_an_unsuccessful_episode_exits_1(tmp_path):
    script = tmp_path / "look.jsonl"
    script.write_text(json.dumps({"stub": "*", "answer": "<execute>run('look')</execute>"}))
    result = recode("run", "--game", "put-02", "--llm", f"scripted:{script}", "--quiet")
    assert result.returncode == 1
    assert result.stdout.strip().startswith("FAILED: no pending nodes left")


def test_bad_usage_exits_2_with_one_line_saying_what_to_do(tmp_path):
    corrupt = tmp_path / "broken.tw-pddl"
    corrupt.write_text("{not json")
    cases = [
        (("run", "--game", "nope-99"), "recode-tui games list"),
        (("run", "--game", str(corrupt), "--llm", "demo"), "malformed game file"),
        (("run", "--llm", "scripted:/no/such/file.yaml"), "cannot read script"),
        (("run", "--llm", "gpt-nothing"), "use human, demo, gold, scripted:FILE, journal:PATH or profile:NAME"),
        (("run", "--max-depth", "-1"), "--max-depth must be 0 or more"),
        (("run", "--llm", "human", "--game", "nope-99"), "recode-tui games list"),
    ]
    for number, (args, message) in enumerate(cases):
        # the first in a process of its own (the exit status a shell sees), the others through `main` here
        result = recode(*args) if number == 0 else in_process(tmp_path, *args)
        assert result.returncode == 2, (args, result.stderr)
        assert message in result.stderr, (args, result.stderr)
        assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_games_list_shows_every_task_type(tmp_path):
    result = in_process(tmp_path, "games", "list")  # the listing is the subject: the process's exit is above
    assert result.returncode == 0
    rows = [line.split(None, 2) for line in result.stdout.splitlines()]
    types = {row[1] for row in rows}
    assert types == {"put", "clean", "heat", "cool", "examine", "puttwo"}
    assert len(rows) >= 60
    only = in_process(tmp_path, "games", "list", "--task-type", "cool").stdout.splitlines()
    assert only and all(line.split()[1] == "cool" for line in only)


def test_games_list_into_a_reader_that_left_ends_quietly():
    """`recode-tui games list | head -1`: the reader is gone before the list is written (its end of the pipe
    is closed before the command starts), so every write meets a closed pipe; no traceback is printed."""
    import os

    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run([sys.executable, "-m", "recode_tui", "games", "list"], stdout=write_end,
                              stderr=subprocess.PIPE, text=True, timeout=300)
    finally:
        os.close(write_end)
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr
    assert done.returncode == 141  # as a shell reports a writer whose reader left


def test_every_run_is_journaled_and_exports_from_the_command_line(tmp_path):
    # the journal and the exports are the subject, each command through `main` here (the sessions folder is
    # tmp_path's); the exit statuses a shell sees are the tests above
    script = "scripted:" + walkthrough_script(tmp_path, "clean-02")
    assert in_process(tmp_path, "run", "--game", "clean-02", "--llm", script, "--quiet").returncode == 0
    listed = in_process(tmp_path, "sessions", "list").stdout.splitlines()[1].split()  # under the header row
    assert listed[1:4] == ["clean-02", "recode", "won"]  # the agent of the run is listed
    tree_file = tmp_path / "tree.json"
    assert in_process(tmp_path, "export", "--tree", "-o", str(tree_file)).returncode == 0
    document = json.loads(tree_file.read_text())
    assert document["version"] == "recode.plan.v1" and document["meta"]["success"] is True
    sft = in_process(tmp_path, "export", listed[0], "--sft").stdout.splitlines()
    assert len(sft) == 1 and json.loads(sft[0])["messages"][1]["role"] == "assistant"
    markdown = in_process(tmp_path, "export", "--markdown").stdout
    assert "**Result:** won" in markdown
    missing = in_process(tmp_path, "export", "nope", "--tree")
    assert missing.returncode == 2 and "no session 'nope'" in missing.stderr
