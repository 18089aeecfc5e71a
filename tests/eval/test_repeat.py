"""`eval --repeat N`: every episode played N times, tables that count episodes and plays apart with a
95 % interval over episodes, and `compare` weighing a change with a paired test."""

from __future__ import annotations

import importlib.util
import json

import pytest

from agent.eval.intervals import episode_interval, wilson_rate
from recode_tui.commands.cli import main

from .helpers import read_report, recode, toy_script
from tests.plans import eval_plan

pytestmark = pytest.mark.heavy  # real ALFWorld games, played by the command line


@pytest.mark.heavy  # eval starts environment workers and sandbox workers in other processes
def test_three_repeats_of_the_scripted_model_give_intervals_and_compare_weighs_them(tmp_path, capsys, toy_env):
    # the repeats and their statistics are the subject: the toy world plays them (a put won, a take lost, by
    # the bugged script; both won by the gold model)
    fixed, bugged = tmp_path / "fixed", tmp_path / "bugged"
    for out, llm in ((fixed, "gold"), (bugged, f"scripted:{toy_script(tmp_path, losers={'coin-1'})}")):
        result = recode(tmp_path, "eval", "--env", "toy", "--llm", llm, "--games", "vase-1,coin-1", "--repeat", "3",
                        "-c", "1", "--out", str(out), "--no-progress")
        assert result.returncode == 0, result.stderr
    out = result.stdout  # the bugged run's
    report = read_report(bugged)
    plays = [(e["game"], e["repeat"]) for e in report["episodes"]]
    assert sorted(plays) == [(g, r) for g in ("coin-1", "vase-1") for r in (1, 2, 3)]
    assert report["plan"]["repeat"] == 3 and all(e["seed"] is None for e in report["episodes"])  # a script: no seed
    journals = {e["journal"].rsplit("/", 1)[1] for e in report["episodes"]}
    assert journals == {f"{g}@r{r}" for g in ("coin-1", "vase-1") for r in (1, 2, 3)}  # one journal per play
    overall = report["summary"]["overall"]
    assert (overall["episodes"], overall["plays"], overall["success_rate"]) == (2, 6, 0.5)
    assert overall["repeat_rates"] == [0.5, 0.5, 0.5]
    low, high = overall["success_interval"]
    assert (round(low, 3), round(high, 3)) == (0.095, 0.905)  # Wilson over 2 episodes (1 won), not 6 plays
    assert "evaluating 6 of 6 plays (2 episodes x 3)" in out and "[9.5%, 90.5%]" in out  # the overall row's interval
    assert "│ overall   │        2 │     6 │" in out  # episodes and plays apart
    assert "repeats: every episode played 3 times" in out and "success per repeat: #1 50.0% (no seed)" in out
    assert "identical plays (recorded the same; scripted: deterministic)" in out

    assert main(["compare", str(bugged), str(fixed)]) == 0
    text = capsys.readouterr().out
    assert "repeats: each episode played 3 → 3 times" in text
    assert "[0.0%, 79.3%] → [20.7%, 100.0%]" in text  # take: one episode a side, however often played
    assert "+100.0 pt, p = 1.000" in text and "(noise)" not in text
    assert "success: McNemar's exact test: 0 won → lost, 1 lost → won: p = 1.000 (two-sided)" in text
    assert ("identical plays (recorded the same; scripted: deterministic; gold: deterministic): each episode's plays are one result "
            "repeated: the flip of coin-1 is reproducible, not noise") in text
    assert "lost → won (1):" in text and "coin-1" in text.split("lost → won (1):")[1]

    assert main(["compare", str(bugged), str(fixed), "--format", "markdown"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0] == "| Agent | put | take | overall |"
    assert rows[2].startswith("| recode (bugged) | 100.0 [20.7, 100.0] | 0.0 [0.0, 79.3] | 50.0 [9.5, 90.5] |")

    if importlib.util.find_spec("opentelemetry.sdk") is not None:  # the [otel] extra: every play its own trace
        spans_file = tmp_path / "spans.json"
        assert main(["export", str(bugged), "--otel", str(spans_file)]) == 0
        assert "spans of 6 episode(s)" in capsys.readouterr().err
        spans = json.loads(spans_file.read_text())["resourceSpans"][0]["scopeSpans"][0]["spans"]
        roots = [s for s in spans if "parentSpanId" not in s]
        assert len(roots) == 6 and {r["name"] for r in roots} == {"invoke_agent recode"}
        assert len({s["traceId"] for s in spans}) == 6


def report(folder, wins_per_repeat: list[set[str]]) -> str:
    """A repeated ALFWorld report of 10 put games: repeat r won the games in wins_per_repeat[r-1]."""
    games = [f"put-{i:02d}" for i in range(1, 11)]
    episodes = [{"game": g, "task_type": "put", "success": g in wins, "reason": "", "steps": 5, "llm_calls": 2,
                 "repeat": r, "journal": ""} for r, wins in enumerate(wins_per_repeat, 1) for g in games]
    folder.mkdir()
    (folder / "report.json").write_text(json.dumps(
        {"version": "recode.eval.v1", "plan": {"llm": "demo", "env": "alfworld", "agent": "recode",
                                               "repeat": len(wins_per_repeat), "games": [{"id": g} for g in games]},
         "episodes": episodes}))
    return str(folder)


def test_a_paired_change_of_many_episodes_gets_a_small_p_value(tmp_path, capsys):
    few = {"put-01"}
    most = {f"put-{i:02d}" for i in range(1, 10)}
    weak = report(tmp_path / "weak", [few, few, few])  # 1 of 10 episodes, in 3 of 30 plays
    strong = report(tmp_path / "strong", [most, most, most])  # 9 of 10 episodes
    assert main(["compare", weak, strong]) == 0
    text = capsys.readouterr().out
    # 8 episodes lost then won, none the other way: 2 / 2^8
    assert "success: McNemar's exact test: 0 won → lost, 8 lost → won: p = 0.008 (two-sided); unlikely to be chance" in text
    assert "[1.8%, 40.4%] → [59.6%, 98.2%]" in text  # Wilson over 10 episodes, not 30 plays
    assert "identical plays (recorded the same; demo: deterministic)" in text


def test_three_identical_plays_do_not_narrow_the_interval():
    one_play = episode_interval([1.0, 0.0, 1.0, 1.0])
    three_plays = episode_interval([3 / 3, 0 / 3, 3 / 3, 3 / 3])  # each episode's mean over its plays
    assert one_play == three_plays == wilson_rate(3 / 4, 4)
    assert episode_interval([]) is None


def test_wilson_intervals_stay_inside_0_and_1_and_widen_with_fewer_plays():
    assert wilson_rate(0.0, 0) is None
    low, high = wilson_rate(0.0, 3)
    assert low == 0.0 and 0.5 < high < 0.6
    narrow, wide = wilson_rate(0.5, 30), wilson_rate(0.5, 2)
    assert narrow[1] - narrow[0] < wide[1] - wide[0]
    assert wilson_rate(1.0, 4)[1] == 1.0


def test_resume_adds_repeats_to_a_finished_evaluation_and_refuses_fewer(tmp_path, capsys):
    import argparse

    from agent.eval.report import EvalReport
    from agent.eval.results import EpisodeResult, EpisodeSpec
    from recode_tui.commands.evaluate import _resumed_report
    from recode_tui.commands.parser import add_eval_parser

    folder = tmp_path / "ev"
    plan = eval_plan(llm="demo", games=[EpisodeSpec("put-01", "put"), EpisodeSpec("clean-01", "clean")])
    report = EvalReport(plan, [EpisodeResult("put-01", "put", True, ""), EpisodeResult("clean-01", "clean", False, "")],
                        status="complete")
    report.write(folder / "report.json")
    parser = argparse.ArgumentParser()
    add_eval_parser(parser.add_subparsers())
    args = parser.parse_args(["eval", "--resume", str(folder), "--repeat", "3"])
    resumed, _ = _resumed_report(args)
    assert [(g.id, r) for _, g, r in resumed.pending] == [("put-01", 2), ("clean-01", 2), ("put-01", 3),
                                                          ("clean-01", 3)]
    assert resumed.total == 6
    resumed.write(folder / "report.json")
    assert main(["eval", "--resume", str(folder), "--repeat", "2"]) == 2
    assert capsys.readouterr().err.strip() == ("recode-tui: error: --repeat 2: this evaluation already plays each "
                                               "episode 3 times; give 3 or more")
    assert main(["eval", "--resume", str(folder), "--repeat", "0"]) == 2
    assert "--repeat must be 1 or more" in capsys.readouterr().err


def test_a_sampling_model_gets_each_repeats_seed_and_a_greedy_one_the_same_request(tmp_path):
    from agent.eval.report import EvalReport
    from agent.eval.results import EpisodeSpec
    from agent.eval.executor import LocalExecutor
    from agent.llm.cache import CachedLLM, ResponseCache
    from recode_tui.setup.env_workers import EnvPool
    from agent.llm.openai_client import OpenAILLM
    from agent.llm.profiles import Profile

    plan = eval_plan(llm="profile:x", games=[EpisodeSpec("put-01", "put")], repeat=3)
    evaluation = LocalExecutor(EvalReport(plan), lambda game, agent: None, EnvPool)
    sampling = OpenAILLM(Profile(name="s", model="m", api_key="k", base_url="http://127.0.0.1:9/v1", temperature=0.7))
    greedy = OpenAILLM(Profile(name="g", model="m", api_key="k", base_url="http://127.0.0.1:9/v1"))

    second, seed, temperature = evaluation._for_repeat(sampling, 2)
    assert (seed, temperature, second.request("p")["seed"]) == (2, 0.7, 2) and "seed" not in sampling.request("p")
    same, seed, temperature = evaluation._for_repeat(greedy, 2)
    assert same is greedy and (seed, temperature) == (None, 0.0)  # nothing to draw: no seed, the same request
    cache = ResponseCache(tmp_path)
    assert CachedLLM(greedy, cache, repeat=1).key("p") == CachedLLM(greedy, cache, repeat=2).key("p")
    assert CachedLLM(second, cache, repeat=2).key("p") != CachedLLM(sampling, cache, repeat=1).key("p")
