"""`recode-tui diff` on two evaluations that differ only in one prompt line, with a scripted model.

The model wins vase-1 only when the prompt carries a hint line, so the second
evaluation (a prompt set with that line added) flips vase-1 to won. The diff
lists the flipped episode first and shows, as its first divergence, the
prompt line that changed. The diff is the subject, not the engine: the toy world (tests/toyenv) plays.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from textual.widgets import OptionList

from agent.runtime.prompts import DEFAULT_PROMPTS
from agent.eval.rundiff.evals import diff_evals
from recode_tui.console.viewers.diff_file import DiffApp
from recode_tui.console.screens.diff import DiffScreen
from recode_tui.console.widgets.diff_rows import DiffRows
from tests.console.helpers import drawn, key_pressed
from tests.eval.helpers import LOSE, SOLVE, instruction_when, read_report, recode, steps_answer
from tests.toyenv.world import EPISODES

pytestmark = pytest.mark.heavy  # evaluations start engines in worker processes

HINT = "Hint: when the plan is known, PREFER-THE-KNOWN-PLAN."


def hinted_prompts(tmp_path: Path) -> Path:
    """The bundled prompt set with one line added to the expansion prompt."""
    folder = tmp_path / "hinted"
    shutil.copytree(DEFAULT_PROMPTS, folder)
    expand = folder / "expand.txt"
    text = expand.read_text(encoding="utf-8")
    expand.write_text(text.replace("# Answer format\n", f"{HINT}\n\n# Answer format\n", 1), encoding="utf-8")
    return folder


def script(tmp_path: Path) -> Path:
    vase = EPISODES["vase-1"]
    entries = [
        {"stub": SOLVE, "when": "PREFER-THE-KNOWN-PLAN[\\s\\S]*" + instruction_when(vase.task),
         "answer": steps_answer(list(vase.gold))},
        {"stub": SOLVE, "answer": LOSE},
    ]
    path = tmp_path / "hint.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in entries) + "\n")
    return path


async def test_diff_of_two_evals_shows_the_changed_prompt_line_of_the_flipped_episode(tmp_path: Path, toy_env) -> None:
    llm = f"scripted:{script(tmp_path)}"
    before, after = tmp_path / "before", tmp_path / "after"
    for out, extra in ((before, []), (after, ["--prompts", str(hinted_prompts(tmp_path))])):
        done = recode(tmp_path, "eval", "--env", "toy", "--llm", llm, "--games", "coin-1,vase-1", "-c", "1",
                      "--out", str(out), "--no-progress", *extra)
        assert done.returncode == 0, done.stderr
    assert [e["success"] for e in read_report(after)["episodes"]].count(True) == 1

    result = recode(tmp_path, "diff", str(before), str(after), "--width", "120")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "2 episodes in common, 1 flipped (listed first)" in out
    first, second = out.split("\n=== ")[1:3]
    assert first.startswith("vase-1 (put) flipped: lost → won ===")
    assert second.startswith("coin-1 (take) lost in both ===")
    # what made vase-1 part: the LLM call's prompts differ by the added line, and so do the answers
    prompt_diff = first.split("  prompt diff:")[1].split("  answer diff:")[0]
    changed = [line.strip() for line in prompt_diff.splitlines() if line.strip().startswith(("+", "-"))]
    assert changed[:2] == ["--- A prompt", "+++ B prompt"] and sorted(changed[2:]) == ["+", f"+{HINT}"]
    assert "first divergence: an LLM answer, before step 1" in first

    # compare's flipped episode names the diff of its two journals, and that diff shows the line
    compared = recode(tmp_path, "compare", str(before), str(after))
    found = re.search(r"where they part: recode-tui (diff \S+ \S+)", compared.stdout)
    assert found and "vase-1" in found.group(1), compared.stdout
    single = recode(tmp_path, *found.group(1).split())
    assert single.returncode == 0, single.stderr
    assert f"    +{HINT}" in single.stdout

    as_json = recode(tmp_path, "diff", str(before), str(after), "--json")
    document = json.loads(as_json.stdout)
    assert document["kind"] == "evals" and [e["flipped"] for e in document["episodes"]] == [True, False]
    assert f"+{HINT}" in document["episodes"][0]["diff"]["divergence"]["prompt_diff"]

    # the console (tui --diff BEFORE AFTER): the episodes, flipped first; enter opens its diff at the divergence
    app = DiffApp(diff_evals(before, after))
    async with app.run_test(size=(120, 40)):
        await drawn(app)  # what mounting posted (the episodes' list) is handled
        episodes = app.screen.query_one(OptionList)
        assert "vase-1" in str(episodes.get_option_at_index(0).prompt) and "flipped" in str(
            episodes.get_option_at_index(0).prompt)
        episodes.focus()
        await key_pressed(app, "enter")
        await drawn(app)  # the diff screen it opened, laid out
        screen = app.screen
        assert isinstance(screen, DiffScreen) and screen.diff.a.episode == "vase-1"
        rows = screen.query_one(DiffRows)
        assert rows.cursor == rows.marked
        assert f"» {HINT}" in str(screen.query_one("#diff-b").render())  # B's prompt line A's lacks
        await key_pressed(app, "escape")
        await drawn(app)
        assert app.screen.query_one(OptionList) is not None  # back at the episodes


def test_an_eval_against_a_session_is_refused_with_one_line(tmp_path: Path) -> None:
    result = recode(tmp_path, "diff", str(tmp_path / "nothing-here"), str(tmp_path / "nor-here"))
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "no session" in result.stderr
