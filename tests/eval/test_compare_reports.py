"""`agent.eval.compare`: deltas, flips and settings from reports read through the report's loader."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from agent.eval.compare import compare_pair, compare_reports
from agent.eval.loaded_report import CompareError, LoadedReport, load_report
from agent.run.spec import PromptChoice, RunSpec
from agent.sessions.header import JOURNAL_VERSION, JournalHeader


def episode(game, task_type, success, steps=10, calls=4, tokens=(100, 20), cost=0.01, seconds=2.0, **extra):
    return {"game": game, "task_type": task_type, "success": success, "reason": "" if success else "task not done",
            "steps": steps, "llm_calls": calls, "input_tokens": tokens[0], "output_tokens": tokens[1],
            "cost": cost, "seconds": seconds, "journal": f"/evals/x/journals/{game}", **extra}


def report_json(episodes, llm="demo", **plan):
    return {"version": "recode.eval.v1", "plan": {"llm": llm, "env": "alfworld", "max_steps": 80, "preset": "default",
            "limits": {"max_depth": 10, "max_rewrite": 5}, "games": [{"id": e["game"]} for e in episodes], **plan},
            "episodes": episodes}


def report(episodes, llm="demo", **plan) -> LoadedReport:
    return LoadedReport.from_json(report_json(episodes, llm, **plan))


def test_a_report_in_a_shape_no_version_wrote_is_refused_in_one_line():
    """Episodes were always named by `game` and plans always listed `games` of ids: anything else is not a report."""
    with pytest.raises(CompareError, match=r"its `episodes\[0\].game` is missing; restore report.json"):
        LoadedReport.from_json({**report_json([]), "episodes": [{"episode": "put-01", "success": True}]})
    with pytest.raises(CompareError, match=r"its `plan.games\[0\]` is 'put-01', not an object"):
        LoadedReport.from_json({**report_json([]), "plan": {"llm": "demo", "games": ["put-01"]}})


def test_deltas_per_task_type_and_the_flipped_episodes():
    base = report([episode("clean-01", "clean", True, steps=8), episode("clean-02", "clean", True, steps=12),
                   episode("put-01", "put", False, steps=30, seconds=4.0)])
    fixed = report([episode("clean-01", "clean", False, steps=6), episode("clean-02", "clean", True, steps=12),
                    episode("put-01", "put", True, steps=10, cost=0.03, seconds=1.0)], llm="profile:new")
    result = compare_pair(base, fixed)
    assert result.same_episodes and result.common == ["clean-01", "clean-02", "put-01"]
    rows = {r.task_type: r for r in result.rows}
    assert rows["clean"].base["success"] == 1.0 and rows["clean"].other["success"] == 0.5
    assert rows["clean"].delta("success") == -0.5 and rows["clean"].delta("steps") == -1.0
    assert rows["put"].delta("steps") == -20 and rows["put"].delta("cost") == pytest.approx(0.02)
    assert rows["put"].delta("time") == -3.0 and rows["put"].delta("tokens") == 0
    assert rows["overall"].episodes == 3 and rows["overall"].delta("success") == 0
    assert [(f.episode, f.won_before) for f in result.won_to_lost] == [("clean-01", True)]
    assert [(f.episode, f.won_before) for f in result.lost_to_won] == [("put-01", False)]
    assert result.won_to_lost[0].other_journal == "/evals/x/journals/clean-01"
    assert result.won_to_lost[0].reason == "task not done"
    assert result.differences == [("model.llm", "demo", "profile:new")]
    assert "score" not in result.metrics  # neither report has one


def test_a_score_is_compared_when_the_reports_have_one_and_a_missing_score_is_not_zero():
    base = report([episode("a", None, False, score=0.25), episode("b", None, True)])
    other = report([episode("a", None, True, score=0.75), episode("b", None, True)])
    result = compare_pair(base, other)
    overall = result.rows[-1]
    assert overall.delta("score") == 0.5  # only `a` has a score: b is left out, not counted as 0
    assert overall.base["steps"] == 10
    assert result.rows[0].task_type == "?"


def test_settings_differences_are_listed_and_unrecorded_settings_are_not():
    base = report([episode("a", "put", True)])  # a plan from before it recorded its agent
    other = replace(report([episode("a", "put", True)], max_steps=50, preset="paper", agent="react",
                           limits={"max_rewrite": 5, "max_depth": 8}), journal_header=_journal("bbb"))
    names = [name for name, _, _ in base.settings().differences(other.settings())]
    assert names == ["preset", "max_steps", "limits.max_depth"]  # no agent nor prompt hash in the baseline: not a difference
    assert other.settings().get("agent.name") == "react" and base.report.plan.run.agent.name == "recode"
    base = replace(base, journal_header=_journal("aaa"))  # a journal without `agent` is ReCode's
    names = [name for name, _, _ in base.settings().differences(other.settings())]
    assert names == ["agent.name", "preset", "max_steps", "limits.max_depth", "prompts.hash"]


def _journal(prompt_hash: str) -> JournalHeader:
    """A journal's header that records only its prompt set's hash."""
    return JournalHeader(run=RunSpec(prompts=PromptChoice(hash=prompt_hash)))


def test_reports_that_cannot_be_compared_say_why():
    with pytest.raises(CompareError, match="no episode in common"):
        compare_pair(report([episode("a", "put", True)]), report([episode("b", "put", True)]))
    with pytest.raises(CompareError, match="no finished episodes"):
        compare_pair(report([episode("a", "put", True)]), report([]))
    with pytest.raises(CompareError, match="two reports or more"):
        compare_reports([report([])])


def test_only_the_common_episodes_count_and_the_rest_are_named():
    base = report([episode("a", "put", True), episode("b", "put", True)])
    other = report([episode("b", "put", False), episode("c", "put", True)])
    result = compare_pair(base, other)
    assert result.common == ["b"] and result.only_base == ["a"] and result.only_other == ["c"]
    assert not result.same_episodes and result.rows[-1].episodes == 1 and not result.unfinished


def test_load_report_refuses_what_is_not_a_report(tmp_path):
    (tmp_path / "notes.json").write_text("[1, 2]")
    (tmp_path / "broken.json").write_text("{")
    (tmp_path / "future.json").write_text(json.dumps({"version": "recode.eval.v7"}))
    for name, reason in (("notes.json", "not a recode-tui evaluation report"), ("broken.json", "is not JSON"),
                         ("future.json", "report version 'recode.eval.v7'"), ("missing", "no report at")):
        with pytest.raises(CompareError, match=reason):
            load_report(tmp_path / name)
    folder = tmp_path / "eval"
    (folder / "journals" / "a").mkdir(parents=True)
    (folder / "journals" / "a" / "journal.jsonl").write_text(json.dumps({"type": "session", "version": JOURNAL_VERSION,
                                                                          "run": {"prompts": {"hash": "h1"}}}) + "\n")
    moved = report_json([episode("a", "put", True)])  # its journal path points where the eval used to be
    (folder / "report.json").write_text(json.dumps(moved))
    loaded = load_report(folder)
    assert loaded.label == str(folder / "report.json") and loaded.settings().get("prompts.hash") == "h1"
    assert loaded.journal_path(loaded.episodes[0]) == str(folder / "journals" / "a")


def test_an_interrupted_report_names_what_it_planned_but_did_not_finish():
    base = report([episode("a", "put", True), episode("b", "put", True)])
    cut = report_json([episode("a", "put", False)])
    cut["plan"]["games"] = [{"id": "a"}, {"id": "b"}]
    cut["status"] = "interrupted"
    result = compare_pair(base, LoadedReport.from_json(cut))
    assert result.common == ["a"] and result.only_base == ["b"] and result.unfinished == {"b"}


def test_time_compares_only_episodes_no_side_replayed_from_the_cache_and_is_unknown_when_all_were():
    base = report([episode("clean-01", "clean", True, seconds=9.0), episode("put-01", "put", True, seconds=8.0)])
    replayed = report([episode("clean-01", "clean", True, seconds=0.1, cached_calls=4),
                       episode("put-01", "put", True, seconds=6.0)])
    result = compare_pair(base, replayed)
    rows = {r.task_type: r for r in result.rows}
    assert result.timed == 1 and rows["overall"].delta("time") == -2.0  # put-01 only: model time against model time
    assert rows["clean"].timed == 0 and rows["clean"].delta("time") is None
    everywhere = report([episode("clean-01", "clean", True, seconds=0.1, cached_calls=4),
                         episode("put-01", "put", True, seconds=0.1, cached_calls=4)])
    assert compare_pair(base, everywhere).time_unknown
