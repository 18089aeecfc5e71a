"""`recode-tui eval --agent recode,react,codeact,plan-execute,recap`: the paper's comparison in one run,
against the local OpenAI-compatible server (real HTTP, the real openai client, real worker processes),
with per-agent and per-role token and cost sums checked against what the server counted. What a comparison
does with its reports and journals (resume, replay, compare) is the same on any world: those tests play the
toy one (tests/toyenv) with its gold paths, no ALFWorld engine in the workers."""

from __future__ import annotations

import json
import shutil

import pytest

from mockllm.demos.served import agent_of, demo_responder, role_of
from mockllm.openai_server import OpenAICompatibleServer

from .helpers import profiles_file, read_report, recode

pytestmark = pytest.mark.heavy  # starts engines in other processes: not in `make quick`

AGENTS = ["recode", "react", "codeact", "plan-execute", "recap"]
GAMES = 2  # episodes per agent, summed; the table's rows per task type are the toy comparison's below
PRICE_IN, PRICE_OUT = 2.0, 8.0  # per million tokens, as helpers.profiles_file writes them


def _rows(stdout: str) -> dict[tuple[str, str], list[str]]:
    """The table's rows by (agent, task type)."""
    rows = {}
    for line in stdout.splitlines():
        cells = [c.strip() for c in line.split("│")]
        if len(cells) > 10 and cells[1] in AGENTS:
            rows[(cells[1], cells[2])] = cells[1:-1]
    return rows


def test_five_agent_eval_against_the_local_server_sums_tokens_and_cost_per_agent_and_role(tmp_path):
    out = tmp_path / "five"
    with OpenAICompatibleServer(demo_responder()) as server:
        result = recode(tmp_path, "eval", "--agent", ",".join(AGENTS), "--llm", "profile:local", "--profiles",
                        str(profiles_file(tmp_path, server.base_url)), "--games", str(GAMES), "-c", "1",
                        "--out", str(out), "--no-progress")
    assert result.returncode == 0, result.stderr
    report = read_report(out)
    assert report["status"] == "complete" and len(report["episodes"]) == GAMES * len(AGENTS)
    assert report["plan"]["agents"] == AGENTS
    served = [c for c in server.calls if c.status == 200]
    assert all(agent_of(c.prompt) in AGENTS for c in served)
    rows = _rows(result.stdout)
    for agent in AGENTS:
        mine = [c for c in served if agent_of(c.prompt) == agent]
        overall = report["by_agent"][agent]["overall"]
        assert overall["episodes"] == GAMES
        assert overall["llm_calls"] == len(mine)
        assert overall["input_tokens"] == sum(c.prompt_tokens for c in mine)
        assert overall["output_tokens"] == sum(c.completion_tokens for c in mine)
        cost = sum(c.prompt_tokens * PRICE_IN + c.completion_tokens * PRICE_OUT for c in mine) / 1e6
        assert overall["total_cost"] == pytest.approx(cost)
        # the printed table: the agent's overall row shows the same sums
        row = rows[(agent, "overall")]
        assert row[6:9] == [str(len(mine)), str(overall["input_tokens"]), str(overall["output_tokens"])], row
        assert row[9] == f"${cost:.4f}" and row[-1] == "0"  # the whole row, to the errors column
        assert {t for a, t in rows if a == agent} == {"put", "clean", "overall"}  # `--games 2`: one of each of two types
        # each agent's journals apart, one per game
        assert len(list((out / "journals" / agent).iterdir())) == GAMES
        if agent != "recode":  # the walkthrough demos win every bundled game
            assert overall["successes"] == GAMES, (agent, overall)
    # Plan-and-Execute's roles costed apart, each as the server counted it
    roles = report["by_agent"]["plan-execute"]["roles"]
    assert set(roles) == {"planner", "executor"}
    for role, sums in roles.items():
        mine = [c for c in served if agent_of(c.prompt) == "plan-execute" and role_of(c.prompt) == role]
        assert sums["llm_calls"] == len(mine)
        assert sums["input_tokens"] == sum(c.prompt_tokens for c in mine)
        assert sums["output_tokens"] == sum(c.completion_tokens for c in mine)
        assert sums["cost"] == pytest.approx(
            sum(c.prompt_tokens * PRICE_IN + c.completion_tokens * PRICE_OUT for c in mine) / 1e6, abs=1e-5)
    assert "plan-execute planner: LLM calls" in result.stdout


def test_a_comparison_resumes_only_the_agent_game_pairs_it_has_not_played(tmp_path, toy_env):
    out = tmp_path / "cmp"
    agents = "react,plan-execute"
    first = recode(tmp_path, "eval", "--env", "toy", "--agent", agents, "--llm", "gold", "--games", "3", "-c", "1",
                   "--out", str(out), "--no-progress")
    assert first.returncode == 0, first.stderr
    # the comparison's table: each agent's rows by the world's own task types, then its overall row
    rows = _rows(first.stdout)
    for agent in ("react", "plan-execute"):
        assert {t: row[2] for (a, t), row in rows.items() if a == agent} == {"put": "2", "take": "1", "overall": "3"}
    # as if it had been cut after three episodes: drop the others and their journals
    report = read_report(out)
    kept, dropped = report["episodes"][:3], report["episodes"][3:]
    for episode in dropped:
        shutil.rmtree(episode["journal"])
    report.update(episodes=kept, status="interrupted")
    (out / "report.json").write_text(json.dumps(report))
    again = recode(tmp_path, "eval", "--resume", str(out), "--no-progress")
    assert again.returncode == 0, again.stderr
    assert "evaluating 3 of 6 episodes: react, plan-execute" in again.stdout
    report = read_report(out)
    pairs = sorted((e["agent"], e["game"]) for e in report["episodes"])
    assert len(pairs) == len(set(pairs)) == 6
    assert {a for a, _ in pairs} == {"react", "plan-execute"}
    assert all(e["success"] for e in report["episodes"])
    assert report["by_agent"]["react"]["overall"]["successes"] == 3
    # `compare DIR` sets each agent of the comparison against the first
    compared = recode(tmp_path, "compare", str(out))
    assert compared.returncode == 0, compared.stderr
    assert "plan-execute relative to react" in compared.stdout
    assert f"baseline: {out / 'report.json'} [react]" in compared.stdout


def test_a_comparison_replays_each_agents_own_journals(tmp_path, toy_env):
    first, second = tmp_path / "first", tmp_path / "second"
    args = ("--env", "toy", "--agent", "recap,plan-execute", "--games", "2", "-c", "1", "--no-progress")
    assert recode(tmp_path, "eval", "--llm", "gold", "--out", str(first), *args).returncode == 0
    result = recode(tmp_path, "eval", "--llm", f"journal:{first}", "--out", str(second), *args)
    assert result.returncode == 0, result.stderr
    before = {(e["agent"], e["game"]): (e["success"], e["llm_calls"]) for e in read_report(first)["episodes"]}
    after = {(e["agent"], e["game"]): (e["success"], e["llm_calls"]) for e in read_report(second)["episodes"]}
    assert after == before and all(won for won, _ in after.values())


def test_a_single_agent_report_keeps_its_shape(tmp_path, toy_env):
    out = tmp_path / "one"
    result = recode(tmp_path, "eval", "--env", "toy", "--agent", "react", "--llm", "gold", "--games", "2",
                    "-c", "1", "--out", str(out), "--no-progress")
    assert result.returncode == 0, result.stderr
    report = read_report(out)
    assert "by_agent" not in report and report["plan"]["agents"] == [] and report["plan"]["run"]["agent"]["name"] == "react"
    assert all("agent" not in e for e in report["episodes"])
    assert sorted(p.name for p in (out / "journals").iterdir()) == sorted(e["game"] for e in report["episodes"])


def test_comparing_an_unknown_agent_or_an_option_none_has_is_one_line(tmp_path, without_early_worker):
    bad = recode(tmp_path, "eval", "--agent", "recode,nope", "--llm", "demo", "--games", "1")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "nope" in bad.stderr
    bad = recode(tmp_path, "eval", "--agent", "react,recap", "--agent-option", "zzz=1", "--llm", "demo", "--games", "1")
    assert bad.returncode == 2 and "none of react, recap has this option" in bad.stderr


def test_compare_of_two_interrupted_comparisons_leaves_out_an_agent_with_nothing_finished(tmp_path, toy_env):
    """Cut before plan-execute finished anything, in both runs: react is still compared, the other named."""
    runs = []
    for name in ("a", "b"):
        out = tmp_path / name
        done = recode(tmp_path, "eval", "--env", "toy", "--agent", "react,plan-execute", "--llm", "gold",
                      "--games", "2", "-c", "1", "--out", str(out), "--no-progress")
        assert done.returncode == 0, done.stderr
        report = read_report(out)
        report.update(episodes=[e for e in report["episodes"] if e["agent"] == "react"], status="interrupted")
        (out / "report.json").write_text(json.dumps(report))
        runs.append(str(out))
    compared = recode(tmp_path, "compare", *runs)
    assert compared.returncode == 0, compared.stderr
    assert f"baseline: {runs[0]}/report.json [react]" in compared.stdout
    assert f"compared: {runs[1]}/report.json [react]" in compared.stdout
    left_out = [line for line in compared.stderr.splitlines() if "left out" in line]
    assert len(left_out) == 2 and all("[plan-execute] has no finished episode" in line for line in left_out)
