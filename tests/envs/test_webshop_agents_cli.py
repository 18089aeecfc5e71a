"""Every agent on WebShop through the real command line: its demo wins, eval reports the mean score (reward x 100)
and success per category for each agent, and compare shows the same mean score as eval's report."""

from __future__ import annotations

import json
import re

import pytest

from recode_tui.commands.cli import main
from tests.envs.webshop_helpers import webshop  # noqa: F401 - the fixture

pytestmark = pytest.mark.heavy  # the WebShop store and its search engine


AGENTS = ["recode", "react", "codeact", "plan-execute", "recap"]
CATEGORIES = ("beauty", "electronics", "fashion", "food", "furniture")


def test_eval_of_every_agents_demo_wins_10_and_reports_mean_score_and_success_per_category(webshop, tmp_path,
                                                                                          capsys):
    out = tmp_path / "eval"
    code = main(["eval", "--env", "webshop", "--agent", ",".join(AGENTS), "--llm", "demo", "--games", "10",
                 "-c", "1", "--no-progress", "-o", str(out)])
    text = capsys.readouterr().out
    assert code == 0, text
    report = json.loads((out / "report.json").read_text())
    for agent in AGENTS:
        mine = [e for e in report["episodes"] if e["agent"] == agent]
        assert len(mine) == 10 and all(e["success"] and e["score"] == 100.0 for e in mine), agent
        for category in (*CATEGORIES, "overall"):  # a row per category with its success and mean score
            assert re.search(rf"│ {re.escape(agent)} +│ {category} +│ +\d+ │ +\d+ │ +100\.0% │ +100\.0 │", text), \
                (agent, category)
    assert "mean score" in text


def test_another_agents_demo_wins_a_webshop_run(webshop, capsys):
    for agent in ("react", "codeact", "plan-execute", "recap"):
        assert main(["run", "--env", "webshop", "--game", "33", "--agent", agent, "--llm", "demo", "--quiet"]) == 0
        assert capsys.readouterr().out.startswith("SUCCESS: won"), agent


def careless_react_script(path, provider, goals):
    """A ReAct script that buys the first product it finds without choosing options: some reward, rarely 1.0."""
    lines = []
    for goal in goals:
        instruction = provider.catalogue.goal(goal).instruction
        when = r"# Your task\nTask: " + re.escape(instruction) + r"\n"
        search = provider.gold_actions(goal)[0]
        env = provider.make_env(goal, 30)
        env.reset()
        product = re.search(r"\[SEP\] (B0[A-Z0-9]{8}) \[SEP\]", env.step(search)).group(1).lower()
        env.close()
        for action in (search, f"click[{product}]", "click[Buy Now]"):
            lines.append({"purpose": "act", "when": when, "once": True, "answer": f"Thought: go\nAction: {action}"})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_compare_shows_the_mean_score_eval_reported_per_category(webshop, tmp_path, capsys, monkeypatch):
    goals = [e.id for e in webshop.episodes()][:10]
    script = careless_react_script(tmp_path / "careless.jsonl", webshop, goals)
    reports = []
    for name, llm in (("demo", "demo"), ("careless", f"scripted:{script}")):
        out = tmp_path / name
        assert main(["eval", "--env", "webshop", "--agent", "react", "--llm", llm, "--games", "10", "-c", "1",
                     "--no-progress", "-o", str(out)]) == 0
        capsys.readouterr()
        reports.append(json.loads((out / "report.json").read_text()))
    assert main(["compare", str(tmp_path / "demo"), str(tmp_path / "careless")]) == 0
    table = capsys.readouterr().out
    assert "mean score" in table
    summaries = [summarize_agents_of(r) for r in reports]
    for category in (*CATEGORIES, "overall"):
        before = summaries[0][category]["mean_score"]
        after = summaries[1][category]["mean_score"]
        assert f"{before:.1f} → {after:.1f}" in table, (category, before, after)
    assert summaries[1]["overall"]["mean_score"] < 100.0  # the careless buyer loses reward


def summarize_agents_of(report):
    """The eval report's own summary: per category and overall, as eval printed it."""
    summary = report["summary"]
    return {**summary["by_task_type"], "overall": summary["overall"]}
