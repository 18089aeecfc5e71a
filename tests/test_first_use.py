"""What a new user meets on a first run: one-line usage errors, the demo or the person as the LLM, a won
episode said once, an exported tree's time, and a remapped key (`--keymap`)."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent.runtime.debugger import describe_event
from agent.runtime.events import RunFinished
from recode_tui.commands.cli import read_keymap

from tests.console.helpers import next_stop
from tests.console.page import ConsolePage, toy_app
from tests.eval.helpers import run_main
from tests.toyenv.world import EPISODES

pytestmark = pytest.mark.heavy  # real ALFWorld games, played by the command line


ROOT = Path(__file__).resolve().parents[1]


def recode(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`recode-tui ARGS` in this process (`run_main`): what is checked is the command's output, not its process."""
    environ = dict(os.environ, RECODE_TUI_SESSIONS=str(tmp_path / "sessions"), OPENAI_API_KEY="", **env)
    for name in [k for k, v in env.items() if v == ""]:
        environ.pop(name)
    return run_main(list(args), environ)


def one_line_usage_error(result: subprocess.CompletedProcess[str], message: str) -> None:
    assert result.returncode == 2, result.stdout + result.stderr
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr


# ---------------------------------------------------------------- item 13
@pytest.mark.parametrize("command", [["run", "--llm", "demo"], ["tui"], ["eval", "--llm", "demo", "--games", "1"],
                                     ["prompt", "show"]])
def test_a_prompts_folder_that_is_not_a_prompt_set_is_refused_in_one_line(tmp_path, command):
    not_a_set = tmp_path / "notes"
    not_a_set.mkdir()
    (not_a_set / "readme.txt").write_text("hello")
    one_line_usage_error(recode(tmp_path, *command, "--prompts", str(not_a_set)), "is not a prompt set for the recode agent (no expand.txt)")
    one_line_usage_error(recode(tmp_path, *command, "--prompts", str(tmp_path / "nowhere")), "no such folder")


# ---------------------------------------------------------------- item 19
def test_a_won_episode_says_won_once():
    won = RunFinished("n3", success=True, reason="won", steps=7)
    lost = RunFinished("n3", success=False, reason="step limit reached (80 steps)", steps=80)
    assert describe_event(won) == "episode won — 7 steps, 0 LLM calls"
    assert describe_event(lost).startswith("episode failed: step limit reached")


async def test_the_console_says_episode_won_once(tmp_path, toy_env):
    from mockllm.scripted import ScriptedLLM
    from mockllm.scripted import ScriptEntry

    steps = list(EPISODES["vase-1"].gold)  # the toy world's put-01: the console's words, not ALFWorld, are checked
    llm = ScriptedLLM([ScriptEntry(answer="<execute>\nfor a in " + json.dumps(steps) + ":\n    run(a)\n</execute>")])
    async with ConsolePage.open(toy_app(llm, breakpoints=[])) as page:
        while page.finished is None:
            await page.command("c")
        assert page.finished.success
        assert page.reason.startswith("episode won — ") and "won: won" not in page.reason


def test_export_tree_time_is_when_the_run_started(tmp_path):
    assert recode(tmp_path, "run", "--llm", "demo", "--game", "put-01", "--quiet").returncode == 0
    folder = next((tmp_path / "sessions").iterdir())
    journal = folder / "journal.jsonl"
    lines = journal.read_text().splitlines()
    header = json.loads(lines[0])
    header["created"] = time.mktime((2021, 3, 4, 5, 6, 7, 0, 0, -1))  # as if the run were old
    journal.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    result = recode(tmp_path, "export", str(folder), "--tree", "--exec")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["meta"]["time"].startswith("2021-03-04T05:06:07")


def test_games_list_of_a_split_without_the_data_says_what_to_set(tmp_path):
    one_line_usage_error(recode(tmp_path, "games", "list", "--split", "valid_seen", ALFWORLD_DATA=""),
                         "ALFWORLD_DATA is not set")
    one_line_usage_error(recode(tmp_path, "games", "list", "--split", "valid_seen", ALFWORLD_DATA=str(tmp_path / "x")),
                         "is not a folder")
    one_line_usage_error(recode(tmp_path, "games", "list", "--split", "nosuch", ALFWORLD_DATA=str(tmp_path)),
                         "no split 'nosuch'")


def test_run_without_llm_and_no_terminal_says_it_plays_the_demo(tmp_path):
    result = recode(tmp_path, "run", "--game", "heat-01", "--quiet")
    assert result.returncode == 0, result.stderr
    assert "no --llm given and no terminal to answer at: playing the bundled demo script (--llm demo)" in result.stderr
    assert result.stdout.startswith("SUCCESS")


def test_run_without_llm_at_a_terminal_makes_you_the_llm(tmp_path):
    """Like `tui`: the plain-terminal editor opens on the task's prompt."""
    main, secondary = pty.openpty()
    env = dict(os.environ, RECODE_TUI_SESSIONS=str(tmp_path / "sessions"), TERM="xterm", COLUMNS="120", LINES="40")
    process = subprocess.Popen([sys.executable, "-m", "recode_tui", "run", "--game", "put-01"], stdin=secondary,
                               stdout=secondary, stderr=secondary, env=env, close_fds=True)
    os.close(secondary)
    seen = b""
    try:
        deadline = time.monotonic() + 60
        # The whole prompt is shown before the line that opens the editor (`─── your answer: ...`).
        while b"your answer" not in seen and time.monotonic() < deadline:
            ready, _, _ = select.select([main], [], [], 0.5)
            if ready:
                try:
                    seen += os.read(main, 65536)
                except OSError:
                    break
                if b"\x1b[6n" in seen:  # prompt-toolkit asks where the cursor is: answer like a terminal
                    os.write(main, b"\x1b[1;1R")
                    seen = seen.replace(b"\x1b[6n", b"")
        text = seen.decode(errors="replace")
        assert "# Current function to expand" in text and "<execute>" in text, text[-2000:]
        assert "playing the bundled demo" not in text
    finally:
        process.kill()
        process.wait(timeout=10)
        os.close(main)


# ---------------------------------------------------------------- item 23: --keymap FILE
async def test_a_remapped_key_works_in_the_console(tmp_path, toy_env):
    from mockllm.scripted import ScriptedLLM
    from mockllm.scripted import ScriptEntry

    keymap_file = tmp_path / "keys.txt"
    keymap_file.write_text("# my keys\nrun.continue = f6\n")
    llm = ScriptedLLM([ScriptEntry(answer="<execute>\nrun('look')\n</execute>")])
    async with ConsolePage.open(toy_app(llm, breakpoints=[], keymap=read_keymap(str(keymap_file)))) as page:
        stop = next_stop(page.app)
        await page.press("c")  # the old key no longer continues: handled by every part that may act on it, drawn
        assert not stop.done() and not page.screen.driver.busy and page.finished is None
        await page.command("f6")  # continue, under its new key: no breakpoint, so its stop is the run's end
        assert page.finished is not None


def test_a_broken_keymap_file_is_one_line(tmp_path):
    broken = tmp_path / "keys.txt"
    broken.write_text("continue f6\n")
    one_line_usage_error(recode(tmp_path, "tui", "--keymap", str(broken)), "line 1: write `binding-id = key`")
    one_line_usage_error(recode(tmp_path, "tui", "--keymap", str(tmp_path / "none.txt")), "cannot read keymap")
