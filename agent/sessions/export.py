"""What a run exports: its tree (`recode.plan.v1`), its trace (`recode.trace.v1`), SFT pairs,
a Markdown transcript.

The tree shape follows spec §6: `version`, `meta`, `root_id`, `nodes` (id ->
node fields), `edges` (parent -> child, in order); only ReCode has a code tree.
Every agent has a trace: its nodes (turns, cells, plan steps, subtasks) and,
in the order they happened, each LLM call (prompt, answer, verdict, role,
tokens), each action with its observation, each agent decision (a replan, a
re-injection) and each error. Every accepted answer, of any agent and role, is
one supervised pair: the prompt as the user message, the applied answer as the
assistant message.
"""

from __future__ import annotations

import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from agent.runtime import events as ev
from agent.runtime.safe_text import json_line
from agent.runtime.stepper import Stepper
from agent.runtime.tree import CodeTree, Node
from agent.sessions.journal_read import JOURNAL_FILE, Journal
from agent.sessions.old_values import STORED_NODE_STATUSES, UNRECORDED_PURPOSE, node_status

PLAN_VERSION = "recode.plan.v1"
TRACE_VERSION = "recode.trace.v1"
# Deprecated (one release, for plug-ins that read them): the bundled agents that declared these
# capabilities when the names were introduced. Ask `has_code_tree` / `answers_are_code` instead.
TREE_AGENTS = ("recode",)
CODE_AGENTS = ("recode", "codeact")


def _declared(agent_name: str) -> type[Stepper] | None:
    """The registered class of a journal's agent (None: an agent this process does not know)."""
    from agent import agents

    try:
        return agents.agent_class(agent_name)
    except agents.UnknownAgent:
        return None


def has_code_tree(agent_name: str) -> bool:
    """Whether the agent declares a code tree (`Stepper.traits.code_tree`): `export --tree` and its wording."""
    cls = _declared(agent_name)
    return cls is not None and cls.traits.code_tree


def answers_are_code(agent_name: str) -> bool:
    """Whether the agent declares its answers Python (`Stepper.traits.answers_are_code`): transcripts fence them."""
    cls = _declared(agent_name)
    return cls is not None and cls.traits.answers_are_code


NODE_FIELDS = ("id", "code", "status", "depth", "thought", "observations", "error", "children")


def tree_document(agent: Stepper, meta: dict[str, Any] | None = None, started: float | None = None) -> dict[str, Any]:
    """The run's tree; `meta.time` is when the run started (`started`, e.g. the journal's), else now."""
    tree = agent.tree
    finished = agent.host.finished
    return {
        "version": PLAN_VERSION,
        "meta": {
            "env": agent.env.name,
            "task_type": agent.env.task_type,
            "task": agent.task,
            "limits": {
                "max_depth": agent.limits.max_depth,
                "max_rewrite": agent.limits.max_rewrite,
                "max_retry": agent.limits.max_retry,
                "max_steps": agent.env.max_steps,
            },
            "time": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(started)),
            "success": finished.success if finished else None,
            "steps": agent.env.steps,
            "llm_calls": agent.stats.llm_calls,
            "cost": agent.stats.cost,
            **(meta or {}),
        },
        "root_id": tree.root.id,
        "nodes": {node.id: node.to_dict() for node in tree.walk()},
        "edges": [[node.id, child.id] for node in tree.walk() for child in node.children],
    }


class PlanFormatError(ValueError):
    """A tree file is not in the recode.plan.v1 shape; the message names what is wrong."""


def validate_tree_document(data: Any) -> None:
    """Check the recode.plan.v1 shape: keys, node fields, edges that point at nodes, one root."""
    if not isinstance(data, dict):
        raise PlanFormatError("a tree file is one JSON object")
    for key in ("version", "meta", "root_id", "nodes", "edges"):
        if key not in data:
            raise PlanFormatError(f"missing key {key!r}")
    if data["version"] != PLAN_VERSION:
        raise PlanFormatError(f"version is {data['version']!r}, expected {PLAN_VERSION!r}")
    nodes = data["nodes"]
    if not isinstance(nodes, dict) or data["root_id"] not in nodes:
        raise PlanFormatError("nodes must map ids to nodes and hold root_id")
    for node_id, node in nodes.items():
        missing = [f for f in NODE_FIELDS if f not in node]
        if missing:
            raise PlanFormatError(f"node {node_id} lacks {', '.join(missing)}")
        if node["id"] != node_id or node["status"] not in STORED_NODE_STATUSES:
            raise PlanFormatError(f"node {node_id} has a wrong id or status")
    children_seen: list[str] = []
    for edge in data["edges"]:
        if not (isinstance(edge, list) and len(edge) == 2 and edge[0] in nodes and edge[1] in nodes):
            raise PlanFormatError(f"edge {edge!r} does not join two nodes")
        children_seen.append(edge[1])
    if data["root_id"] in children_seen or len(set(children_seen)) != len(children_seen):
        raise PlanFormatError("every node but the root must have exactly one parent")
    for node_id, node in nodes.items():
        ordered = [child for parent, child in data["edges"] if parent == node_id]
        if ordered != node["children"]:
            raise PlanFormatError(f"node {node_id}'s children disagree with the edges")


def tree_from_document(data: dict[str, Any]) -> CodeTree:
    """Rebuild a read-only CodeTree from an exported file (for viewing)."""
    validate_tree_document(data)
    nodes = data["nodes"]
    root_data = nodes[data["root_id"]]
    tree = CodeTree(root_data["code"])
    tree.nodes.clear()

    def build(node_id: str, parent: Node | None) -> Node:
        raw = nodes[node_id]
        node = Node(
            id=node_id, code=raw["code"], depth=raw["depth"], parent=parent, status=node_status(raw["status"]),
            thought=raw.get("thought") or "", observations=list(raw.get("observations") or []), error=raw.get("error") or "",
        )
        tree.nodes[node_id] = node
        node.children = [build(child, node) for child in raw["children"]]
        return node

    tree.root = build(data["root_id"], None)
    return tree


# Who wrote an applied answer, from the journal's `source`: a person, a person editing the model's text, or not a person.
AUTHORS = {"human": "person", "model+edited": "edited", "model": "model", "scripted": "model", "demo": "model"}
CORRECTED = ("person", "edited")


def answer_author(source: str) -> str:
    """`model`, `person` or `edited` (a script stands in for a model; an unknown source is `model`)."""
    return AUTHORS.get(source or "", "model")


def episode_outcome(journal: Journal) -> dict[str, Any]:
    """`won` True/False from the journal's end (None while unfinished) and the reason it ended."""
    finished = journal.finished
    if finished is None:
        return {"won": None, "reason": "unfinished"}
    return {"won": bool(finished.get("success")), "reason": finished.get("reason", "")}


def sft_lines(journal: Journal, *, won_only: bool = False, corrected_only: bool = False) -> list[str]:
    """One chat-format JSON line per applied expansion, ready for fine-tuning.

    `meta` says what a training pipeline filters on: the episode's outcome, who
    wrote the answer (`author`: model / person / edited, and the raw `source`),
    the fork parent, and whether the answer was `inherited` from that parent
    (copied into a fork's journal before the fork point). `won_only` keeps
    nothing of an episode or branch that did not win; `corrected_only` keeps
    the answers a person typed or edited.
    """
    outcome = episode_outcome(journal)
    if won_only and outcome["won"] is not True:
        return []
    header = journal.header
    parent = asdict(header.parent) if header.parent is not None else None
    inherited_upto = header.parent.records if header.parent is not None else 0
    lines = []
    for position, record in enumerate(journal.records):
        # An answer journaled without its prompt (older branches did that) is no training pair.
        if not (record.get("type") == "answer" and record.get("accepted") and record.get("prompt")):
            continue
        author = answer_author(record.get("source", ""))
        if corrected_only and author not in CORRECTED:
            continue
        pair = {
            "messages": [
                {"role": "user", "content": record["prompt"]},
                {"role": "assistant", "content": record["answer"]},
            ],
            "meta": {
                "session": journal.session_id,
                "env": header.run.env.name,
                "game": header.game,
                **({"episode": header.episode} if header.episode else {}),
                "task_type": header.task_type,
                "node_id": record["node_id"],
                "stub": record.get("stub", ""),
                "purpose": record.get("purpose", UNRECORDED_PURPOSE),
                "agent": header.run.agent.name,
                "role": record.get("role", ""),  # planner, executor, ... ("" for an agent with one LLM)
                "source": record.get("source", ""),
                "author": author,
                "outcome": outcome,
                "parent": parent,
                "inherited": position < inherited_upto,
            },
        }
        lines.append(json_line(pair))  # a lone surrogate from a model stays lossless
    return lines


def unpaired_answers(journal: Journal) -> int:
    """Applied answers journaled without their prompt: left out of an SFT export."""
    return sum(r.get("type") == "answer" and bool(r.get("accepted")) and not r.get("prompt") for r in journal.records)


def journal_agent(journal: Journal) -> str:
    """The agent that recorded `journal` (journals from before the agent seam are ReCode's: the header says so)."""
    return journal.header.run.agent.name


def markdown_transcript(journal: Journal, events: list[ev.Event]) -> str:
    """A readable account of a run: task, each node, its LLM answers, actions, decisions and result.

    ReCode's answers are code; other agents' are their own text (an action, a plan,
    a subtask list), shown as such, with the role that answered when there are several.
    """
    header = journal.header
    agent_name = journal_agent(journal)
    code = answers_are_code(agent_name)
    out = [f"# Session {journal.session_id}", "", f"- agent: `{agent_name}`",
           f"- game: `{header.game}` ({header.task_type})", f"- LLM: `{header.run.model.llm}`", ""]
    for event in events:
        match event:
            case ev.RunStarted():
                out += [f"**Task:** {event.task}", "", "```text", event.observation, "```", ""]
            case ev.NodeStarted():
                out += [f"{'  ' * event.depth}- `{event.node_id}` `{(event.code.splitlines() or [''])[0]}`"]
            case ev.LLMAnswered():
                if has_code_tree(agent_name):
                    title = f"**Expansion of `{event.node_id}`** ({event.source})"
                else:
                    role = f", {event.role}" if event.role else ""
                    title = f"**Answer for `{event.node_id}`** ({event.purpose}{role}; {event.source})"
                out += ["", f"  {title}", ""]
                if event.thought:
                    out += [f"  > {event.thought}", ""]
                shown = "\n".join(event.blocks) if event.blocks else ("" if code else event.raw.strip())
                if shown:
                    out += [f"  ```{'python' if code else 'text'}", *["  " + line for line in shown.splitlines()], "  ```", ""]
            case ev.LLMRejected():
                out += [f"  - answer rejected: {event.reason}"]
            case ev.ObservationReceived():
                out += [f"    - `> {event.action}` — {event.observation}"]
            case ev.AgentNote():
                out += [*([""] if out[-1] else []), f"  **{event.label}** at `{event.node_id}`", "", "  ```text",
                        *["  " + line for line in event.text.splitlines()], "  ```", ""]
            case ev.NodeError():
                out += [f"    - **error:** {event.error}"]
            case ev.RunFinished():
                verdict = "won" if event.success else f"not won: {event.reason}"
                out += ["", f"**Result:** {verdict}; {event.steps} steps, {event.llm_calls} LLM calls, ${event.cost:.4f}", ""]
    return "\n".join(out)


def trace_document(agent: Stepper, events: list[ev.Event], meta: dict[str, Any] | None = None,
                   started: float | None = None) -> dict[str, Any]:
    """The run as `recode.trace.v1`, for every agent: its nodes, then everything that happened in order.

    `trace` items have a `type`: `llm_call` (node, purpose, role, prompt, answer, accepted or the
    reason it was refused, source, tokens, cost), `action` (node, step, action, observation, done,
    won), `note` (an agent decision: label, text), `error` (node, error) and, last, `finished`.
    """
    finished = agent.host.finished
    trace: list[dict[str, Any]] = []
    asked: ev.LLMRequested | None = None
    for event in events:
        match event:
            case ev.LLMRequested():
                asked = event
            case ev.LLMAnswered() | ev.LLMRejected():
                accepted = isinstance(event, ev.LLMAnswered)
                call: dict[str, Any] = {
                    "type": "llm_call",
                    "node_id": asked.node_id if asked else event.node_id,
                    "purpose": asked.purpose if asked else event.purpose,
                    "role": event.role,
                    "attempt": asked.attempt if asked else 1,
                    "prompt": asked.prompt if asked else "",
                    "answer": event.raw,
                    "accepted": accepted,
                    "reason": event.reason if isinstance(event, ev.LLMRejected) else "",
                    "source": event.source,
                }
                # a refused answer was paid for too: its tokens and cost are counted like an accepted one's
                call.update({"input_tokens": event.input_tokens, "output_tokens": event.output_tokens,
                             "cost": event.cost, "seconds": round(event.seconds, 3),
                             **({"cut_at": event.cut_at} if event.cut_at is not None else {}),
                             **({"cut_rest": event.cut_rest} if isinstance(event, ev.LLMAnswered) and event.cut_rest
                                else {})})
                if isinstance(event, ev.LLMAnswered):
                    call.update({"thought": event.thought, "blocks": list(event.blocks),
                                 "child_ids": list(event.child_ids)})
                trace.append(call)
                asked = None
            case ev.ObservationReceived():
                trace.append({"type": "action", "node_id": event.node_id, "step": event.step, "action": event.action,
                              "observation": event.observation, "done": event.done, "won": event.won})
            case ev.AgentNote():
                trace.append({"type": "note", "node_id": event.node_id, "label": event.label, "text": event.text})
            case ev.NodeError():
                trace.append({"type": "error", "node_id": event.node_id, "error": event.error})
            case ev.LLMFailed():
                trace.append({"type": "error", "node_id": event.node_id, "error": event.error,
                              "seconds": round(event.seconds, 3)})
            case ev.RunFinished():
                trace.append({"type": "finished", "node_id": event.node_id, "success": event.success,
                              "reason": event.reason})
    stats = agent.stats
    return {
        "version": TRACE_VERSION,
        "meta": {
            "agent": agent.name,
            "options": dict(agent.options),
            "env": agent.env.name,
            "task_type": agent.env.task_type,
            "task": agent.task,
            "time": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(started)),
            "success": finished.success if finished else None,
            "reason": finished.reason if finished else "unfinished",
            "steps": agent.env.steps,
            "llm_calls": stats.llm_calls,
            "input_tokens": stats.usage.input_tokens,
            "output_tokens": stats.usage.output_tokens,
            "cost": stats.cost,
            "llm_seconds": round(stats.llm_seconds, 3),
            "roles": stats.role_dicts(),
            **(meta or {}),
        },
        "root_id": agent.tree.root.id,
        "nodes": [node.to_dict() for node in agent.tree.walk()],
        "trace": trace,
    }
