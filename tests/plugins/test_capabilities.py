"""`--llm gold`, `--llm demo` and export follow what an agent declares, never its name:
the test agent (a plug-in) offers gold and demo; an agent that declares none is refused in one line."""

from __future__ import annotations

from dataclasses import replace

import pytest

from agent import agents
from agent.runtime.capabilities import ScriptedAnswer
from recode_tui.commands.cli import main
from tests.toyenv.agent import OneActionAgent

TOY = ["--env", "toy", "--agent", "one-action", "--quiet"]


@pytest.fixture(autouse=True)
def toy(toy_env):
    return toy_env


class CodeAction(OneActionAgent):
    """The test agent under another name, declaring its answers code."""

    name = "code-action"
    traits = replace(OneActionAgent.traits, answers_are_code=True)


class Silent(OneActionAgent):
    """The test agent declaring neither a demo nor a known-solution answer."""

    name = "silent"
    traits = replace(OneActionAgent.traits, demo_scripts={})

    @classmethod
    def gold_answers(cls, actions: list[str]) -> list[ScriptedAnswer] | None:
        return None


@pytest.fixture
def more_agents():
    agents.register("code-action", f"{__name__}:CodeAction")
    agents.register("silent", f"{__name__}:Silent")
    yield
    agents.AGENTS.pop("code-action", None)
    agents.AGENTS.pop("silent", None)


def test_llm_gold_plays_the_known_solution_with_a_plugin_agents_own_answers(tmp_path, capsys):
    assert main(["run", *TOY, "--game", "vase-1", "--llm", "gold", "--sessions", str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith("SUCCESS: won — 4 steps, 4 LLM calls")


def test_llm_demo_plays_the_script_a_plugin_agent_declares(tmp_path, capsys):
    assert main(["run", *TOY, "--game", "coin-2", "--llm", "demo", "--sessions", str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith("SUCCESS: won — 2 steps, 2 LLM calls")


def test_an_agent_that_declares_neither_is_refused_in_one_line(tmp_path, capsys, more_agents):
    base = ["run", "--env", "toy", "--agent", "silent", "--game", "coin-1", "--quiet", "--sessions", str(tmp_path)]
    assert main([*base, "--llm", "gold"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert "--llm gold: the silent agent cannot play a known solution; use scripted:FILE or profile:NAME" in err
    assert main([*base, "--llm", "demo"]) == 2
    assert "--llm demo: the silent agent has no demo scripts" in capsys.readouterr().err


def test_gold_on_an_environment_without_gold_paths_says_so_and_names_the_others(tmp_path, capsys):
    """Every bundled agent has a gold player; ALFWorld has no gold paths (its games have demos instead)."""
    assert main(["run", "--agent", "react", "--game", "put-01", "--llm", "gold", "--quiet",
                 "--sessions", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--llm gold: the alfworld environment has no gold paths; use demo, scripted:FILE or profile:NAME" in err


def test_export_fences_the_answers_of_an_agent_that_declares_them_code(tmp_path, capsys, more_agents,
                                                                     node_code_in_process):
    sessions = tmp_path / "sessions"
    for name in ("one-action", "code-action"):
        assert main(["run", "--env", "toy", "--agent", name, "--game", "coin-1", "--llm", "demo", "--quiet",
                     "--sessions", str(sessions / name)]) == 0
        [folder] = (sessions / name).iterdir()
        capsys.readouterr()
        assert main(["export", folder.name, "--markdown", "--exec", "--sessions", str(sessions / name)]) == 0
        text = capsys.readouterr().out
        fence = "```python" if name == "code-action" else "```text"
        assert f"  {fence}\n  go to shelf 1\n  ```" in text
        assert main(["export", folder.name, "--tree", "--sessions", str(sessions / name)]) == 2
        assert "has no code tree" in capsys.readouterr().err
