"""`recode-tui export` for every agent, each on a journal a scripted run wrote through the real CLI
and the real ALFWorld engine: `--sft` and `--markdown` for all five, `--tree` for ReCode only,
`--trace` (recode.trace.v1) for all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.sessions.export import TRACE_VERSION, validate_tree_document
from recode_tui.commands.cli import main
from tests.agents import scripts
from tests.agents import test_plan_execute as pe
from tests.agents import test_recap as rc
from tests.settings import node_code_in_process

pytestmark = pytest.mark.usefixtures("node_code_in_process")  # an export with --exec replays the code in-process

AGENTS = ["recode", "react", "codeact", "plan-execute", "recap"]


def script(tmp_path: Path, agent: str) -> str:
    """The --llm spec that wins put-01 with `agent` (Plan-and-Execute replans once on the way)."""
    if agent == "recode":
        return "demo"
    path = tmp_path / f"{agent}.jsonl"
    if agent == "react":
        return f"scripted:{scripts.react_script_file(path, ['put-01'])}"
    if agent == "codeact":
        answers = [("act", scripts.cell_answer(scripts.loop_cell(scripts.walkthrough("put-01"))))]
    elif agent == "plan-execute":
        first = pe.plan(("s1", "find the vase on the sofa and take it", []), ("s2", "put the vase on sidetable 1", ["s1"]))
        again = pe.plan(("s3", "take the vase from diningtable 1", []), ("s2", "put the vase on sidetable 1", ["s3"]))
        answers = [("plan", first), ("act", pe.turn("Action: go to sofa 1")), ("act", pe.turn("Failed: no vase here")),
                   ("replan", again), *pe.WIN_TURNS[:2], ("act", pe.turn("Done: holding vase 1")), *pe.WIN_TURNS[3:]]
    else:
        answers = list(rc.WIN)
    path.write_text("".join(json.dumps({"purpose": p, "answer": a, "once": True}) + "\n" for p, a in answers))
    return f"scripted:{path}"


@pytest.fixture(scope="module")
def sessions(tmp_path_factory) -> dict[str, tuple[Path, Path]]:
    """One won session per agent: agent -> (sessions folder, session folder)."""
    made = {}
    for agent in AGENTS:
        folder = tmp_path_factory.mktemp(agent.replace("-", "_"))
        with node_code_in_process():  # what the exports read is the journal, not where its code ran
            assert main(["run", "--agent", agent, "--llm", script(folder, agent), "--game", "put-01",
                         "--sessions", str(folder / "sessions"), "--quiet"]) == 0
        (session,) = (folder / "sessions").iterdir()
        made[agent] = (folder / "sessions", session)
    return made


def export(capsys, where: tuple[Path, Path], *flags: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["export", where[1].name, "--sessions", str(where[0]), *flags, *(["--exec"] if flags[0] != "--sft" else [])])
    out, err = capsys.readouterr()
    return code, out, err


def journal_records(session: Path) -> list[dict]:
    return [json.loads(line) for line in (session / "journal.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("agent", AGENTS)
def test_sft_pairs_of_every_agent_name_the_agent_and_the_role(agent, sessions, capsys) -> None:
    code, out, _ = export(capsys, sessions[agent], "--sft")
    assert code == 0
    pairs = [json.loads(line) for line in out.splitlines()]
    answers = [r for r in journal_records(sessions[agent][1]) if r.get("type") == "answer" and r.get("accepted")]
    assert len(pairs) == len(answers) >= 1
    for pair, record in zip(pairs, answers):
        assert pair["messages"] == [{"role": "user", "content": record["prompt"]},
                                    {"role": "assistant", "content": record["answer"]}]
        assert pair["meta"]["agent"] == agent and pair["meta"]["outcome"]["won"] is True
    roles = {p["meta"]["role"] for p in pairs}
    assert roles == ({"planner", "executor", "replanner"} if agent == "plan-execute" else {""})


@pytest.mark.parametrize("agent", AGENTS)
def test_markdown_of_every_agent_reads_as_that_agent(agent, sessions, capsys) -> None:
    code, out, _ = export(capsys, sessions[agent], "--markdown")
    assert code == 0
    assert f"- agent: `{agent}`" in out and "**Result:** won" in out
    assert "`> move vase 1 to sidetable 1` — You move the vase 1 to the sidetable 1." in out
    if agent in ("recode", "codeact"):
        assert "```python" in out
    else:
        assert "```python" not in out and "```text" in out
    if agent == "react":
        assert "**Answer for `n0`** (act; scripted)" in out and "  go to diningtable 1" in out
    if agent == "plan-execute":
        assert "**Answer for `n0`** (replan, replanner; scripted)" in out
        assert "**replan** at `n0`" in out and "  + s3: take the vase from diningtable 1" in out
        assert "  Failed: no vase here" in out  # an answer without blocks shows what was said
    if agent == "recap":
        assert "**re-injection** at `n0`" in out and "The subtask `find the vase and take it` returned" in out


@pytest.mark.parametrize("agent", AGENTS)
def test_tree_only_for_recode_and_a_versioned_trace_for_every_agent(agent, sessions, capsys) -> None:
    code, out, err = export(capsys, sessions[agent], "--tree")
    if agent == "recode":
        assert code == 0
        validate_tree_document(json.loads(out))
    else:
        assert code == 2 and out == ""
        assert f"is a {agent} run, which has no code tree: export it with --trace (recode.trace.v1)" in err
    code, out, _ = export(capsys, sessions[agent], "--trace")
    assert code == 0
    trace = json.loads(out)
    assert trace["version"] == TRACE_VERSION == "recode.trace.v1"
    meta = trace["meta"]
    assert meta["agent"] == agent and meta["success"] is True and meta["session"] == sessions[agent][1].name
    records = journal_records(sessions[agent][1])
    calls = [t for t in trace["trace"] if t["type"] == "llm_call"]
    answers = [r for r in records if r.get("type") == "answer"]
    assert [(c["prompt"], c["answer"], c["accepted"]) for c in calls] == [
        (r["prompt"], r["answer"], bool(r["accepted"])) for r in answers]
    assert sum(c["input_tokens"] for c in calls if c["accepted"]) == meta["input_tokens"]
    actions = [t for t in trace["trace"] if t["type"] == "action"]
    assert [(a["action"], a["observation"]) for a in actions] == [
        (r["action"], r["observation"]) for r in records if r.get("type") == "action"]
    assert len(actions) == meta["steps"] and actions[-1]["won"] and trace["trace"][-1]["type"] == "finished"
    nodes = {n["id"]: n for n in trace["nodes"]}
    assert trace["root_id"] in nodes and all(c["node_id"] in nodes for c in calls)
    notes = [t["label"] for t in trace["trace"] if t["type"] == "note"]
    assert notes == {"plan-execute": ["plan adopted", "replan"], "recap": ["re-injection"]}.get(agent, [])
    if agent == "plan-execute":
        assert {c["role"] for c in calls} == {"planner", "executor", "replanner"}
