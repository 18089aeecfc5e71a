"""`export --sft` fit for training, over journals recorded by real runs: a demo run, an eval, a person's fork."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.sessions.journal_read import read_journal
from agent.sessions.session import branch_session, fork_at_answer
from envs.registry import make_env
from mockllm.chosen import ChosenAnswerLLM
from recode_tui.setup.build import make_llm

from .bugged import CLEAN_STUB, bugged_script, fixed_clean_answer
from .helpers import read_report, recode

pytestmark = pytest.mark.heavy  # starts engines in other processes: not in `make quick`

GAMES = "put-01,clean-01,clean-02"


def pairs(result) -> list[dict]:
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def applied(folder: Path) -> int:
    return sum(r.get("type") == "answer" and bool(r.get("accepted")) for r in read_journal(folder).records)


@pytest.fixture(scope="module")
def bugged_eval(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("export")
    out = tmp / "bugged"
    result = recode(tmp, "eval", "--llm", f"scripted:{bugged_script(tmp)}", "--games", GAMES, "-c", "1",
                    "--out", str(out), "--no-progress")
    assert result.returncode == 0, result.stderr
    return tmp, out


def test_a_demo_runs_pairs_carry_outcome_author_and_no_parent(tmp_path):
    sessions = tmp_path / "sessions"
    run = recode(tmp_path, "run", "--llm", "demo", "--game", "clean-01", "--sessions", str(sessions), "--quiet")
    assert run.returncode == 0, run.stderr
    lines = pairs(recode(tmp_path, "export", "--sft", "--sessions", str(sessions)))
    (session,) = list(sessions.iterdir())
    assert len(lines) == applied(session) == 5
    for line in lines:
        meta = line["meta"]
        assert meta["outcome"] == {"won": True, "reason": meta["outcome"]["reason"]}
        assert meta["author"] == "model" and meta["source"] == "demo" and meta["parent"] is None
        assert meta["game"] == "clean-01" and meta["task_type"] == "clean" and not meta["inherited"]
        assert [m["role"] for m in line["messages"]] == ["user", "assistant"]
    assert len(pairs(recode(tmp_path, "export", "--sft", "--won-only", "--sessions", str(sessions)))) == 5
    none = recode(tmp_path, "export", "--sft", "--corrected-only", "--sessions", str(sessions))
    assert none.returncode == 0 and none.stdout == "" and "no answer passes the filter" in none.stderr


def test_an_eval_folder_exports_every_episode_and_won_only_keeps_the_winners(bugged_eval):
    tmp, out = bugged_eval
    journals = [Path(e["journal"]) for e in read_report(out)["episodes"]]
    result = recode(tmp, "export", str(out), "--sft")
    lines = pairs(result)
    assert len(lines) == sum(applied(j) for j in journals) > 0
    assert {line["meta"]["session"] for line in lines} == {"put-01", "clean-01", "clean-02"}
    assert f"from 3 episode journal(s) of {out}" in result.stderr
    lost = [l for l in lines if l["meta"]["game"] == "clean-01"]
    assert lost and all(l["meta"]["outcome"] == {"won": False, "reason": "no pending nodes left and the task is not done"}
                        for l in lost)
    winners = pairs(recode(tmp, "export", str(out / "report.json"), "--sft", "--won-only"))
    assert {l["meta"]["game"] for l in winners} == {"put-01"}
    assert len(winners) == applied(out / "journals" / "put-01")
    refused = recode(tmp, "export", str(out), "--tree")
    assert refused.returncode == 2 and "is an evaluation: export it with --sft" in refused.stderr
    flags = recode(tmp, "export", str(out), "--markdown", "--won-only")
    assert flags.returncode == 2 and "add --sft" in flags.stderr


async def test_a_persons_fix_in_a_fork_is_the_one_corrected_pair_and_names_its_parent(bugged_eval):
    tmp, out = bugged_eval
    episode = out / "journals" / "clean-01"
    clean = next(r for r in read_journal(episode).records if r.get("type") == "answer" and r["stub"] == CLEAN_STUB)
    sessions = tmp / "sessions"
    fix = fixed_clean_answer()
    model = make_llm(f"scripted:{tmp / 'bugged.yaml'}", None)  # the rest of the episode: the same bugged model
    fork, _ = await branch_session(episode, fork_at_answer(clean["node_id"]), ChosenAnswerLLM(fix, "human", model),
                                   make_env, sessions, f"fork at {clean['node_id']}")
    try:
        finished = await fork.agent.run()
    finally:
        await fork.agent.close()
        fork.writer.close()
    assert finished.success  # the person's fix wins the episode the bugged model lost
    corrected = pairs(recode(tmp, "export", str(fork.folder), "--sft", "--corrected-only"))
    assert len(corrected) == 1
    (pair,) = corrected
    assert pair["messages"][1]["content"] == fix and pair["meta"]["author"] == "person"
    assert pair["meta"]["outcome"]["won"] is True and pair["meta"]["inherited"] is False
    assert pair["meta"]["parent"]["session"] == "clean-01" and pair["meta"]["stub"] == CLEAN_STUB
    assert "# Current function to expand" in pair["messages"][0]["content"]
    whole = pairs(recode(tmp, "export", str(fork.folder), "--sft", "--won-only"))
    inherited = [p for p in whole if p["meta"]["inherited"]]
    assert inherited and all(p["meta"]["author"] == "model" for p in inherited)  # copied from the eval's episode
    assert len(whole) == applied(fork.folder)
    # the eval's own episode is untouched: still lost, so --won-only leaves it out
    assert {l["meta"]["game"] for l in pairs(recode(tmp, "export", str(out), "--sft", "--won-only"))} == {"put-01"}
