"""The UI-free side of prompt authoring: drafts, rendering by parts, example checks, saving, counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.agents.recode.examples import answer_diff, check_examples_text, live_answer_problem
from agent.runtime.prompt_parts import DraftPromptSet, PromptSetError, check_summary
from agent.agents.recode.prompt_drafts import editable_files, is_bundled, save_prompt_set
from agent.agents.recode.prompt_render import PART_NAMES, render_prompt, stub_variable_lines, variables_from_prompt
from agent.agents.recode.prompt import build_expand_prompt
from agent.llm.tokens import TokenCounter, encoding_name, estimate
from agent.runtime import events as ev
from agent.runtime.prompts import DEFAULT_PROMPTS, PromptSet, rewrite_note
from recode_tui.commands.cli import main
from tests.settings import episode_named, in_process, run_settings
from envs.registry import EpisodeRef

PUT = "alfworld/examples/put.txt"
GOOD = (
    "Function: done = put_down(item)\nVariables:\n- item (str): vase 1\nAnswer:\n"
    "<think>go and put it</think>\n<execute>\nobs = run(f\"move {item} to sidetable 1\")\ndone = 'You move' in obs\n"
    "</execute>\n"
)


def test_a_draft_overrides_files_and_hashes_like_the_saved_set(tmp_path: Path) -> None:
    draft = DraftPromptSet(DEFAULT_PROMPTS)
    assert draft.content_hash() == PromptSet(DEFAULT_PROMPTS).content_hash()
    draft.edits[PUT] = GOOD
    assert draft.text(PUT) == GOOD and draft.changed == [PUT]
    assert draft.examples("alfworld", "put") == GOOD.strip()
    saved = save_prompt_set(draft, "mine", tmp_path)
    assert saved == tmp_path / "mine"
    assert PromptSet(saved).content_hash() == draft.content_hash() != PromptSet(DEFAULT_PROMPTS).content_hash()
    assert (saved / "expand.txt").read_text() == (DEFAULT_PROMPTS / "expand.txt").read_text()  # the whole set


def test_the_bundled_prompts_are_never_overwritten(tmp_path: Path) -> None:
    draft = DraftPromptSet(DEFAULT_PROMPTS, edits={PUT: GOOD})
    with pytest.raises(PromptSetError, match="never overwritten"):
        save_prompt_set(draft, "default", DEFAULT_PROMPTS.parent)
    with pytest.raises(PromptSetError, match="name"):
        save_prompt_set(draft, "../escape", tmp_path)
    assert is_bundled(DEFAULT_PROMPTS) and not is_bundled(tmp_path)
    assert GOOD not in (DEFAULT_PROMPTS / PUT).read_text()


def test_editable_files_list_template_actions_and_each_task_type() -> None:
    files = editable_files(PromptSet(), "alfworld")
    assert files[:2] == ["expand.txt", "alfworld/actions.txt"]
    assert {f.rsplit("/", 1)[-1] for f in files[2:]} == {f"{t}.txt" for t in ("put", "clean", "heat", "cool", "examine", "puttwo")}


def test_render_is_the_agent_prompt_and_its_parts_add_up() -> None:
    prompts = PromptSet()
    lines = ["- instruction (str): put a vase in sidetable.", "- observation (str): a room"]
    rendered = render_prompt(prompts, "alfworld", "put", "solve(instruction, observation)", lines)
    assert rendered.text == build_expand_prompt(prompts, "alfworld", "put", "solve(instruction, observation)", lines)
    assert tuple(rendered.parts) == PART_NAMES
    assert sum(len(p) for p in rendered.parts.values()) == len(rendered.text)
    assert "$" not in rendered.parts["rules"] and "# Primitive actions" in rendered.parts["rules"]


def test_variables_come_back_from_a_recorded_prompt() -> None:
    prompts = PromptSet()
    lines = ["- obj (str): vase 1", "- places (list[str]): ['a 1', 'b 2']"]
    code = "found = find(obj, places)"
    prompt = build_expand_prompt(prompts, "alfworld", "put", code, lines)
    assert variables_from_prompt(prompt, prompts, "alfworld", "put", code) == lines
    assert variables_from_prompt(build_expand_prompt(prompts, "alfworld", "put", code, []), prompts, "alfworld", "put", code) == []
    # A re-ask carries a note after the template: not taken for variables.
    assert variables_from_prompt(prompt + rewrite_note(prompts, "bad"), prompts, "alfworld", "put", code) is None
    assert variables_from_prompt(prompt, prompts, "alfworld", "heat", code) is None  # other examples


def test_bundled_examples_pass_and_bad_ones_are_flagged() -> None:
    for relative in editable_files(PromptSet(), "alfworld")[2:]:
        checks = check_examples_text(PromptSet().text(relative))
        assert checks and all(c.ok for c in checks), (relative, [c.problems for c in checks if not c.ok])
    text = PromptSet().text(PUT) + "\n---\n" + GOOD.replace("done = 'You move' in obs", "done = seen")
    text += "---\nFunction: x = f(a)\nAnswer:\n<execute>x = 1</execute>\n"
    text += "---\n" + GOOD.replace("obs = run", "def g():\n    pass\nobs = run")
    checks = check_examples_text(text)
    assert [c.ok for c in checks] == [True, True, True, False, False, False]
    assert checks[3].problems == ("reads names neither given nor assigned before: line 2: seen",)
    assert checks[3].line == len(PromptSet().text(PUT).splitlines()) + 3  # where its `Function:` line is
    assert "second line is 'Variables:'" in checks[4].problems[0]
    assert "`def g` is not allowed" in checks[5].problems[0]
    assert check_summary(checks) == "3 of 6 examples flagged"


def test_an_answer_is_judged_like_a_live_one_and_diffed_by_code() -> None:
    known = {"obj"}
    assert live_answer_problem("<think>t</think><execute>run(obj)</execute>", known) == ""
    assert "no <execute>" in live_answer_problem("run(obj)", known)
    assert live_answer_problem("run(obj)", known, person=True) == ""
    assert "inside a loop" in live_answer_problem("<execute>for i in [1]:\n    later(i)</execute>", known)
    recorded = "<think>a</think><execute>\nrun('go to x')\nfind(obj)\n</execute>"
    assert answer_diff(recorded, "<think>other thought</think><execute>run('go to x')\nfind(obj)</execute>") == []
    diff = answer_diff(recorded, "<execute>run('go to y')\nfind(obj)</execute>")
    assert "-run('go to x')" in diff and "+run('go to y')" in diff


def test_stub_variables_outside_a_run() -> None:
    lines = stub_variable_lines("a, b = find_and_take(obj, instruction, limit=3)", {"instruction": "put a vase"})
    assert lines == ["- obj: (not bound)", "- instruction (str): put a vase", "- limit (int): 3"]
    with pytest.raises(ValueError):
        stub_variable_lines("for x in y:", {})


def test_token_counts_are_estimates_unless_a_cached_tokenizer_exists(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))  # empty: no encoding offline
    assert encoding_name("gpt-4o-mini") == "o200k_base" and encoding_name("gpt-4-turbo") == "cl100k_base"
    assert encoding_name("local-test-model") is None and encoding_name(None) is None
    counter = TokenCounter("gpt-4o-mini")
    assert not counter.exact
    count = counter.count("x" * 10)
    assert count.tokens == estimate("x" * 10) == 3
    assert count.label() == "≈ 3 tokens (estimate: chars/4)" and count.short() == "≈3"


def test_the_journal_records_a_changed_prompt_set(tmp_path: Path) -> None:
    import asyncio

    from agent.sessions.session import start_session
    from recode_tui.setup.build import make_agent, make_llm

    async def play() -> Path:
        agent = make_agent(run_settings(), episode_named("put-01"), make_llm("demo"), runner_maker=in_process)
        session = start_session(agent, tmp_path, EpisodeRef.parse("put-01"), "demo")
        try:
            while not isinstance(await agent.step(), ev.LLMAnswered):
                pass
            agent.prompts = DraftPromptSet(DEFAULT_PROMPTS, edits={PUT: PromptSet().text(PUT) + "\n"})
            await agent.run()
        finally:
            await agent.close()
            session.writer.close()
        return session.folder

    folder = asyncio.run(play())
    records = [json.loads(line) for line in (folder / "journal.jsonl").read_text().splitlines()]
    header, answers = records[0], [r for r in records if r["type"] == "answer"]
    assert len(answers) >= 2
    assert "prompt_hash" not in answers[0]
    assert all(a["prompt_hash"] != header["run"]["prompts"]["hash"] for a in answers[1:])


def test_cli_prompt_show_prints_the_rendered_prompt(capsys) -> None:
    code = main(["prompt", "show", "--game", "put-01", "--stub", "found, place = find_and_take(obj, locs)", "--tokens"])
    out, err = capsys.readouterr()
    assert code == 0
    assert "# Current function to expand\n\nfound, place = find_and_take(obj, locs)\n" in out
    assert out.rstrip().endswith("- obj: (not bound)\n- locs: (not bound)")
    assert "Function: solve(instruction, observation)" in out  # the put examples
    assert "total: ≈ " in err and "(estimate: chars/4)" in err
    assert main(["prompt", "show", "--stub", "solve(instruction, observation)"]) == 0
    out, _ = capsys.readouterr()
    assert "- instruction (str): put a vase in sidetable." in out
    assert main(["prompt", "show", "--stub", "for x in"]) == 2
    assert "--stub" in capsys.readouterr().err
