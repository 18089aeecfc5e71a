"""One rule for a rejected answer, for every agent: the retry prompt shows the rejected answer and
why it was rejected (code lines counted from the code's own first line), and every agent stops after
the same number of rejected answers.

Real parts: the toy world (tests/toyenv; ReAct's refused action needs the real ALFWorld engine's list of
commands), the sandboxed runner, and the real openai client against a local OpenAI-compatible server that
answers badly.
"""

from __future__ import annotations

import pytest

from agent.runtime import events as ev
from agent.runtime.limits import Limits
from mockllm.openai_server import OpenAICompatibleServer, write_profiles
from recode_tui.setup.build import make_agent, make_llm
from tests.settings import episode_named, run_settings

pytestmark = pytest.mark.heavy  # the sandbox worker


@pytest.fixture(autouse=True)
def toy(toy_env):
    """The toy world (tests/toyenv): what is checked is each agent's rule, not the engine."""
    return toy_env


BAD_CODE = (
    "<think>\nI look around first, then walk the places in turn.\n</think>\n<execute>\n"
    "obs = run('look')\nfor place in ['diningtable 1']\n    run('go to ' + place)\n</execute>"
)
# what each agent is sent first, the reason its refusal must give, and text of the answer the retry must show
BAD = {
    "recode": (BAD_CODE, "syntax error on line 2", "2 | for place in ['diningtable 1']"),
    "codeact": (BAD_CODE, "syntax error on line 2", "2 | for place in ['diningtable 1']"),
    "react": ("Thought: the vase is on the table.\nAction: go to the dining table",
              "go to the dining table", "Action: go to the dining table"),
    "plan-execute": ("First find the vase, then put it on the sidetable.", "JSON",
                     "First find the vase, then put it on the sidetable."),
    "recap": ("I will look for the vase on the dining table.", "Subtasks",
              "I will look for the vase on the dining table."),
}


# toy:vase-1 is put-01's task; ReAct refuses an action by the environment's list of valid commands, which
# only ALFWorld gives: its rejected action needs the real engine
EPISODE = {agent: "put-01" if agent == "react" else "toy:vase-1" for agent in BAD}


def llm_answering(tmp_path, server: OpenAICompatibleServer, agent: str):
    profiles = write_profiles(tmp_path / "profiles.yaml", server.base_url, max_retries=0)
    return make_llm("profile:local", str(profiles), agent_name=agent)


async def requests(agent, count: int) -> list[ev.Event]:
    """Step until `count` LLM requests were made (or the run ended); every event so far."""
    events: list[ev.Event] = []
    while not agent.host.done and sum(isinstance(e, ev.LLMRequested) for e in events) < count:
        events.append(await agent.step())
    return events


@pytest.mark.parametrize("agent_name", list(BAD))
async def test_a_retry_prompt_shows_the_rejected_answer_and_why(tmp_path, agent_name):
    answer, reason_part, shown = BAD[agent_name]
    with OpenAICompatibleServer(lambda prompt: answer) as server:
        agent = make_agent(run_settings(agent=agent_name), episode_named(EPISODE[agent_name]),
                           llm_answering(tmp_path, server, agent_name))
        try:
            events = await requests(agent, 2)
        finally:
            await agent.close()
    first, second = [e for e in events if isinstance(e, ev.LLMRequested)]
    rejected = next(e for e in events if isinstance(e, ev.LLMRejected))
    assert second.attempt == 2 and second.prompt != first.prompt
    assert second.prompt.startswith(first.prompt)  # the same prompt, and the note after it
    note = second.prompt[len(first.prompt):]
    assert "rejected" in note or "not taken" in note
    assert rejected.reason.split(": ", 1)[-1][-40:] in note  # the reason, as the model was told it
    assert reason_part in note and shown in note  # why, and what the model wrote


@pytest.mark.parametrize("agent_name", ["recode", "codeact"])
async def test_a_syntax_errors_line_counts_from_the_first_line_of_the_code(tmp_path, agent_name):
    with OpenAICompatibleServer(lambda prompt: BAD_CODE) as server:
        agent = make_agent(run_settings(agent=agent_name), episode_named(EPISODE[agent_name]),
                           llm_answering(tmp_path, server, agent_name))
        try:
            events = await requests(agent, 2)
        finally:
            await agent.close()
    rejected = next(e for e in events if isinstance(e, ev.LLMRejected))
    note = [e for e in events if isinstance(e, ev.LLMRequested)][1].prompt
    assert rejected.reason.startswith("syntax error on line 6")  # the editor's line: of the whole answer
    assert "Why it was rejected: syntax error on line 2:" in note or "Why it was not taken: syntax error on line 2:" in note
    assert "1 | obs = run('look')" in note and "I look around first" not in note.split("# Your previous answer")[-1]


@pytest.mark.parametrize("agent_name", list(BAD))
async def test_every_agent_stops_after_the_same_number_of_rejected_answers(tmp_path, agent_name):
    answer = BAD[agent_name][0]
    with OpenAICompatibleServer(lambda prompt: answer) as server:
        agent = make_agent(run_settings(agent=agent_name, limits=Limits(max_rewrite=2)), episode_named(EPISODE[agent_name]),
                             llm_answering(tmp_path, server, agent_name))
        try:
            finished = await agent.run()
        finally:
            await agent.close()
    assert not finished.success and finished.llm_calls == 3
    assert finished.reason.startswith("rewrite limit: 3 invalid answers in a row")
    assert Limits().max_rewrite == 5  # one default for all


async def test_codeact_takes_a_single_fenced_python_block_as_the_cell(tmp_path):
    cell = "Here is the cell.\n```python\nfor action in ['go to diningtable 1', 'take vase 1 from diningtable 1',\n" \
           "               'go to sidetable 1', 'move vase 1 to sidetable 1']:\n    run(action)\n```"
    with OpenAICompatibleServer(lambda prompt: cell) as server:
        agent = make_agent(run_settings(agent="codeact"), episode_named(EPISODE["codeact"]),
                             llm_answering(tmp_path, server, "codeact"))
        try:
            finished = await agent.run()
        finally:
            await agent.close()
    assert finished.success and finished.llm_calls == 1
    assert "one ```python block" in agent.tree.root.children[0].llm_calls[0].prompt


def test_a_huge_rejected_answer_is_shown_cut_not_whole():
    """A one-line answer of a million characters (and a reason quoting it) adds a few KB to the retry prompt."""
    from agent.runtime.prompts import PromptSet, rejected_code, rejected_text, rewrite_note

    huge = "Action: go to " + "y" * 1_000_000
    shown = rejected_text(huge)
    assert len(shown) < 1_000 and "more characters]" in shown
    code, _ = rejected_code("<execute>\nrun('" + "z" * 1_000_000 + "')\n</execute>", "line 2: too long")
    assert len(code) < 1_000
    note = rewrite_note(PromptSet(), f"`{huge}` is not an action", shown)
    assert len(note) < 5_000
