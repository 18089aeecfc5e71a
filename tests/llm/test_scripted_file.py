"""A script file read by `--llm scripted:FILE`: parsed once per text, never stale, bad files one line."""

from __future__ import annotations

import asyncio

import pytest

from agent.llm import CallContext, LLMError, Purpose
from mockllm.scripted import ScriptedLLM


def answer(llm: ScriptedLLM, stub: str) -> str:
    return asyncio.run(llm.complete("prompt", CallContext(purpose=Purpose.EXPAND, label=stub))).text


def test_an_edited_script_is_read_again(tmp_path):
    """Evaluations read one script per episode and keep its parse; a person editing the file sees the edit."""
    script = tmp_path / "answers.yaml"
    script.write_text("answers:\n  - stub: '*'\n    answer: 'first'\n")
    assert answer(ScriptedLLM.from_file(script), "solve") == "first"
    script.write_text("answers:\n  - stub: '*'\n    answer: 'second'\n")
    assert answer(ScriptedLLM.from_file(script), "solve") == "second"


def test_each_llm_has_its_own_entries(tmp_path):
    """A `once` entry used by one episode's LLM is still there for the next episode's (the parse is shared)."""
    script = tmp_path / "answers.yaml"
    script.write_text("answers:\n  - stub: '*'\n    answer: 'only once'\n    once: true\n")
    first, second = ScriptedLLM.from_file(script), ScriptedLLM.from_file(script)
    assert answer(first, "solve") == "only once"
    assert answer(second, "solve") == "only once"


@pytest.mark.parametrize("text, says", [("answers: [unclosed\n", "is not valid YAML"),
                                        ("answers:\n  - stub: x\n", "entry 1 needs an `answer` text"),
                                        ("answers:\n", "")])
def test_a_bad_script_is_one_line(tmp_path, text, says):
    script = tmp_path / "bad.yaml"
    script.write_text(text)
    if not says:  # no entries: a script with nothing to say, refused at the first call instead
        with pytest.raises(LLMError, match="has no answer"):
            answer(ScriptedLLM.from_file(script), "solve")
        return
    with pytest.raises(LLMError) as error:
        ScriptedLLM.from_file(script)
    assert says in str(error.value) and "\n" not in str(error.value)
