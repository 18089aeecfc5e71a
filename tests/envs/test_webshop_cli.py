"""WebShop through the real command line: gold and demo runs, eval per category, the paper preset."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.agents.recode.examples import parse_example, split_examples
from agent.runtime.prompts import PromptSet
from mockllm.scripted import load_script
from recode_tui.commands.cli import main
from tests.envs.webshop_helpers import webshop  # noqa: F401 - the fixture

pytestmark = pytest.mark.heavy  # the WebShop store and its search engine


ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "mockllm" / "demos" / "webshop.yaml"


def test_run_with_gold_wins_and_the_journal_resumes(webshop, tmp_path, capsys):
    sessions = str(tmp_path / "sessions")
    assert main(["run", "--env", "webshop", "--game", "4", "--llm", "gold", "--quiet", "--sessions", sessions]) == 0
    assert capsys.readouterr().out.startswith("SUCCESS: won")
    [folder] = list(Path(sessions).iterdir())
    header = json.loads((folder / "journal.jsonl").read_text().splitlines()[0])
    assert (header["game"], header["run"]["env"]["name"], header["run"]["max_steps"]) == ("webshop:4", "webshop", 30)
    assert main(["run", "--resume", "--llm", "gold", "--env", "webshop", "--quiet", "--sessions", sessions]) == 0
    assert capsys.readouterr().out.startswith("SUCCESS: won")


def test_the_demo_is_the_few_shot_examples(webshop):
    examples = [parse_example(c, n) for n, c in split_examples(PromptSet().text("webshop/examples/shop.txt"))]
    script = load_script(DEMO)
    assert [(e.function, e.answer.strip()) for e in examples] == [(s.stub, s.answer.strip()) for s in script]


def test_eval_with_the_demo_wins_20_and_reports_per_category(webshop, tmp_path, capsys):
    out = tmp_path / "eval"
    code = main(["eval", "--env", "webshop", "--llm", "demo", "--games", "25", "-c", "1", "--no-progress",
                 "-o", str(out)])
    text = capsys.readouterr().out
    assert code == 0, text
    report = json.loads((out / "report.json").read_text())
    won = [e for e in report["episodes"] if e["success"]]
    assert len(won) >= 20 and all(e["score"] == 100.0 for e in won)
    assert all(e["score"] is not None for e in report["episodes"])  # the reward of every episode, x100
    for category in ("beauty", "electronics", "fashion", "food", "furniture", "overall"):
        assert category in text
    assert "mean score" in text


def test_the_paper_preset_on_the_bundled_catalogue_says_there_is_no_paper_set(webshop, tmp_path, capsys):
    code = main(["eval", "--env", "webshop", "--preset", "paper", "--llm", "demo", "--no-progress",
                 "-o", str(tmp_path / "eval")])
    err = capsys.readouterr().err
    assert code == 2 and "bundled WebShop catalogue has no paper set" in err and len(err.strip().splitlines()) == 1


def test_another_agents_demo_plays_webshop_with_its_own_script(webshop, capsys):
    """Each baseline agent has its own WebShop demo (`<agent>-webshop.jsonl`), no longer ALFWorld's."""
    assert main(["run", "--env", "webshop", "--game", "0", "--agent", "react", "--llm", "demo", "--quiet"]) == 0
    assert capsys.readouterr().out.startswith("SUCCESS: won")


def test_recodes_action_list_and_facts_are_the_ones_every_agent_shares():
    """ReCode's default set has no WebShop texts of its own: envs/webshop/actions.txt and facts.txt."""
    shared = ROOT / "envs" / "webshop"
    assert PromptSet().actions("webshop") == (shared / "actions.txt").read_text().strip()
    assert PromptSet().facts("webshop") == (shared / "facts.txt").read_text().strip()
