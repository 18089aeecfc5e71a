"""A prompt file that does not exist is an error naming it, never an empty section of the prompt."""

from __future__ import annotations

import shutil

import pytest

from agent.runtime.prompts import DEFAULT_PROMPTS, PromptFileMissing, PromptSet
from recode_tui.commands.cli import main


@pytest.fixture(autouse=True)
def toy(toy_env):
    return toy_env


def test_a_missing_template_is_an_error_naming_the_file(tmp_path):
    shutil.copytree(DEFAULT_PROMPTS, tmp_path / "set")
    (tmp_path / "set" / "repair.txt").unlink()
    with pytest.raises(PromptFileMissing, match=r"prompt file .*set/repair\.txt does not exist"):
        PromptSet(tmp_path / "set").text("repair.txt")


def test_an_environment_without_actions_or_examples_is_named_not_played_with_empty_sections(tmp_path):
    prompts = PromptSet(DEFAULT_PROMPTS)
    with pytest.raises(PromptFileMissing, match=r"no-such-env/actions\.txt does not exist \(nor has the "
                                                r"no-such-env environment its own actions\.txt"):
        prompts.actions("no-such-env")
    with pytest.raises(PromptFileMissing, match=r"has no examples for no-such-env .*no-such-env/examples"):
        prompts.examples("no-such-env", "put")
    assert prompts.facts("no-such-env") == ""  # facts are optional
    assert prompts.examples("no-such-env", "put", required=False) == ""  # an agent that says "(no examples)"


def test_a_plugin_environment_keeps_its_actions_and_examples_beside_its_provider():
    prompts = PromptSet(DEFAULT_PROMPTS)
    assert prompts.actions("toy").startswith("Places and objects are named")
    assert "take a coin." in prompts.examples("toy", "take")
    assert "put a key in box." in prompts.examples("toy", "put")


def test_recode_on_a_set_without_the_environments_examples_stops_with_the_files_name(tmp_path, capsys,
                                                                                    node_code_in_process):
    shutil.copytree(DEFAULT_PROMPTS, tmp_path / "set")
    shutil.rmtree(tmp_path / "set" / "alfworld" / "examples")
    code = main(["run", "--game", "put-01", "--llm", "demo", "--prompts", str(tmp_path / "set"), "--quiet",
                 "--sessions", str(tmp_path / "sessions")])
    out = capsys.readouterr()
    assert code != 0
    assert "internal error" not in out.out
    assert f"FAILED: prompt set {tmp_path / 'set'} has no examples for alfworld ({tmp_path / 'set' / 'alfworld' / 'examples'}/*.txt)" in out.out + out.err
