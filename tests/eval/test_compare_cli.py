"""`recode-tui compare` over real evaluations: a bugged script's eval against the fixed one.

Compare is the subject, not the engine: the evaluations play the toy world (tests/toyenv)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import read_report, recode, toy_script

pytestmark = pytest.mark.heavy  # starts engines in other processes: not in `make quick`

GAMES = "vase-1,coin-1,coin-2"


@pytest.fixture(scope="module")
def evals(tmp_path_factory, toy_module):
    """Two real evaluations of the same three toy episodes: a bugged script that loses both take episodes,
    then the gold model (fixed)."""
    tmp = tmp_path_factory.mktemp("compare")
    bugged, fixed = tmp / "bugged", tmp / "fixed"
    for out, llm in ((bugged, f"scripted:{toy_script(tmp, losers={'coin-1', 'coin-2'})}"), (fixed, "gold")):
        result = recode(tmp, "eval", "--env", "toy", "--llm", llm, "--games", GAMES, "-c", "1", "--out", str(out),
                        "--no-progress")
        assert result.returncode == 0, result.stderr
    return tmp, bugged, fixed


def rows(stdout: str) -> dict[str, str]:
    """Table rows by task type (the first line of each two-line row)."""
    found = {}
    for line in stdout.splitlines():
        cells = [c.strip() for c in line.split("│")]
        if len(cells) > 5 and cells[1]:
            found[cells[1]] = line
    return found


def test_compare_lists_the_flipped_episodes_with_their_journals_and_the_deltas(evals):
    tmp, bugged, fixed = evals
    assert {e["game"]: e["success"] for e in read_report(bugged)["episodes"]} == {
        "vase-1": True, "coin-1": False, "coin-2": False}
    result = recode(tmp, "compare", str(bugged / "report.json"), str(fixed))  # a file and a folder
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "episodes: the same 3 episodes" in out
    assert "settings differ:" in out and f"llm: scripted:{tmp / 'toy.jsonl'} → gold" in out
    lost_to_won = out.split("lost → won (2):", 1)[1]
    for game in ("coin-1", "coin-2"):
        assert game in lost_to_won
        for folder in (bugged, fixed):
            journal = folder / "journals" / game
            assert str(journal) in lost_to_won and (journal / "journal.jsonl").is_file()
    assert "won → lost (0)" in out and "vase-1" not in lost_to_won
    journal = fixed / "journals" / "coin-1"  # the hints name real paths, never placeholders
    assert f"recode-tui tui --resume {journal}; both side by side: recode-tui tui --diff " in lost_to_won
    assert "JOURNAL" not in out and "BASELINE_EVAL" not in out
    table = rows(out)
    assert "0.0% → 100.0%" in table["take"] and "100.0% → 100.0%" in table["put"]
    assert "33.3% → 100.0%" in table["overall"]
    for header in ("success", "steps", "LLM calls", "tokens", "cost", "time"):
        assert header in out


def test_the_baseline_comes_first_and_more_reports_are_each_compared_to_it(evals):
    tmp, bugged, fixed = evals
    result = recode(tmp, "compare", str(fixed), str(bugged), str(fixed))
    assert result.returncode == 0, result.stderr
    first, second = result.stdout.split("compared: ")[1:]
    assert "won → lost (2):" in first and "coin-1" in first.split("won → lost (2):")[1]
    assert "won → lost (0)" in second and "lost → won (0)" in second and "settings: the same" in second


def test_reports_that_cannot_be_compared_exit_non_zero_with_the_reason(evals, tmp_path):
    tmp, bugged, fixed = evals
    other = tmp_path / "other"
    assert recode(tmp_path, "eval", "--env", "toy", "--llm", "gold", "--games", "key-1", "--out", str(other),
                  "--no-progress").returncode == 0
    cases = [
        ((str(fixed), str(other)), "have no episode in common"),
        ((str(fixed), str(bugged / "journals" / "coin-1" / "journal.jsonl")), "is not JSON"),
        ((str(fixed), str(tmp / "toy.jsonl")), "is not JSON"),
        ((str(fixed), str(tmp_path / "nowhere")), "no report at"),
    ]
    for paths, reason in cases:
        result = recode(tmp_path, "compare", *paths)
        assert result.returncode == 2, result.stdout
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and reason in lines[0] and "Traceback" not in result.stderr, result.stderr
        assert result.stdout == ""
    report = Path(fixed / "report.json").read_text().replace('"recode.eval.v1"', '"recode.eval.v9"')
    (tmp_path / "future.json").write_text(report)
    result = recode(tmp_path, "compare", str(fixed), str(tmp_path / "future.json"))
    assert result.returncode == 2 and "report version 'recode.eval.v9'" in result.stderr
