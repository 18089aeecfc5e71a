"""`recode-tui eval` as a user runs it: a real process, real worker processes, real games."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from envs.alfworld.catalog import list_games
from mockllm.openai_server import OpenAICompatibleServer, script_responder, write_profiles

from .helpers import (HOLD_LIMIT, FirstEpisodes, HeldCalls, chosen_script, odd_games, profiles_file, read_report,
                      recode, start, toy_script)

pytestmark = pytest.mark.heavy  # starts engines in other processes: not in `make quick`


@pytest.mark.slow
def test_eval_over_all_bundled_games_counts_success_per_task_type(tmp_path):
    script, expected = chosen_script(tmp_path, odd_games())
    out = tmp_path / "all"
    result = recode(tmp_path, "eval", "--llm", f"scripted:{script}", "-c", "4", "--out", str(out), "--no-progress")
    assert result.returncode == 0, result.stderr
    report = read_report(out)
    assert report["status"] == "complete"
    assert len(report["episodes"]) == len(list_games()) == 60
    by_type = report["summary"]["by_task_type"]
    assert {t: s["successes"] for t, s in by_type.items()} == expected
    assert all(s["episodes"] == 10 for s in by_type.values())
    overall = report["summary"]["overall"]
    assert overall["successes"] == sum(expected.values()) and overall["errors"] == 0
    assert overall["success_rate"] == pytest.approx(sum(expected.values()) / 60)
    # one journal per episode, each a session the console can open
    journals = sorted(p.name for p in (out / "journals").iterdir())
    assert journals == sorted(g.id for g in list_games())
    won = next(e for e in report["episodes"] if e["success"])
    records = [json.loads(l) for l in (Path(won["journal"]) / "journal.jsonl").read_text().splitlines()]
    assert records[0]["game"] == won["game"] and records[-1] == {**records[-1], "type": "finished", "success": True}
    # the table: one row per task type and the overall row
    rows = {line.split("│")[1].strip(): line for line in result.stdout.splitlines() if line.count("│") > 5}
    assert set(rows) >= {"put", "clean", "heat", "cool", "examine", "puttwo", "overall"}
    assert f"{sum(expected.values()) / 60:.1%}" in rows["overall"]


def test_the_table_is_whole_when_the_output_goes_to_a_file_or_a_pipe(tmp_path, toy_env):
    out = tmp_path / "piped"  # the table is the same for every world: the toy one's gold paths fill it
    result = recode(tmp_path, "eval", "--env", "toy", "--llm", "gold", "--task-types", "put", "--games", "2", "-c", "1",
                    "--out", str(out))  # progress left on: stdout is a pipe, as in `... | tee log`
    assert result.returncode == 0, result.stderr
    header = next(line for line in result.stdout.splitlines() if "task type" in line)
    for name in ("episodes", "success", "mean steps", "LLM calls/ep", "tokens/ep", "cost/ep", "errors"):
        assert name in header, header
    assert "…" not in result.stdout


def test_journal_llm_replays_a_previous_evaluation(tmp_path, toy_env):
    script = toy_script(tmp_path, losers={"key-1"})  # the replay is the subject: the toy world plays it
    first, second = tmp_path / "first", tmp_path / "second"
    games = "vase-1,key-1,coin-1"
    assert recode(tmp_path, "eval", "--env", "toy", "--llm", f"scripted:{script}", "--games", games, "-c", "1",
                  "--out", str(first), "--no-progress").returncode == 0
    result = recode(tmp_path, "eval", "--env", "toy", "--llm", f"journal:{first}", "--games", games, "-c", "1",
                    "--out", str(second), "--no-progress")
    assert result.returncode == 0, result.stderr
    before = {e["game"]: (e["success"], e["steps"]) for e in read_report(first)["episodes"]}
    after = {e["game"]: (e["success"], e["steps"]) for e in read_report(second)["episodes"]}
    assert after == before and after["vase-1"][0] and not after["key-1"][0]


LATENCY = 0.05  # the local server's time per answer: on every call of four episodes, so kept short


def test_eval_through_the_local_openai_compatible_server(tmp_path, toy_env):
    # the model's wire and its accounting are the subject: the toy world plays the episodes
    with OpenAICompatibleServer(script_responder(str(toy_script(tmp_path))), latency=LATENCY) as server:
        out = tmp_path / "model"
        result = recode(tmp_path, "eval", "--env", "toy", "--llm", "profile:local", "--profiles",
                        str(profiles_file(tmp_path, server.base_url)), "--games", "4", "-c", "2",
                        "--out", str(out), "--no-progress")
    assert result.returncode == 0, result.stderr
    report = read_report(out)
    assert {e["task_type"] for e in report["episodes"]} == {"put", "take"}
    assert report["summary"]["overall"]["successes"] == 4
    served = [c for c in server.calls if c.status == 200]
    assert sum(e["llm_calls"] for e in report["episodes"]) == len(served)
    tokens = sum(c.prompt_tokens + c.completion_tokens for c in served)
    assert report["summary"]["overall"]["total_tokens"] == tokens
    cost = sum(c.prompt_tokens * 2.0 + c.completion_tokens * 8.0 for c in served) / 1e6
    assert report["summary"]["overall"]["total_cost"] == pytest.approx(cost)
    # the server's LATENCY per answer shows as the model's time per call
    per_call = report["summary"]["overall"]["mean_llm_seconds"]
    assert LATENCY <= per_call < 2.0, per_call
    assert all(e["llm_seconds"] >= LATENCY * e["llm_calls"] for e in report["episodes"])
    overall = next(line for line in result.stdout.splitlines() if "overall" in line)
    assert f"{per_call:.2f}" in [cell.strip() for cell in overall.split("│")]


def test_the_llm_server_going_away_stops_cleanly_and_resume_finishes(tmp_path, toy_env):
    out = tmp_path / "gone"
    # the model answers two episodes; the others wait in their first call until the server has gone away, then
    # get that answer and find nobody at their next call (four games: two finished, two cut mid-episode); the
    # evaluation's stop and resume are the subject: the toy world plays the episodes
    answers = script_responder(str(toy_script(tmp_path, nested=True)))  # two calls an episode
    held = HeldCalls(free=FirstEpisodes(2), respond=answers)
    server = OpenAICompatibleServer(held).start()
    profiles = profiles_file(tmp_path, server.base_url)
    process = start(tmp_path, "eval", "--env", "toy", "--llm", "profile:local", "--profiles", str(profiles),
                    "--games", "4", "-c", "2", "--out", str(out), "--no-progress")
    try:
        assert process.stdout is not None
        finished = 0
        for line in process.stdout:  # the server goes away once two episodes are reported
            finished += line.startswith(("won ", "failed "))
            if finished == 2:
                break
    finally:
        server.stop()
        held.release.set()
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 1, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr
    assert "cannot connect" in lines[0] and f"--resume {out}" in lines[0]
    report = read_report(out)
    assert report["status"] == "aborted" and len(report["episodes"]) == 2
    assert all(e["success"] for e in report["episodes"])  # nothing half-played is recorded as a result
    # the server comes back (on another port): resume plays only what is missing
    with OpenAICompatibleServer(answers) as again:
        profiles_file(tmp_path, again.base_url)
        result = recode(tmp_path, "eval", "--resume", str(out / "report.json"), "--profiles", str(profiles),
                        "--no-progress")
    assert result.returncode == 0, result.stderr
    report = read_report(out)
    assert report["status"] == "complete" and len(report["episodes"]) == 4
    assert len({e["game"] for e in report["episodes"]}) == 4 and report["summary"]["overall"]["successes"] == 4


def test_ctrl_c_writes_the_report_of_finished_episodes_and_resume_continues(tmp_path, toy_env):
    out = tmp_path / "cut"
    # the model answers one episode; the others wait in their first call, so Ctrl-C lands mid-run
    # (four games: one finished, one held, two never started, as many kinds as ten would give); the
    # evaluation's stop and resume are the subject: the toy world plays the episodes
    answers = script_responder(str(toy_script(tmp_path, nested=True)))  # two calls an episode
    held = HeldCalls(free=FirstEpisodes(1), respond=answers)
    with OpenAICompatibleServer(held) as server:
        # a held call's deadline outlasts the hold: however long the first episode takes, the others wait
        profiles = write_profiles(tmp_path / "profiles.yaml", server.base_url, max_retries=0, timeout=HOLD_LIMIT)
        process = start(tmp_path, "eval", "--env", "toy", "--llm", "profile:local", "--profiles", str(profiles),
                        "--games", "4", "-c", "2", "--out", str(out), "--no-progress")
        try:
            shown = []
            for line in process.stdout:  # Ctrl-C once the first episode is reported
                shown.append(line)
                if line.startswith(("won ", "failed ")):
                    break
            process.send_signal(signal.SIGINT)
            stdout, stderr = process.communicate(timeout=120)
        finally:
            held.release.set()
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr and len(stderr.strip().splitlines()) == 1
    assert "interrupted" in stderr and "--resume" in stderr
    report = read_report(out)
    assert report["status"] == "interrupted"
    finished = len(report["episodes"])
    assert finished == 1
    assert "overall" in stdout  # the table of what finished is still printed
    with OpenAICompatibleServer(answers) as again:
        profiles_file(tmp_path, again.base_url)
        result = recode(tmp_path, "eval", "--resume", str(out), "-c", "3", "--profiles", str(profiles), "--no-progress")
    assert result.returncode == 0, result.stderr
    assert f"evaluating {4 - finished} of 4 episodes" in result.stdout
    report = read_report(out)
    assert report["status"] == "complete" and len({e["game"] for e in report["episodes"]}) == 4


@pytest.mark.parametrize(
    "args, message",
    [
        (("--task-types", "cool", "--games", "put-01,put-02"), "no games match the filter"),
        (("--split", "valid_unseen"), "ALFWORLD_DATA"),
        (("-c", "0"), "-c/--concurrency must be 1 or more"),
        (("--games", "0"), "--games must be 1 or more"),
        (("--task-types", "dance"), "unknown task type"),
        (("--llm", "human"), "eval needs a model or a script"),
        (("--llm", "scripted:/no/such/file.yaml"), "cannot read script"),
        (("--llm", "journal:/no/such/dir"), "is not a folder"),
        (("--resume", "/no/such/report.json"), "no report at /no/such/report.json"),
        (("--node-timeout", "0"), "--node-timeout must be more than 0 seconds"),
        (("--preset", "fast"), "unknown --preset 'fast'; use one of: default, paper"),
        (("--max-steps", "-1"), "--max-steps must be 0 or more"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, monkeypatch, without_early_worker, args, message):
    monkeypatch.delenv("ALFWORLD_DATA", raising=False)
    full = ["eval", *args] if "--llm" in args or "--resume" in args else ["eval", "--llm", "demo", *args]
    result = recode(tmp_path, *full)
    assert result.returncode == 2, (args, result.stdout, result.stderr)
    assert message in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
