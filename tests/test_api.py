"""The public Python API (`recode_tui/api.py`, docs/api.md) as a researcher uses it: the page's examples
run as pasted, in a notebook's running event loop; the API and the command line give the same report and
the same journal for the same settings; bad input and bad files are one line.

Real parts: the ALFWorld engine, eval's environment worker processes, the sandboxed runner, the command
line's `main`, and the bundled OpenAI-compatible server on 127.0.0.1 answering the real `openai` client.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import re
import signal
import threading
from pathlib import Path
from typing import Awaitable, Callable

import pytest

from recode_tui import api
from recode_tui.setup.usage import UsageError

from .eval.helpers import recode

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "api.md"


def examples() -> list[str]:
    """The page's ```python blocks, in order."""
    return re.findall(r"^```python\n(.*?)^```$", PAGE.read_text(encoding="utf-8"), re.S | re.M)


def in_a_notebook(code: str, folder: Path, monkeypatch) -> str:
    """`code` run as a notebook cell runs it: in `folder`, while an event loop runs (Jupyter's); its output."""
    out = io.StringIO()

    async def cell() -> None:
        exec(compile(code, str(PAGE), "exec"), {"__name__": "__notebook__"})  # noqa: S102 - the page's own example

    monkeypatch.chdir(folder)
    with contextlib.redirect_stdout(out):
        in_a_running_loop(cell)
    return out.getvalue()


def in_a_running_loop(cell: Callable[[], Awaitable[None]]) -> None:
    """`cell` awaited as Jupyter's kernel awaits a cell: on a loop that runs while the cell's code does, with
    Python's own Ctrl-C handler (the kernel's stop button raises KeyboardInterrupt in the running code)."""
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(cell())
    finally:
        loop.close()


def played(report: api.EvalReport) -> list[tuple[str, str, bool, str, int, int]]:
    return sorted((e.agent, e.game, e.success, e.reason, e.steps, e.llm_calls) for e in report.episodes)


@pytest.fixture
def sessions(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "sessions"
    monkeypatch.setenv("RECODE_TUI_SESSIONS", str(folder))
    return folder


@pytest.mark.heavy  # eval's environments run in worker processes
def test_the_pages_example_runs_in_a_notebook_and_gives_the_report_eval_gives(tmp_path, sessions, monkeypatch):
    first = examples()[0]
    printed = in_a_notebook(first, tmp_path, monkeypatch)
    assert "complete - 4 episodes" in printed
    assert "recode: 2 of 2 won, 100% (95% interval 34% to 100% over 2 episodes)" in printed
    assert "react: 2 of 2 won, 100%" in printed
    opened = api.read_report(tmp_path / "evals" / "recode-vs-react").episodes[0]  # none failed: the first one
    assert re.search(rf"^{opened.agent} {opened.game} won$", printed, re.M)
    assert re.search(r"^\s+1 go to ", printed, re.M)  # the journal's first action

    # `recode-tui eval` with the example's flags: the same plan, the same episodes, the same results
    command = tmp_path / "command"
    done = recode(tmp_path, "eval", "--llm", "demo", "--agent", "recode,react", "--games", "2", "-c", "2",
                  "--out", str(command), "--no-progress")
    assert done.returncode == 0, done.stderr
    from_api, from_command = api.read_report(tmp_path / "evals" / "recode-vs-react"), api.read_report(command)
    assert from_api.plan.to_dict() == from_command.plan.to_dict()
    assert played(from_api) == played(from_command)
    assert api.success_rates(from_api) == api.success_rates(from_command)


@pytest.mark.heavy
def test_the_pages_model_server_example_runs_over_the_wire(tmp_path, sessions, monkeypatch):
    served = examples()[1]
    printed = in_a_notebook(served, tmp_path, monkeypatch)
    report = api.read_report(tmp_path / "evals" / "served")
    assert report.plan.run.model.llm == "profile:local" and report.plan.agents == ["recode", "react"]
    assert [line.split()[:2] for line in printed.splitlines()] == [["recode", "100%"], ["react", "100%"]]
    assert all(e.input_tokens > 0 and not e.error for e in report.episodes)


@pytest.mark.heavy
def test_stopping_a_notebooks_evaluation_keeps_its_report_and_resume_plays_the_rest(tmp_path, sessions, toy_env):
    notebook = threading.get_ident()
    out = tmp_path / "stopped"

    def stop_button(result) -> None:  # the person stops the cell once the first episode is in
        signal.pthread_kill(notebook, signal.SIGINT)

    async def cell() -> None:  # the stop and the resume are the subject: the toy world's four episodes
        api.evaluate(env="toy", llm="gold", games=4, concurrency=1, out=out, on_result=stop_button)

    with pytest.raises(KeyboardInterrupt):
        in_a_running_loop(cell)
    stopped = api.read_report(out)
    assert stopped.status == "interrupted" and 1 <= len(stopped.episodes) < 4
    finished = api.evaluate(resume=out)
    assert finished.status == "complete" and len(finished.episodes) == 4
    assert [e.game for e in finished.episodes[:len(stopped.episodes)]] == [e.game for e in stopped.episodes]


def test_run_episode_writes_the_journal_run_writes_and_resume_and_diff_read_it(tmp_path, sessions,
                                                                              node_code_in_process):
    outcome = api.run_episode("put-01", llm="demo", sessions=sessions)
    assert outcome.success and outcome.reason == "won" and outcome.agent == "recode"
    journal = api.read_journal(outcome.journal)
    assert journal.header.game == "put-01" and journal.header.run.model.llm == "demo"
    by_id, latest = api.read_journal(outcome.journal.name, sessions=sessions), api.read_journal()
    assert by_id.records == latest.records == journal.records  # `--resume`'s ways of naming a session
    assert journal.finished["success"] and journal.finished["steps"] == outcome.steps
    assert outcome.tokens == journal.finished["input_tokens"] + journal.finished["output_tokens"] > 0

    done = recode(tmp_path, "run", "--game", "put-01", "--llm", "demo", "--quiet")
    assert done.returncode == 0, done.stderr
    command = next(p for p in sessions.iterdir() if p != outcome.journal)
    diff = recode(tmp_path, "diff", str(outcome.journal), str(command), "--width", "100")
    assert diff.returncode == 0, diff.stderr
    assert "the two runs are the same" in diff.stdout

    resumed = recode(tmp_path, "run", "--resume", outcome.journal.name, "--quiet")  # the recorded LLM goes on
    assert resumed.returncode == 0, resumed.stderr
    assert f"won — {outcome.steps} steps" in resumed.stdout


def test_run_episode_takes_an_llm_object_and_plays_without_a_journal(sessions, node_code_in_process):
    from mockllm.scripted import ScriptedLLM
    from recode_tui.setup.build import DEMO_SCRIPT

    outcome = api.run_episode("put-01", llm=ScriptedLLM.from_file(str(DEMO_SCRIPT)), journal=False)
    assert outcome.success and outcome.journal is None
    assert not sessions.exists()  # nothing written


def test_bad_settings_are_the_command_lines_one_line_errors(sessions):
    with pytest.raises(UsageError, match=r"^-c/--concurrency must be 1 or more$"):
        api.evaluate(llm="demo", concurrency=0)
    with pytest.raises(UsageError, match=r"^eval needs --llm"):
        api.evaluate(games=2)
    with pytest.raises(UsageError) as unknown:
        api.run_episode("put-01", llm="demo", agent="nosuch")
    assert "nosuch" in str(unknown.value) and "\n" not in str(unknown.value)
    with pytest.raises(UsageError, match=r"^--llm human: a person answers"):
        api.run_episode("put-01", llm="human")
    assert not sessions.exists()  # refused before anything ran


def test_a_file_that_is_no_report_or_journal_is_one_line(tmp_path):
    cut = tmp_path / "cut" / "report.json"
    cut.parent.mkdir()
    cut.write_text('{"version": "recode.eval.v1", "plan": {"llm": "demo", "ga')
    bad_field = tmp_path / "bad" / "report.json"
    bad_field.parent.mkdir()
    bad_field.write_text(json.dumps({"version": "recode.eval.v1", "plan": {"llm": 5, "games": []}, "episodes": []}))
    for given, says in ((cut.parent, "is not JSON"), (bad_field, "report"), (tmp_path / "none", "no report at")):
        with pytest.raises(ValueError) as caught:
            api.read_report(given)
        assert says in str(caught.value) and "\n" not in str(caught.value)
    garbage = tmp_path / "session" / "journal.jsonl"
    garbage.parent.mkdir()
    garbage.write_text("not a journal\n")
    with pytest.raises(ValueError, match="is not a recode-tui journal") as caught:
        api.read_journal(garbage.parent)
    assert "\n" not in str(caught.value)
    with pytest.raises(ValueError, match=r"^no session 'gone' in .*; see `recode-tui sessions list`$"):
        api.read_journal("gone", sessions=tmp_path)
