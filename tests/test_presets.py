"""`--preset paper`: the reference code's semantics on run, tui and eval."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from agent.agents.recode.engine import Engine
from agent.runtime.limits import Limits
from agent.agents.presets import PAPER_PROMPTS, preset, resolve
from agent.run.spec import RunFlags
from agent.runtime.prompts import DEFAULT_PROMPTS
from agent.runtime.thread_runner import ThreadRunner
from agent.sessions.journal_read import read_journal
from envs.registry import make_env
from mockllm.scripted import ScriptEntry, ScriptedLLM
from recode_tui.commands.parser import build_parser
from recode_tui.commands.arguments import agent_settings_of
from tests.settings import console_options
from tests.eval.helpers import run_main

pytestmark = pytest.mark.heavy  # real ALFWorld games, played by the command line


RAISES = "<execute>\nrun('look')\nx = 1 / 0\n</execute>"
REPAIR = "<execute>\nx = 1\n</execute>"


def llm() -> ScriptedLLM:
    return ScriptedLLM([ScriptEntry(answer=RAISES), ScriptEntry(answer=REPAIR, purpose="repair")])


def recode(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, RECODE_TUI_SESSIONS=str(tmp_path / "sessions"), OPENAI_API_KEY="")
    return run_main(list(args), env)


async def test_end_on_error_ends_the_episode_at_the_first_node_error_naming_the_node():
    agent = Engine(make_env("put-01"), llm(), ThreadRunner(), limits=Limits(end_on_error=True))
    result = await agent.run()
    assert not result.success
    assert result.reason.startswith("node error: n2 `x = 1 / 0` raised ZeroDivisionError") and "ZeroDivisionError" in result.reason
    assert result.llm_calls == 1  # no repair was asked for
    # our default repairs it instead
    repaired = await Engine(make_env("put-01"), llm(), ThreadRunner()).run()
    assert repaired.llm_calls == 2 and not repaired.reason.startswith("node error")


def test_the_paper_preset_and_explicit_flags_over_it():
    paper = preset("paper")
    assert paper.max_steps == 50
    assert paper.limits == Limits(max_depth=10, max_rewrite=5, max_retry=Limits.max_retry, end_on_error=True)
    assert paper.prompts.path == (str(PAPER_PROMPTS) if PAPER_PROMPTS.is_dir() else None)
    assert PAPER_PROMPTS == DEFAULT_PROMPTS.parent / "paper"  # presets names it by path, see there
    mixed = resolve(RunFlags(preset="paper", max_steps=70, max_depth=3))
    assert mixed.max_steps == 70 and mixed.limits.max_depth == 3 and mixed.limits.end_on_error
    assert resolve(RunFlags()).max_steps is None and not resolve(RunFlags()).limits.end_on_error  # the environment's own
    with pytest.raises(ValueError, match="unknown --preset"):
        preset("nope")


def test_the_paper_prompts_fall_back_to_the_default_set_when_missing(monkeypatch, tmp_path):
    import agent.agents.presets as presets

    monkeypatch.setattr(presets, "PAPER_PROMPTS", tmp_path / "missing")
    assert preset("paper").prompts.path is None
    monkeypatch.setattr(presets, "PAPER_PROMPTS", DEFAULT_PROMPTS)
    assert preset("paper").prompts.path == str(DEFAULT_PROMPTS)


def test_tui_and_eval_take_the_preset_and_the_flags_over_it():
    parser = build_parser()
    tui = agent_settings_of(parser.parse_args(["tui", "--preset", "paper", "--max-rewrite", "2"]))
    assert tui.preset == "paper" and tui.max_steps == 50 and tui.limits.max_rewrite == 2 and tui.limits.end_on_error
    evaluation = agent_settings_of(parser.parse_args(["eval", "--preset", "paper", "--llm", "demo"]))
    assert evaluation.max_steps == 50 and evaluation.limits.end_on_error


async def test_the_console_journals_the_preset(tmp_path):
    from recode_tui.console.app import build_app
    from tests.console.page import ConsolePage

    app = build_app(console_options(preset="paper", sessions_dir=tmp_path), llm())
    async with ConsolePage.open(app):
        header = read_journal(app.session_control.session.folder).header
    assert header.run.preset == "paper" and header.run.max_steps == 50 and header.run.limits.end_on_error is True


def test_run_with_the_paper_preset_ends_at_the_node_error_and_journals_the_preset(tmp_path):
    script = tmp_path / "raise.jsonl"
    script.write_text(json.dumps({"answer": RAISES}) + "\n" + json.dumps({"answer": REPAIR, "purpose": "repair"}) + "\n")
    result = recode(tmp_path, "run", "--preset", "paper", "--llm", f"scripted:{script}", "--quiet")
    assert result.returncode == 1
    assert result.stdout.startswith("FAILED: node error: n2 `x = 1 / 0` raised ZeroDivisionError"), result.stdout + result.stderr
    folder = next((tmp_path / "sessions").iterdir())
    header = read_journal(folder).header
    assert header.run.preset == "paper" and header.run.max_steps == 50 and header.run.limits.end_on_error is True
    # resuming rebuilds the preset from the journal
    again = recode(tmp_path, "run", "--resume", str(folder), "--llm", f"scripted:{script}", "--quiet")
    assert again.stdout.startswith("FAILED: node error: n2 `x = 1 / 0` raised ZeroDivisionError"), again.stdout + again.stderr


def test_eval_with_the_paper_preset_records_it_in_the_report(tmp_path, toy_env):
    """On the toy world (tests/toyenv): what the preset sets is checked, not the engine."""
    script = tmp_path / "raise.jsonl"
    script.write_text(json.dumps({"answer": RAISES}) + "\n")
    out = tmp_path / "eval"
    result = recode(tmp_path, "eval", "--preset", "paper", "--max-depth", "4", "--env", "toy", "--games", "vase-1",
                    "--llm", f"scripted:{script}", "-o", str(out), "--no-progress")
    assert result.returncode == 0, result.stderr
    report = json.loads((out / "report.json").read_text())
    plan = report["plan"]
    assert plan["run"]["preset"] == "paper" and plan["run"]["max_steps"] == 50
    assert plan["run"]["limits"]["end_on_error"] is True and plan["run"]["limits"]["max_depth"] == 4
    episode = report["episodes"][0]
    assert episode["reason"].startswith("node error: n2 `x = 1 / 0` raised ZeroDivisionError")
    assert read_journal(Path(episode["journal"])).header.run.preset == "paper"
