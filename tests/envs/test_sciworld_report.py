"""ScienceWorld without a JVM: the eval table groups task types into its paper's 10 topics; step limits per setting."""

from __future__ import annotations

import io

from rich.console import Console

from agent.eval.summary import summarize
from agent.eval.report import EvalReport
from agent.eval.results import EpisodeResult, EpisodeSpec
from recode_tui.commands.eval_report import results_table
from recode_tui.commands.fit import print_layout
from tests.plans import eval_plan


def _episodes() -> list[EpisodeResult]:
    return [
        EpisodeResult("boil/21", "boil", True, "won", steps=40, score=100),
        EpisodeResult("melt/20", "melt", False, "step limit", steps=80, score=50),
        EpisodeResult("grow-plant/94", "grow-plant", False, "x", steps=9, score=10),
        EpisodeResult("lifespan-longest-lived/75", "lifespan-longest-lived", True, "won", steps=4, score=100),
    ]


def _table_text(report: EvalReport, width: int = 200) -> list[str]:
    out = io.StringIO()
    print_layout(Console(file=out, width=width, color_system=None), results_table(report))
    return out.getvalue().splitlines()


def test_sciworld_summaries_have_per_topic_rows_in_the_papers_order() -> None:
    summary = summarize(_episodes(), "sciworld")
    topics = summary["by_topic"]
    assert list(topics) == ["1 Matter", "5 Biology (growing plants)", "7 Biology (lifespans)"]
    matter = topics["1 Matter"]
    assert (matter["episodes"], matter["successes"], matter["mean_score"]) == (2, 1, 75.0)
    assert set(summary["by_task_type"]) == {"boil", "melt", "grow-plant", "lifespan-longest-lived"}  # still per task
    assert "by_topic" not in summarize(_episodes(), "alfworld") and "by_topic" not in summarize(_episodes())


def test_the_eval_table_shows_task_rows_then_topic_rows_then_overall() -> None:
    games = [EpisodeSpec(e.game, e.task_type) for e in _episodes()]
    lines = _table_text(EvalReport(eval_plan(llm="gold", games=games, env="sciworld"), _episodes(), status="complete"))
    labels = [line.split("│")[1].strip() for line in lines if line.startswith("│") and line.count("│") > 2]
    labels = [label for label in labels if label]
    assert labels[labels.index("boil"):] == [
        "boil", "melt", "grow-plant", "lifespan-longest-lived",
        "topic 1 Matter", "topic 5 Biology (growing plants)", "topic 7 Biology (lifespans)", "overall",
    ]
    matter = next(line for line in lines if "topic 1 Matter" in line)
    cells = [c.strip() for c in matter.split("│")[2:]]
    assert cells[:4] == ["2", "1", "50.0%", "75.0"]  # episodes, won, rate, mean score


def test_a_report_json_keeps_the_topic_summary(tmp_path) -> None:
    report = EvalReport(eval_plan(llm="gold", games=[], env="sciworld"), _episodes())
    assert set(report.to_dict()["summary"]["by_topic"]) == {"1 Matter", "5 Biology (growing plants)",
                                                            "7 Biology (lifespans)"}


def test_topic_labels_stay_whole_in_a_narrower_terminal() -> None:
    episodes = [EpisodeResult("find-animal/225", "find-animal", True, "won", steps=16, score=100),
                EpisodeResult("grow-plant/94", "grow-plant", False, "x", steps=9, score=10)]
    games = [EpisodeSpec(e.game, e.task_type) for e in episodes]
    text = "\n".join(_table_text(EvalReport(eval_plan(llm="gold", games=games, env="sciworld"), episodes), width=150))
    assert "topic 4 Classification" in text and "topic 5 Biology (growing plants)" in text


def test_sciworld_full_gives_the_tasks_whose_gold_paths_grow_without_simplifications_more_steps() -> None:
    from envs import registry

    from envs.sciworld.limits import step_limit

    easy = registry.step_limit("sciworld:mendelian-genetics-known-plant/0", 50, None)
    full = registry.step_limit("sciworld-full:mendelian-genetics-known-plant/0", 50, None)
    assert easy == step_limit("mendelian-genetics-known-plant") and full == step_limit("mendelian-genetics-known-plant", "none")
    assert full >= easy >= 200
    assert registry.step_limit("sciworld-full:boil/0", 50, None) == step_limit("boil", "none") >= 120
    assert registry.step_limit("sciworld-full:boil/0", 50, 7) == 7  # --max-steps wins
