"""A plug-in environment's own step limit (`default_max_steps`) is the one its episodes run with."""

from __future__ import annotations

import json

import pytest

from agent.sessions.journal_read import read_journal
from recode_tui.commands.cli import main
from tests.toyenv.world import DEFAULT_MAX_STEPS


@pytest.fixture(autouse=True)
def toy(toy_env):
    return toy_env


def looping_script(tmp_path):
    """An LLM that only ever looks around: the episode can end only at its step limit."""
    path = tmp_path / "look.yaml"
    path.write_text("answers:\n  - answer: 'Action: look'\n    purpose: act\n")
    return path


def test_a_run_on_the_toy_world_stops_at_its_own_limit_not_the_presets(tmp_path, capsys):
    assert DEFAULT_MAX_STEPS == 30
    sessions = tmp_path / "sessions"
    code = main(["run", "--env", "toy", "--agent", "one-action", "--game", "coin-1", "--quiet",
                 "--llm", f"scripted:{looping_script(tmp_path)}", "--sessions", str(sessions)])
    out = capsys.readouterr().out
    assert code != 0
    assert "step limit reached (30 steps)" in out
    [folder] = sessions.iterdir()
    assert sum(r["type"] == "action" for r in read_journal(folder).records) == 30


def test_an_explicit_max_steps_still_wins(tmp_path, capsys):
    script = looping_script(tmp_path)
    main(["run", "--env", "toy", "--agent", "one-action", "--game", "coin-1", "--quiet", "--max-steps", "3",
          "--llm", f"scripted:{script}", "--sessions", str(tmp_path / "a")])
    assert "step limit reached (3 steps)" in capsys.readouterr().out


def test_eval_plans_the_toy_worlds_own_limit(tmp_path, capsys):
    out = tmp_path / "eval"
    main(["eval", "--env", "toy", "--agent", "one-action", "--games", "coin-1", "-c", "1", "--out", str(out),
          "--no-progress", "--llm", f"scripted:{looping_script(tmp_path)}"])
    report = json.loads((out / "report.json").read_text())
    assert report["plan"]["run"]["max_steps"] == 30
    assert report["episodes"][0]["steps"] == 30
