"""What a run exports: its tree (`recode.plan.v1`), SFT pairs, a Markdown transcript.

The tree shape follows spec §6: `version`, `meta`, `root_id`, `nodes` (id ->
node fields), `edges` (parent -> child, in order). Every accepted expansion is
one supervised pair: the prompt as the user message, the applied answer as the
assistant message.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from agent import events as ev
from agent.stepper import Stepper
from agent.journal import Journal
from agent.tree import CodeTree, Node, NodeStatus

PLAN_VERSION = "recode.plan.v1"
NODE_FIELDS = ("id", "code", "status", "depth", "thought", "observations", "error", "children")


def tree_document(engine: Stepper, meta: dict[str, Any] | None = None, started: float | None = None) -> dict[str, Any]:
    """The run's tree; `meta.time` is when the run started (`started`, e.g. the journal's), else now."""
    tree = engine.tree
    finished = engine.finished
    return {
        "version": PLAN_VERSION,
        "meta": {
            "env": engine.env.name,
            "task_type": engine.env.task_type,
            "task": engine.task,
            "limits": {
                "max_depth": engine.limits.max_depth,
                "max_rewrite": engine.limits.max_rewrite,
                "max_retry": engine.limits.max_retry,
                "max_steps": engine.env.max_steps,
            },
            "time": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(started)),
            "success": finished.success if finished else None,
            "steps": engine.env.steps,
            "llm_calls": engine.llm_calls,
            "cost": engine.cost,
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
    statuses = {s.value for s in NodeStatus}
    for node_id, node in nodes.items():
        missing = [f for f in NODE_FIELDS if f not in node]
        if missing:
            raise PlanFormatError(f"node {node_id} lacks {', '.join(missing)}")
        if node["id"] != node_id or node["status"] not in statuses:
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
            id=node_id, code=raw["code"], depth=raw["depth"], parent=parent, status=NodeStatus(raw["status"]),
            thought=raw.get("thought") or "", observations=list(raw.get("observations") or []), error=raw.get("error") or "",
        )
        tree.nodes[node_id] = node
        node.children = [build(child, node) for child in raw["children"]]
        return node

    tree.root = build(data["root_id"], None)
    return tree


# Who wrote an applied answer, from the journal's `source`: a person, a person editing the model's text, or not a person.
AUTHORS = {"human": "person", "model+edited": "edited", "model": "model", "scripted": "model"}
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
    parent = header.get("parent") or None
    inherited_upto = int(parent.get("records", 0)) if isinstance(parent, dict) else 0
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
                "env": header.get("env"),
                "game": header.get("game"),
                **({"episode": header["episode"]} if header.get("episode") else {}),
                "task_type": header.get("task_type"),
                "node_id": record["node_id"],
                "stub": record.get("stub", ""),
                "purpose": record.get("purpose", "expand"),
                "source": record.get("source", ""),
                "author": author,
                "outcome": outcome,
                "parent": parent,
                "inherited": position < inherited_upto,
            },
        }
        lines.append(json.dumps(pair, ensure_ascii=False))
    return lines


def unpaired_answers(journal: Journal) -> int:
    """Applied answers journaled without their prompt: left out of an SFT export."""
    return sum(r.get("type") == "answer" and bool(r.get("accepted")) and not r.get("prompt") for r in journal.records)


def eval_folder(ref: str | Path | None) -> Path | None:
    """The evaluation folder `ref` names (the folder, or its report.json), else None."""
    if not ref:
        return None
    path = Path(ref)
    if path.is_file() and path.name == "report.json":
        return path.parent
    if path.is_dir() and ((path / "report.json").is_file() or (path / "journals").is_dir()):
        return path
    return None


def eval_journals(folder: Path) -> list[Path]:
    """Every episode's journal folder of an evaluation, in the report's order.

    The report names each episode's journal (a folder moved since is looked up
    under its `journals/`); without a readable report, every journal there.
    """
    from agent.journal import JOURNAL_FILE

    found: list[Path] = []
    try:
        report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
        episodes = report.get("episodes") or []
    except (OSError, ValueError, AttributeError):
        episodes = None
    if episodes is not None:
        for episode in episodes:
            recorded = Path(str(episode.get("journal") or ""))
            for candidate in (recorded, folder / "journals" / recorded.name):
                if recorded.name and (candidate / JOURNAL_FILE).is_file():
                    found.append(candidate)
                    break
        return found
    return sorted(p.parent for p in (folder / "journals").glob(f"*/{JOURNAL_FILE}"))


def markdown_transcript(journal: Journal, events: list[ev.Event]) -> str:
    """A readable account of a run: task, each node, its expansions, actions and result."""
    header = journal.header
    out = [f"# Session {journal.session_id}", "", f"- game: `{header.get('game')}` ({header.get('task_type')})",
           f"- LLM: `{header.get('llm')}`", ""]
    for event in events:
        match event:
            case ev.RunStarted():
                out += [f"**Task:** {event.task}", "", "```text", event.observation, "```", ""]
            case ev.NodeStarted():
                out += [f"{'  ' * event.depth}- `{event.node_id}` `{event.code.splitlines()[0]}`"]
            case ev.ExpansionReceived():
                out += ["", f"  **Expansion of `{event.node_id}`** ({event.source})", ""]
                if event.thought:
                    out += [f"  > {event.thought}", ""]
                out += ["  ```python", *["  " + line for line in "\n".join(event.blocks).splitlines()], "  ```", ""]
            case ev.ExpansionRejected():
                out += [f"  - answer rejected: {event.reason}"]
            case ev.ObservationReceived():
                out += [f"    - `> {event.action}` — {event.observation}"]
            case ev.NodeError():
                out += [f"    - **error:** {event.error}"]
            case ev.RunFinished():
                verdict = "won" if event.success else f"not won: {event.reason}"
                out += ["", f"**Result:** {verdict}; {event.steps} steps, {event.llm_calls} LLM calls, ${event.cost:.4f}", ""]
    return "\n".join(out)
