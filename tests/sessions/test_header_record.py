"""The journal header is one typed record: read through its loader, never by string key elsewhere.

A reader that picks fields out of the header dict decides its own default for old journals (one
said "alfworld", another "env", a third None); these tests keep every reader on `JournalHeader`
and check the loader's defaults and its one-line refusals.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agent.run.spec import AgentChoice, EnvChoice, ModelChoice, PromptChoice, RunSpec
from agent.runtime.limits import Limits
from agent.sandbox.settings import RunnerSettings
from agent.sessions.header import JOURNAL_VERSION, HeaderError, JournalHeader, SessionParent, load_header
from agent.sessions.journal_read import JournalError, read_journal
from agent.sessions.listing import list_sessions
from recode_tui.commands.cli import main

ROOT = Path(__file__).resolve().parents[2]
KEYED_READ = re.compile(r"header\[|header\.get\(")


def test_no_module_reads_the_header_by_key() -> None:
    found = [f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
             for package in ("agent", "recode_tui", "envs", "mockllm")
             for path in sorted((ROOT / package).rglob("*.py"))
             if path != ROOT / "agent" / "sessions" / "header.py"
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
             if KEYED_READ.search(line)]
    assert found == []


def _header(**fields: object) -> dict[str, object]:
    return {"type": "session", "version": JOURNAL_VERSION, **fields}


def _v1_header(**fields: object) -> dict[str, object]:
    """A header as the previous release wrote it: its settings flat beside the episode's fields."""
    return {"type": "session", "version": "recode.journal.v1", **fields}


def test_an_old_header_gets_the_defaults_of_its_time() -> None:
    """Before the environment seam: no env, episode or fingerprint; before the agent seam: no agent."""
    header = JournalHeader.from_json(_v1_header(game="put-01", game_path="/old/put-01.tw-pddl", game_hash="abc",
                                                max_steps=80, limits={"max_depth": 3}, prompt_set="/p", llm="demo"))
    assert (header.run.env.name, header.run.agent.name, header.episode_ref, header.episode_name) == (
        "alfworld", "recode", "/old/put-01.tw-pddl", "put-01")
    assert header.run.limits == Limits(max_depth=3) and header.run.runner.seed is None
    assert header.run.runner.node_timeout == 5.0 and header.run.prompts.path == "/p" and header.run.model.llm == "demo"
    assert header.parent is None and not header.recorded_unchecked


def test_what_the_writer_writes_reads_back_the_same() -> None:
    run = RunSpec(agent=AgentChoice("react", {"k": 1}), preset="paper", max_steps=15, limits=Limits(max_retry=2),
                  prompts=PromptChoice("/p", "h", {"a.md": "1"}),
                  model=ModelChoice("profile:x", "x", "/x.toml", "m"),
                  runner=RunnerSettings(trusted=True, node_timeout=3.0, seed=7),
                  env=EnvChoice("webshop", {"webshop_pages": "recode"}))
    header = JournalHeader(game="webshop:3", episode="3", fingerprint="f", task_type="buy", run=run,
                           parent=SessionParent("s", 4, "fork n1"), extra={"webshop_x": "y"}, created=12.5,
                           session_id="s-1")
    line = json.loads(json.dumps(header.to_json()))
    assert line["webshop_x"] == "y" and line["run"]["env"]["options"] == {"webshop_pages": "recode"}
    assert line["parent"] == {"session": "s", "records": 4, "at": "fork n1", "folder": None}
    assert JournalHeader.from_json(line) == header


@pytest.mark.parametrize("field, value, said", [
    ("max_steps", "eighty", "`run.max_steps` is 'eighty', not a whole number"),
    ("limits", {"max_depth": True}, "`run.limits.max_depth` is True, not a whole number"),
    ("trusted", "yes", "`run.runner.trusted` is 'yes', not true or false"),
    ("agent_options", [1], "`run.agent.options` is [1], not an object"),
])
def test_a_bad_field_is_refused_in_one_line_that_says_what_to_do(field: str, value: object, said: str) -> None:
    """A previous release's header is upgraded first; what it held is checked where the record keeps it."""
    with pytest.raises(HeaderError) as caught:
        JournalHeader.from_json(_v1_header(**{field: value}))
    message = str(caught.value)
    assert said in message and "restore it from a copy or start a new run" in message and "\n" not in message


def test_a_corrupt_header_names_the_journal_and_the_listing_marks_it(tmp_path, capsys) -> None:
    folder = tmp_path / "s1"
    folder.mkdir()
    (folder / "journal.jsonl").write_text(json.dumps(_v1_header(game="put-01", max_steps=[80])) + "\n")
    with pytest.raises(JournalError, match=r"journal .*s1/journal.jsonl line 1: the session header's `run.max_steps`"):
        read_journal(folder)
    [listed] = list_sessions(tmp_path)
    assert listed.problem.startswith("line 1: the session header's `run.max_steps` is [80]")
    assert main(["sessions", "list", "--sessions", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "start a new run" in err
    assert "--from-last-good" not in err  # no good point before the header to go on from


def test_the_header_alone_is_read_from_the_first_line(tmp_path) -> None:
    """`compare` needs a run's header only: a later corrupt line does not hide it; a missing file is one line."""
    file = tmp_path / "journal.jsonl"
    file.write_text(json.dumps(_header(game="put-01", run={"prompts": {"hash": "h1"}})) + "\nnot json\n")
    assert load_header(file).run.prompts.hash == "h1"
    with pytest.raises(HeaderError, match=r"^cannot be read \(No such file or directory\); check the path$"):
        load_header(tmp_path / "gone.jsonl")


@pytest.mark.parametrize("name", [f.name for f in __import__("dataclasses").fields(JournalHeader)
                                  if f.name not in ("extra", "version")])
def test_every_header_field_is_checked_by_its_type_with_no_reader_written_for_it(name: str) -> None:
    """The header's fields are read by their annotations: a field added to `JournalHeader` is checked (and
    read back) with no new code; a value of the wrong kind is refused naming it."""
    wrong = [["not", "this"]] if name not in ("run", "parent") else ["a list"]
    with pytest.raises(HeaderError) as caught:
        JournalHeader.from_json(_header(**{name: wrong[0]}))
    assert f"`{name}` is " in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("walls", [[{"a": 1}], [3, "seccomp"], [["landlock"]]], ids=["object", "number", "list"])
def test_a_crafted_sandbox_wall_list_is_one_line_not_a_crash(walls: list) -> None:
    """The record's sets (the sandbox's walls) hold texts: anything else in a crafted journal is refused by name,
    in one line, before a set is built of it (an object in a set was a TypeError)."""
    data = JournalHeader().to_json()
    data["run"]["runner"]["sandbox"]["walls"] = walls
    with pytest.raises(HeaderError, match=r"run\.runner\.sandbox\.walls\[\d\]` is .*, not text; .*restore it"):
        JournalHeader.from_json(json.loads(json.dumps(data)))


def test_the_sandbox_walls_are_written_as_a_sorted_list_and_read_back_as_the_same_set() -> None:
    header = JournalHeader()
    data = json.loads(json.dumps(header.to_json()))
    assert data["run"]["runner"]["sandbox"]["walls"] == sorted(header.run.runner.sandbox.walls)
    assert JournalHeader.from_json(data).run.runner.sandbox == header.run.runner.sandbox
