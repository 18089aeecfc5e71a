"""ScienceWorld from the command line: `run --llm gold` wins, the journal resumes, eval reports scores.

One process-wide JVM serves the in-process commands here (each start costs ~2 s);
eval adds one worker with its own.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agent.agents.recode.engine import Engine
from agent.runtime import events as ev
from agent.sandbox.settings import RunnerSettings
from envs import registry
from mockllm.scripted import ScriptedLLM, ScriptEntry
from recode_tui.commands.cli import main

pytestmark = [pytest.mark.heavy, pytest.mark.skipif(shutil.which("java") is None, reason="no Java runtime (.ci/run installs one)")]


def test_run_with_the_gold_llm_wins_and_the_journal_resumes(tmp_path, capsys) -> None:
    # find-animal/0: 16 gold actions (boil/0's 39 heat the world on every step; the console tests win boil/0)
    sessions = str(tmp_path / "sessions")
    assert main(["run", "--env", "sciworld", "--game", "find-animal/0", "--llm", "gold", "--quiet",
                 "--sessions", sessions]) == 0
    assert capsys.readouterr().out.startswith("SUCCESS: won")
    [folder] = list(Path(sessions).iterdir())
    header = json.loads((folder / "journal.jsonl").read_text().splitlines()[0])
    assert (header["game"], header["run"]["env"]["name"], header["episode"]) == (
        "sciworld:find-animal/0", "sciworld", "find-animal/0")
    assert header["fingerprint"] == registry.fingerprint("sciworld:find-animal/0")
    assert header["run"]["max_steps"] == registry.step_limit("sciworld:find-animal/0", 50, None)
    # The recording replays against the simulator to the same end.
    assert main(["run", "--resume", "--llm", "gold", "--env", "sciworld", "--quiet", "--sessions", sessions]) == 0
    assert capsys.readouterr().out.startswith("SUCCESS: won")


def test_gold_for_an_environment_without_gold_paths_is_one_line(capsys) -> None:
    assert main(["run", "--game", "put-01", "--llm", "gold", "--quiet"]) == 2
    assert capsys.readouterr().err.strip() == (
        "recode-tui: error: --llm gold: the alfworld environment has no gold paths; use demo, scripted:FILE or profile:NAME"
    )


async def test_a_negative_score_ends_the_run_saying_the_task_failed() -> None:
    plan = 'run("focus on door to kitchen")\nrun("look around")'
    llm = ScriptedLLM([ScriptEntry(f"<execute>\n{plan}\n</execute>", stub="solve(instruction, observation)")])
    runner = RunnerSettings().make_runner()
    agent = Engine(registry.make_env("sciworld:find-animal/0"), llm, runner)
    try:
        finished = await agent.run()
    finally:
        await agent.close()
    assert isinstance(finished, ev.RunFinished) and not finished.success
    assert finished.reason == "the task failed (negative score)" and finished.steps == 1


def test_eval_over_three_test_episodes_prints_per_task_rows_with_a_mean_score(tmp_path, capsys) -> None:
    out = tmp_path / "eval"
    code = main(["eval", "--env", "sciworld", "--split", "test", "--per-task", "1", "--task-types",
                 "find-animal,use-thermometer,lifespan-longest-lived", "--llm", "gold", "-c", "1", "--no-progress",
                 "-o", str(out)])
    text = capsys.readouterr().out
    assert code == 0, text
    assert "mean" in text and "score" in text
    for task in ("find-animal", "use-thermometer", "lifespan-longest-lived"):
        row = next(line for line in text.splitlines() if line.startswith(f"│ {task} "))
        assert "100.0%" in row and "100.0" in row.replace("100.0%", "")
    for topic in ("topic 2 Measurement", "topic 4 Classification", "topic 7 Biology (lifespans)"):
        row = next(line for line in text.splitlines() if line.startswith(f"│ {topic} "))  # the paper's topic groups
        assert "100.0%" in row
    report = json.loads((out / "report.json").read_text())
    assert report["plan"]["run"]["env"]["name"] == "sciworld" and report["plan"]["run"]["max_steps"] is None
    assert sorted(report["summary"]["by_topic"]) == ["2 Measurement", "4 Classification", "7 Biology (lifespans)"]
    assert sorted(g["id"].split("/")[0] for g in report["plan"]["games"]) == ["find-animal", "lifespan-longest-lived",
                                                                               "use-thermometer"]
    assert report["summary"]["overall"]["mean_score"] == 100.0
    assert all(e["score"] == 100 for e in report["episodes"])


def test_games_list_shows_the_30_tasks_with_variation_counts_and_a_split_lists_episodes(capsys) -> None:
    assert main(["games", "list", "--env", "sciworld"]) == 0
    header, *rows = capsys.readouterr().out.splitlines()
    assert header.split()[:4] == ["task", "train", "dev", "test"] and len(rows) == 30
    boil = next(r for r in rows if r.startswith("boil "))
    train, dev, test = (int(n) for n in boil.split()[1:4])
    assert min(train, dev, test) > 0 and "Matter" in boil
    assert main(["games", "list", "--env", "sciworld", "--split", "test", "--task-type", "boil"]) == 0
    episodes = capsys.readouterr().out.splitlines()
    assert len(episodes) == test and all(line.startswith("boil/") for line in episodes)
    assert main(["games", "list", "--env", "sciworld", "--task-type", "boiling"]) == 2
    assert "unknown ScienceWorld task 'boiling'" in capsys.readouterr().err


def test_sciworld_full_plays_without_the_simplifications_and_its_journal_resumes_so(tmp_path, capsys) -> None:
    sessions = str(tmp_path / "sessions")
    assert main(["run", "--env", "sciworld-full", "--game", "lifespan-longest-lived/0", "--llm", "gold", "--quiet",
                 "--sessions", sessions]) == 0
    assert capsys.readouterr().out.startswith("SUCCESS: won")
    [folder] = list(Path(sessions).iterdir())
    header = json.loads((folder / "journal.jsonl").read_text().splitlines()[0])
    assert (header["game"], header["run"]["env"]["name"]) == ("sciworld-full:lifespan-longest-lived/0", "sciworld-full")
    assert header["fingerprint"] != registry.fingerprint("sciworld:lifespan-longest-lived/0")
    journal = (folder / "journal.jsonl").read_text()
    assert "(that is closed)" in journal  # the observations of the full setting: doors start closed
    assert main(["run", "--resume", "--llm", "gold", "--quiet", "--sessions", sessions]) == 0  # no --env needed
    assert capsys.readouterr().out.startswith("SUCCESS: won")
