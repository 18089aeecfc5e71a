"""`compare` and the `eval` table at 80 columns: every column there, every cell whole, `put` apart from `puttwo`.

The reports are written by the evaluation's own `EvalReport.write`; the tables are the real commands' output
(`compare`, and `eval --resume` of a finished evaluation, which plays nothing and prints its table), through the
command line's `main` in this process.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent.eval.report import EvalReport
from agent.eval.results import EpisodeResult, EpisodeSpec
from tests.eval.helpers import run_main
from tests.plans import eval_plan

TYPES = ("put", "clean", "heat", "cool", "examine", "puttwo")
BOX = "│┃┏┗┡└┌"


def _report(folder: Path, wins: set[str], agents: tuple[str, ...] = ()) -> Path:
    games = [EpisodeSpec(f"{t}-0{i}", t) for t in TYPES for i in (1, 2)]
    plan = eval_plan(llm="demo", games=games, agents=list(agents), agent=(agents or ("recode",))[0])
    episodes = [EpisodeResult(g.id, g.task_type, g.id in wins, "" if g.id in wins else "reached the step limit",
                              steps=12, llm_calls=7, input_tokens=123456, output_tokens=23456, cost=0.01234,
                              seconds=123.4, llm_seconds=100.0, agent=agent)
                for agent in (agents or ("",)) for g in games]
    EvalReport(plan, episodes, status="complete").write(folder / "report.json")
    return folder


def _run(tmp_path: Path, columns: int, *args: str) -> str:
    """The command's output as a pipe `COLUMNS` wide would get it (in this process: the tables are the subject)."""
    env = dict(os.environ, COLUMNS=str(columns), RECODE_TUI_SESSIONS=str(tmp_path / "sessions"))
    result = run_main(list(args), env)
    assert result.returncode == 0, result.stderr
    return result.stdout


def _tables(out: str) -> list[list[str]]:
    """The printed tables, each as its lines (title, borders, rows)."""
    tables: list[list[str]] = []
    for line in out.splitlines():
        if line.startswith("┏"):
            tables.append([])
        if tables and line[:1] in BOX:
            tables[-1].append(line)
    return tables


def _headers(table: list[str]) -> list[str]:
    return [cell.strip() for cell in table[1].split("┃")[1:-1]]


def _labels(table: list[str], column: int = 0) -> list[str]:
    return [line.split("│")[1 + column].strip() for line in table if line.startswith("│")]


def _check_whole(out: str, columns: int, headers: list[str]) -> list[list[str]]:
    tables = _tables(out)
    assert tables, out
    for table in tables:
        assert all(len(line) <= columns for line in table), "\n".join(table)
    assert "…" not in out, out
    shown = [h for t in tables for h in _headers(t)]
    for header in headers:  # no column vanished
        assert header in shown, (header, shown)
    return tables


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> tuple[Path, Path, Path]:
    tmp = tmp_path_factory.mktemp("fit")
    return (_report(tmp / "a", {"put-01", "put-02", "puttwo-01"}),
            _report(tmp / "b", {"put-01", "clean-01", "puttwo-02", "heat-02"}),
            _report(tmp / "m", {"put-01"}, agents=("recode", "plan-execute")))


COMPARE_HEADERS = ["task type", "episodes", "success", "steps", "LLM calls", "tokens", "cost", "time"]


def test_compare_at_80_columns_splits_the_table_and_keeps_every_cell_whole(reports, tmp_path):
    a, b, _ = reports
    out = _run(tmp_path, 80, "compare", str(a), str(b))
    tables = _check_whole(out, 80, COMPARE_HEADERS)
    assert len(tables) > 1
    for table in tables:  # each part names its rows: put and puttwo apart
        assert [label for label in _labels(table) if label] == [*TYPES, "overall"]
    assert "100.0% → 50.0%" in out and "$0.0123 → $0.0123" in out


def test_compare_at_200_columns_is_one_table(reports, tmp_path):
    a, b, _ = reports
    out = _run(tmp_path, 200, "compare", str(a), str(b))
    tables = _check_whole(out, 200, COMPARE_HEADERS)
    assert len(tables) == 1 and _headers(tables[0]) == COMPARE_HEADERS


EVAL_HEADERS = ["agent", "task type", "episodes", "success", "rate", "mean steps", "LLM calls", "input tokens",
                "output tokens", "cost", "LLM s/call", "errors"]


@pytest.mark.parametrize("columns", [80, 200])
def test_the_eval_table_of_a_comparison_fits_the_width(reports, tmp_path, columns):
    _, _, multi = reports
    out = _run(tmp_path, columns, "eval", "--resume", str(multi), "--no-progress")
    tables = _check_whole(out, columns, EVAL_HEADERS)
    assert (len(tables) == 1) == (columns == 200)
    for table in tables:
        assert set(_labels(table, 1)) == {*TYPES, "overall"}
        assert set(_labels(table, 0)) == {"recode", "plan-execute"}


def test_the_one_agent_eval_table_fits_80_columns(reports, tmp_path):
    a, _, _ = reports
    out = _run(tmp_path, 80, "eval", "--resume", str(a), "--no-progress")
    _check_whole(out, 80, ["task type", "episodes", "success", "rate", "mean steps", "LLM calls/ep", "LLM s/call",
                           "tokens/ep", "cost/ep", "errors"])
