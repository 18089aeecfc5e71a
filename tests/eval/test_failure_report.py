"""An eval says why episodes failed: grouped by the stub where they ended, with a command to open each."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent.eval.failure import FailureGroup, group_failures
from recode_tui.commands import cli

from .bugged import bugged_script
from .helpers import read_report, recode


@pytest.mark.heavy
def test_failures_are_grouped_by_where_they_ended_and_name_the_missing_action(tmp_path: Path) -> None:
    out = tmp_path / "bugged"
    result = recode(tmp_path, "eval", "--llm", f"scripted:{bugged_script(tmp_path)}", "--games",
                    "put-01,clean-01,clean-02", "-c", "2", "--out", str(out), "--no-progress")
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert "Failures, by the stub where they ended:" in text
    group = next(line for line in text.splitlines() if "(clean): 2/2 failures" in line)
    assert "no `clean` action sent" in group

    report = read_report(out)
    failed = {e["game"]: e for e in report["episodes"] if not e["success"]}
    assert set(failed) == {"clean-01", "clean-02"}
    for episode in failed.values():
        failure = episode["failure"]
        assert failure["last_steps"] and all(len(step) == 2 for step in failure["last_steps"])
        assert failure["deepest_stub"]["depth"] >= 1 and "clean" not in failure["verbs"]
        command = re.search(rf"{episode['game']}: (recode-tui tui --resume \S+ --at (n\d+))", text)
        assert command and command.group(1).split("--resume ")[1].startswith(episode["journal"])
    assert report["failures"][0]["count"] == 2 and report["failures"][0]["task_types"] == ["clean"]


@pytest.mark.heavy
async def test_the_printed_command_opens_the_console_on_the_node(tmp_path: Path) -> None:
    out = tmp_path / "bugged"
    result = recode(tmp_path, "eval", "--llm", f"scripted:{bugged_script(tmp_path)}", "--games", "clean-01",
                    "--out", str(out), "--no-progress")
    assert result.returncode == 0, result.stderr
    command = re.search(r"clean-01: recode-tui (tui --resume \S+ --at (n\d+))", result.stdout)
    assert command, result.stdout
    args = cli.build_parser().parse_args([*command.group(1).split(), "--sessions", str(tmp_path / "sessions")])
    app = cli.console_app(args)
    async with app.run_test(size=(160, 48)) as pilot:
        for _ in range(400):
            await pilot.pause(0.05)
            item = app.tree_view.cursor_node
            if item is not None and item.data == command.group(2):
                break
        assert app.tree_view.cursor_node.data == command.group(2)


def test_a_group_says_nothing_about_actions_for_task_types_not_named_by_one() -> None:
    class Episode:
        def __init__(self, game: str, task_type: str) -> None:
            self.game, self.task_type, self.success, self.error = game, task_type, False, ""
            self.reason = "no pending nodes left and the task is not done"
            self.failure = {"deepest_stub": {"name": "find_it", "node": "n3", "depth": 1}, "verbs": ["go", "take"]}

    groups = group_failures([Episode("put-01", "put"), Episode("put-02", "put"), Episode("heat-01", "heat")])
    assert len(groups) == 1 and isinstance(groups[0], FailureGroup)
    assert groups[0].line() == ("find_it (heat/put): 3/3 failures; no `heat` action sent; "
                                "no pending nodes left and the task is not done")
