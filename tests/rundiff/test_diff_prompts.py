"""Two runs whose prompt sets differ by one edited example file: `diff` and `compare` say so first.

Every offline LLM ignores its prompt, so the two demo runs send the same
actions and get the same answers; the diff must still not call them the same.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agent.runtime.prompts import DEFAULT_PROMPTS
from recode_tui.commands.cli import main
from tests.eval.helpers import recode

pytestmark = pytest.mark.heavy  # evaluations start engines in worker processes

EDITED = "alfworld/examples/put.txt"
ADDED = "# When the target receptacle is closed, open it first."


def edited_prompts(tmp_path: Path) -> Path:
    folder = tmp_path / "edited"
    shutil.copytree(DEFAULT_PROMPTS, folder)
    path = folder / EDITED
    path.write_text(ADDED + "\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def two_evals(tmp_path_factory) -> tuple[Path, Path]:
    tmp_path = tmp_path_factory.mktemp("prompts")
    before, after = tmp_path / "before", tmp_path / "after"
    for out, extra in ((before, []), (after, ["--prompts", str(edited_prompts(tmp_path))])):
        done = recode(tmp_path, "eval", "--llm", "demo", "--games", "put-01", "-c", "1", "--out", str(out),
                      "--no-progress", *extra)
        assert done.returncode == 0, done.stderr
    return before, after


def test_diff_of_two_runs_says_first_which_prompt_file_and_lines_changed(two_evals, capsys) -> None:
    before, after = two_evals
    assert main(["diff", str(before / "journals" / "put-01"), str(after / "journals" / "put-01")]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("the prompts differ: prompt set "))
    assert start == 3  # right after the two runs and the episode, before anything else
    assert lines[start + 1] == f"  {EDITED} (changed)"
    assert f"    +{ADDED}" in lines
    text = "\n".join(lines)
    assert "the two runs are the same" not in text
    assert "though their prompts differ: the LLM did not react to the change" in text


def test_diff_json_and_eval_diff_report_the_changed_prompt_file(two_evals, capsys) -> None:
    before, after = two_evals
    assert main(["diff", str(before), str(after), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    prompts = document["episodes"][0]["diff"]["prompts"]
    assert prompts["differ"] is True and prompts["hash"]["a"] != prompts["hash"]["b"]
    assert [f["file"] for f in prompts["files"]] == [EDITED]
    assert f"+{ADDED}" in prompts["files"][0]["lines"]
    assert main(["diff", str(before), str(after)]) == 0
    text = capsys.readouterr().out
    assert text.index("the prompts differ") < text.index("episodes in common")


def test_compare_names_the_changed_prompt_file(two_evals, capsys) -> None:
    before, after = two_evals
    assert main(["compare", str(before), str(after)]) == 0
    assert f"prompt files differ (1): {EDITED} (changed)" in capsys.readouterr().out
