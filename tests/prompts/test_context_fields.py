"""The run's context in a sub-call's prompt: the task, the last actions, the steps left.

The default set shows them; the paper set (the ReCode paper's prompts) does
not, so both can be compared in one evaluation.
"""

from __future__ import annotations

from agent.agents.recode.authoring import ExamplesLLM
from agent.agents.recode.examples import parse_example, split_examples
from agent.agents.recode.prompt_render import context_from_prompt, variables_from_prompt
from agent.agents.recode.engine import Engine
from agent.agents.recode.prompt import PAPER_PROMPTS
from agent.runtime.prompts import NO_ACTIONS_YET, PromptSet
from agent.runtime.thread_runner import ThreadRunner
from envs.registry import make_env
from recode_tui.commands.cli import main

PLACE = "done = place_item(item, dest_kind, receptacles)"


async def heat_run(prompts: PromptSet) -> Engine:
    """heat-01 played with the default heat examples as answers, prompts built from `prompts`."""
    text = PromptSet().text("alfworld/examples/heat.txt")
    llm = ExamplesLLM([parse_example(chunk, line) for line, chunk in split_examples(text)])
    agent = Engine(make_env("heat-01"), llm, runner=ThreadRunner(), prompts=prompts)
    result = await agent.run()
    await agent.close()
    assert result.success, result.reason
    return agent


def prompt_of(agent: Engine, code: str) -> str:
    node = next(n for n in agent.tree.nodes.values() if n.code == code)
    return node.llm_calls[0].prompt


async def test_a_nested_stub_sees_the_task_the_last_actions_and_the_steps_left() -> None:
    agent = await heat_run(PromptSet())
    root = prompt_of(agent, "solve(instruction, observation)")
    assert "The task of the whole run: put a hot cup in sinkbasin." in root
    assert NO_ACTIONS_YET in root and "Steps left: 80 of 80." in root
    place = prompt_of(agent, PLACE)
    assert "The task of the whole run: put a hot cup in sinkbasin." in place
    # After heating, the placing step can tell that it worked and where the agent stands.
    recent = place.split("oldest first", 1)[1].split("# Current function", 1)[0]
    assert "> heat cup 1 with microwave 1\nYou heat the cup 1 using the microwave 1." in recent
    assert recent.count("\n> ") <= 4  # the last few, not the whole history
    steps_before = agent.env.steps - 2  # the place step then went to the sink and moved the cup
    assert f"Steps left: {80 - steps_before} of 80." in place
    # The workspace reads the variables and the context back from the recorded prompt.
    assert variables_from_prompt(place, agent.prompts, "alfworld", "heat", PLACE) == [
        "- item (str): cup 1",
        "- dest_kind (str): sinkbasin",
        "- receptacles (list[str]): ['cabinet 4', 'cabinet 3', 'cabinet 2', 'cabinet 1', 'coffeemachine 1', "
        "'countertop 2', 'countertop 1', 'drawer 2', 'drawer 1', 'fridge 1', 'garbagecan 1', 'microwave 1', "
        "'sinkbasin 1', 'stoveburner 3', 'stoveburner 2', 'stoveburner 1', 'toaster 1']",
    ]
    assert context_from_prompt(place, agent.prompts, "alfworld", "heat", PLACE)["steps_left"] == str(80 - steps_before)


async def test_the_paper_set_shows_no_context() -> None:
    agent = await heat_run(PromptSet(PAPER_PROMPTS))
    place = prompt_of(agent, PLACE)
    assert "task of the whole run" not in place and "> heat cup 1" not in place and "Steps left" not in place
    assert "$" not in place.split("# Current function")[1]
    assert variables_from_prompt(place, agent.prompts, "alfworld", "heat", PLACE) is not None
    assert context_from_prompt(place, agent.prompts, "alfworld", "heat", PLACE) == {}


def test_prompt_show_on_a_nested_stub_shows_the_task_and_recent_actions(capsys) -> None:
    args = ["prompt", "show", "--game", "heat-01", "--stub", PLACE,
            "--after", "go to microwave 1", "--after", "open microwave 1"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "The task of the whole run: put a hot cup in sinkbasin.\nSteps left: 78 of 80." in out
    assert "> go to microwave 1\nYou arrive at microwave 1. The microwave 1 is closed.\n> open microwave 1\n" in out
    assert out.index("> open microwave 1") < out.index("# Current function to expand\n\n" + PLACE)
    assert main(["prompt", "show", "--game", "heat-01", "--stub", PLACE]) == 0
    assert NO_ACTIONS_YET in capsys.readouterr().out
    assert main([*args, "--prompts", str(PAPER_PROMPTS)]) == 0
    paper = capsys.readouterr().out
    assert "# Current function to expand\n\n" + PLACE in paper
    assert "task of the whole run" not in paper and "> go to microwave 1" not in paper
