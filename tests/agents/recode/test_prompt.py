"""Prompt building: rules, actions, examples, the stub, its variables (spec §3)."""

from agent.agents.recode.prompt import build_expand_prompt, call_arguments
from agent.runtime.prompts import PromptSet


def test_call_arguments_lists_positional_names_and_keywords():
    args = call_arguments("obj, loc = find_and_take(target, locations, limit=3, where=spot)", "find_and_take")
    assert args.names == ("target", "locations", "limit", "where")
    assert args.literals == {"limit": 3}
    assert args.expressions == {"where": "spot"}


def test_call_arguments_finds_a_nested_call():
    assert call_arguments("n = len(list_items(obs))", "list_items").names == ("obs",)


def test_prompt_holds_rules_actions_examples_stub_and_variables():
    prompts = PromptSet()
    prompt = build_expand_prompt(
        prompts, "alfworld", "heat", "obj = heat_it(obj, microwave)", ["- obj (str): egg 1", "- microwave (str): microwave 1"]
    )
    assert "obj = heat_it(obj, microwave)" in prompt
    assert "- microwave (str): microwave 1" in prompt
    assert prompts.actions("alfworld") in prompt
    assert prompts.examples("alfworld", "heat") in prompt
    assert not any(f"${f}" in prompt for f in ("actions", "examples", "function", "variables"))
    assert "def" in prompt  # the rules forbid def
    # another task type gets other examples
    other = build_expand_prompt(prompts, "alfworld", "examine", "x = f()", [])
    assert prompts.examples("alfworld", "examine") in other and prompts.examples("alfworld", "heat") not in other


def test_content_hash_changes_with_the_text(tmp_path):
    import shutil

    from agent.runtime.prompts import DEFAULT_PROMPTS

    copy = tmp_path / "set"
    shutil.copytree(DEFAULT_PROMPTS, copy)
    before = PromptSet(copy).content_hash()
    (copy / "expand.txt").write_text((copy / "expand.txt").read_text() + "\nOne more rule.\n")
    assert PromptSet(copy).content_hash() != before
