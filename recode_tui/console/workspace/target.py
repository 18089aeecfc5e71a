"""Which stub the workspace renders a prompt for, and with which variables.

No Textual here: it reads the agent. A stub that was already expanded gets
its variables back from its recorded prompt (exact, even if the namespace has
changed since); the stub awaiting expansion, or one never asked about, gets
them from the namespace now.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.runtime.prompt_parts import PromptParts
from agent.runtime.stepper import Stepper
from agent.runtime import events as ev
from agent.runtime.prompts import PromptContext
from agent.runtime.tree import Node


@dataclass(frozen=True)
class StubTarget:
    node_id: str
    code: str
    stub_name: str
    env_name: str
    task_type: str | None
    variable_lines: tuple[str, ...]
    variables_from: str  # "recorded prompt" or "namespace now"
    recorded_answer: str | None  # the accepted answer of the session, if any
    awaiting: bool  # the run is stopped at this stub's expansion request
    known: frozenset[str]  # names a new answer may read (for validation)
    context: PromptContext | None = None  # the run's fields ($task, $recent_actions, ...) the prompt showed


def awaiting_node_id(agent: Stepper, last_event: ev.Event | None) -> str | None:
    if isinstance(last_event, ev.LLMRequested) and last_event.purpose == agent.traits.main_purpose and not agent.host.done:
        return last_event.node_id
    return None


def pick_node(agent: Stepper, selected_id: str | None, last_event: ev.Event | None) -> Node:
    """The selected node when it is a stub (expanded or awaiting), else the awaiting one, else the root."""
    nodes = agent.tree.nodes
    awaiting = awaiting_node_id(agent, last_event)
    selected = nodes.get(selected_id or "")
    if selected is not None and (
        selected.id == awaiting or any(x.purpose == agent.traits.main_purpose for x in selected.llm_calls)
    ):
        return selected
    if awaiting and awaiting in nodes:
        return nodes[awaiting]
    return agent.tree.root


async def stub_target(agent: Stepper, parts: PromptParts, node: Node, last_event: ev.Event | None) -> StubTarget:
    """The stub of `node` as the agent's prompt by `parts` shows it."""
    env_name, task_type = agent.env.name, agent.env.task_type
    name = agent.placeholder_of(node.code) or ""  # the stub the node calls, as `b` names it
    awaiting = awaiting_node_id(agent, last_event) == node.id
    first = next((x for x in node.llm_calls if x.purpose == agent.traits.main_purpose), None)
    recorded_prompt = first.prompt if first is not None else (
        last_event.prompt if awaiting and isinstance(last_event, ev.LLMRequested) else None
    )
    lines = None
    context = agent.prompt_context()
    if recorded_prompt is not None:
        lines = parts.recorded_variables(recorded_prompt, agent.prompts, env_name, task_type, node.code)
        recorded = parts.recorded_context(recorded_prompt, agent.prompts, env_name, task_type, node.code)
        context = PromptContext.recorded(recorded) if lines is not None and recorded else context
    source = "recorded prompt"
    args = parts.call_arguments(node.code, name) if name else ()
    if lines is None:
        source = "namespace now"
        try:
            lines = await agent.runner.prompt_lines(list(args))
        except Exception:  # noqa: BLE001 - a busy or closed runner: show none
            lines = []
    accepted = [x for x in node.llm_calls if x.purpose == agent.traits.main_purpose and x.accepted]
    try:
        known = await agent.runner.names() if awaiting else frozenset(args) | parts.helpers
    except Exception:  # noqa: BLE001
        known = frozenset(args) | parts.helpers
    return StubTarget(
        node_id=node.id,
        code=node.code,
        stub_name=name,
        env_name=env_name,
        task_type=task_type,
        variable_lines=tuple(lines),
        variables_from=source,
        recorded_answer=accepted[-1].answer if accepted else None,
        awaiting=awaiting,
        known=frozenset(known),
        context=context,
    )
