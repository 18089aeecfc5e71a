"""A journal read without running anything: the no-exec view behind `export` (its default) and `tui --open`.

Resuming or exporting a session replays it, which runs its code again (in the
sandbox). A journal from elsewhere may hold hostile code, so this module
rebuilds what the records alone say: the answers (parsed, never run), the tree
ReCode would grow from them (children are the answers' top-level statements,
numbered as the agent numbers them), the actions and observations, the `!`
statements (shown, not run) and the end. What only running shows is named in
`NOT_SHOWN`. Nothing here starts an environment or a sandbox worker.

`foreign_reason` is the rule for "a journal from elsewhere": outside the
user's sessions folder, or a journal file owned by another user.
"""

from __future__ import annotations

import functools
import os
import re
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agent.runtime.code import parse_answer, split_blocks
from agent.llm import Completion, Purpose, Usage
from agent.runtime.costs import Stats
from agent.runtime.tree import CodeTree, LLMExchange, Node, NodeStatus
from agent.sessions.export import PLAN_VERSION, TRACE_VERSION, answers_are_code, has_code_tree, journal_agent
from agent.sessions.journal_read import JOURNAL_FILE, Journal
from agent.sessions.old_values import UNRECORDED_PURPOSE

NOT_SHOWN = (
    "what running shows: printed output, errors, variable values",
    "node states beyond expanded / acted / not reached",
    "the environment's first observation (the task is taken from the first prompt)",
)
NO_EXEC_LINE = ("shown from the journal's records without running any code (--exec replays it); not shown: "
                + "; ".join(NOT_SHOWN))


def foreign_reason(folder: Path, sessions_dir: Path) -> str:
    """Why a session folder counts as from elsewhere ('' when it is the user's own): its journal file
    belongs to another user, or the folder is not directly in the user's sessions folder."""
    journal = Path(folder) / JOURNAL_FILE
    try:
        owner = journal.stat().st_uid
        if sys.platform != "win32" and owner != os.getuid():
            return f"its journal belongs to another user (uid {owner})"
        if Path(folder).resolve().parent != Path(sessions_dir).resolve():
            return f"it is outside your sessions folder {sessions_dir}"
    except OSError:
        return "its journal cannot be checked"
    return ""


def foreign_note(folder: Path, sessions_dir: Path, doing: str) -> str:
    """One line for a journal from elsewhere: its code runs in the sandbox when `doing`; how to only look."""
    reason = foreign_reason(folder, sessions_dir)
    if not reason:
        return ""
    return (f"{folder} is from elsewhere ({reason}): its code (answers, `!` statements) runs again in the sandbox "
            f"when {doing}; to look without running it: recode-tui export {folder} --markdown, "
            f"or recode-tui tui --open {folder}")


@dataclass
class JournalView:
    """What the records of one journal say, with the tree rebuilt from its answers (ReCode)."""

    journal: Journal
    tree: CodeTree
    unplaced: list[str] = field(default_factory=list)  # records the rebuilt tree has no node for

    @property
    def agent(self) -> str:
        return journal_agent(self.journal)

    @property
    def task(self) -> str:
        """The task as the first prompt states it (the environment is never started here)."""
        prompt = next((r.get("prompt", "") for r in self.journal.records if r.get("type") == "answer"), "")
        # the last one: the prompt's examples come first, the run's own variables last
        found = re.findall(r"^- instruction \([^)\n]*\): (.*)$", prompt, re.M) or re.findall(r"^(?:Task|TASK):\s*(.*)$", prompt, re.M)
        return found[-1].strip() if found else ""

    def not_shown(self) -> list[str]:
        return [*NOT_SHOWN, *(f"{n} (no node for it in the rebuilt tree)" for n in self.unplaced)]


def read_view(journal: Journal) -> JournalView:
    """Rebuild the tree from the accepted answers, in order; attach answers, actions and statements to nodes.

    Other agents have no code tree: their nodes (turns, cells, steps) hang under the root as the records name them.
    """
    agent_name = journal_agent(journal)
    records = journal.records
    first = next((r for r in records if r.get("type") == "answer"), None)
    root_code = (first or {}).get("stub") or "(the root's code is not in the journal)"
    tree_agent = has_code_tree(agent_name)  # declared by the agent (`Stepper.traits.code_tree`)
    if not tree_agent:
        root_code = f"({agent_name} run)"  # its first stub is a turn's or a cell's, not the root's
    tree = CodeTree(root_code)
    view = JournalView(journal, tree)
    unnamed: set[str] = set()  # nodes placed by their parent's `child_ids`, whose code no record has given yet
    for record in records:
        kind = record.get("type")
        node_id = str(record.get("node_id") or "")
        node = tree.nodes.get(node_id)
        if node is None and not tree_agent and node_id:  # a turn, cell or step, as the records name it
            node = Node(id=node_id, code=str(record.get("stub") or node_id), depth=1, parent=tree.root)
            tree.root.children.append(node)
            tree.nodes[node_id] = node
        elif node is not None and node_id in unnamed:  # its own record names it: a stub, or the action it sent
            code = record.get("stub") if kind == "answer" else f"> {record.get('action')}" if kind == "action" else None
            if code:
                node.code = str(code)
                unnamed.discard(node_id)
        if node is not None and not tree_agent and kind == "answer" and record.get("accepted"):
            _place_children(tree, node, record.get("child_ids"), unnamed)
        if node is None:
            if kind in ("answer", "action", "statement") and node_id and node_id not in view.unplaced:
                view.unplaced.append(node_id)
            continue
        if kind == "answer":
            accepted = bool(record.get("accepted"))
            node.llm_calls.append(LLMExchange(
                prompt=record.get("prompt", ""), answer=record.get("answer", ""), source=record.get("source", ""),
                accepted=accepted, input_tokens=record.get("input_tokens", 0), output_tokens=record.get("output_tokens", 0),
                cost=record.get("cost", 0.0), purpose=record.get("purpose", UNRECORDED_PURPOSE),
                seconds=record.get("seconds") or 0.0, person_seconds=record.get("person_seconds", 0.0),
            ))
            if accepted and tree_agent:
                blocks, thought = _blocks(str(record.get("answer", "")))
                tree.add_children(node, list(blocks))
                node.thought = thought
                if record.get("purpose") == Purpose.REPAIR:  # asked to repair: the node had failed
                    node.status, node.error = NodeStatus.ERROR, "(it failed; the error text is not in the journal)"
                else:
                    node.status = NodeStatus.AWAITING_LLM if blocks else NodeStatus.SKIP
        elif kind == "action":
            node.observations.append(str(record.get("observation", "")))
            if node.status is NodeStatus.PENDING:
                node.status = NodeStatus.COMPLETED
    _mark_reached(tree)
    return view


def _place_children(tree: CodeTree, parent: Node, child_ids: object, unnamed: set[str]) -> None:
    """Hang the nodes an answer made (the record's `child_ids`) under its node: the tree of an agent
    whose children are not code (ReCAP's subtasks, Plan-and-Execute's steps and turns)."""
    if not isinstance(child_ids, list):
        return  # a journal from before `child_ids` were recorded: its nodes hang under the root
    for child_id in (str(c) for c in child_ids):
        if child_id in tree.nodes:
            continue
        child = Node(id=child_id, code=child_id, depth=parent.depth + 1, parent=parent)
        parent.children.append(child)
        tree.nodes[child_id] = child
        unnamed.add(child_id)


@functools.lru_cache(maxsize=4096)
def _blocks(answer: str) -> tuple[tuple[str, ...], str]:
    """An answer's top-level statements and thought; cached, as two runs diffed share most answers."""
    try:
        parsed = parse_answer(answer, allow_plain_code=True)
        blocks = split_blocks(parsed.code, parsed.first_line) if parsed.code.strip() else []
    except (ValueError, SyntaxError):
        return (), ""
    return tuple(blocks), parsed.thought


def _mark_reached(tree: CodeTree) -> None:
    """Leaves before the last node the records show activity at ran (depth-first order): COMPLETED."""
    order = list(tree.walk())
    active = [i for i, n in enumerate(order) if n.status is not NodeStatus.PENDING]
    for node in order[: active[-1] if active else 0]:
        if node.status is NodeStatus.PENDING and not node.children:
            node.status = NodeStatus.COMPLETED


def _records_meta(view: JournalView, meta: dict[str, Any] | None) -> dict[str, Any]:
    journal = view.journal
    header, finished = journal.header, journal.finished
    answers = [r for r in journal.records if r.get("type") == "answer"]
    return {
        "env": header.run.env.name,
        "task_type": header.task_type,
        "task": view.task,
        "limits": {**(asdict(header.run.limits) if header.run.limits else {}), "max_steps": header.run.max_steps},
        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(header.created or None)),
        "success": finished.get("success") if finished else None,
        "steps": sum(r.get("type") == "action" for r in journal.records),
        "llm_calls": len(answers),
        "cost": sum(r.get("cost", 0.0) for r in answers),
        "no_exec": True,
        "not_shown": view.not_shown(),
        **(meta or {}),
    }


def tree_document_from_records(view: JournalView, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """`recode.plan.v1` from the records (`meta.no_exec`, and `meta.not_shown` says what is missing)."""
    tree = view.tree
    return {
        "version": PLAN_VERSION,
        "meta": _records_meta(view, meta),
        "root_id": tree.root.id,
        "nodes": {node.id: node.to_dict() for node in tree.walk()},
        "edges": [[node.id, child.id] for node in tree.walk() for child in node.children],
    }


def stats_from_records(records: list[dict[str, Any]]) -> Stats:
    """A run's counts from its journal's records, summed as the run counted them (`Stats`): every answer,
    refused and cut ones included, and the seconds of the calls that failed."""
    stats = Stats()
    for record in records:
        if record.get("type") == "answer":
            usage = Usage(int(record.get("input_tokens") or 0), int(record.get("output_tokens") or 0))
            stats.add(Completion(text="", usage=usage, cost=float(record.get("cost") or 0.0),
                                 seconds=float(record.get("seconds") or 0.0),
                                 person_seconds=float(record.get("person_seconds") or 0.0),
                                 estimated=bool(record.get("estimated"))), str(record.get("role") or ""))
        elif record.get("type") == "llm_failed":
            stats.failed(float(record.get("seconds") or 0.0), str(record.get("role") or ""))
    return stats


def trace_document_from_records(view: JournalView, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """`recode.trace.v1` from the records: every LLM call, action, `!` statement (not run), failure and the
    end, with the same fields and `meta` totals as a replay's (`export.trace_document`)."""
    trace: list[dict[str, Any]] = []
    records = view.journal.records
    actions = [r for r in records if r.get("type") == "action"]
    finished = view.journal.finished
    for record in records:
        kind = record.get("type")
        if kind == "answer":
            accepted = bool(record.get("accepted"))
            trace.append({
                "type": "llm_call", "node_id": record.get("node_id"), "purpose": record.get("purpose", UNRECORDED_PURPOSE),
                "role": record.get("role", ""), "attempt": record.get("attempt", 1),
                "prompt": record.get("prompt", ""), "answer": record.get("answer", ""),
                "accepted": accepted, "reason": "" if accepted else record.get("reason", ""),
                "source": record.get("source", ""),
                "input_tokens": record.get("input_tokens", 0), "output_tokens": record.get("output_tokens", 0),
                "cost": record.get("cost", 0.0), "seconds": record.get("seconds", 0.0),
                **({"cut_at": record["cut_at"]} if record.get("cut_at") is not None else {}),
                **({"cut_rest": record["cut_rest"]} if record.get("cut_rest") else {}),
            })
        elif kind == "action":
            done, won = bool(record.get("done")), bool(record.get("won"))
            if "done" not in record and finished and finished.get("success") and record is actions[-1]:
                done = won = True  # a journal from before `done` was recorded: the won run's last action won it
            trace.append({"type": "action", "node_id": record.get("node_id"), "step": record.get("step"),
                          "action": record.get("action"), "observation": record.get("observation"),
                          "done": done, "won": won})
        elif kind == "statement":
            trace.append({"type": "statement", "node_id": record.get("node_id"), "code": record.get("code"),
                          "run": False})
        elif kind == "llm_failed":
            trace.append({"type": "error", "node_id": record.get("node_id"), "error": record.get("error"),
                          "seconds": record.get("seconds", 0.0)})
        elif kind == "finished":
            trace.append({"type": "finished", "success": record.get("success"), "reason": record.get("reason")})
    stats = stats_from_records(records)
    return {
        "version": TRACE_VERSION,
        "meta": {"agent": view.agent, "options": dict(view.journal.header.run.agent.options),
                 **_records_meta(view, meta), "reason": finished.get("reason", "") if finished else "unfinished",
                 "input_tokens": stats.usage.input_tokens, "output_tokens": stats.usage.output_tokens,
                 "llm_seconds": round(stats.llm_seconds, 3), "roles": stats.role_dicts()},
        "root_id": view.tree.root.id,
        "nodes": [node.to_dict() for node in view.tree.walk()],
        "trace": trace,
    }


def markdown_from_records(view: JournalView) -> str:
    """The transcript `export --markdown` gives, from the records alone: answers, actions, statements, result.

    A code tree's transcript is laid out as a replay lays it out (`export.markdown_transcript`): each
    node where it started, its expansion's thought and code, the actions it sent; what only running
    shows is left out."""
    journal = view.journal
    header = journal.header
    code = answers_are_code(view.agent)
    out = [f"# Session {journal.session_id}", "", f"- agent: `{view.agent}`",
           f"- game: `{header.game}` ({header.task_type})", f"- LLM: `{header.run.model.llm}`", "",
           f"> {NO_EXEC_LINE}.", ""]
    if view.task:
        out += [f"**Task:** {view.task}", ""]
    if has_code_tree(view.agent):
        return "\n".join(out + _tree_markdown(view))
    for record in journal.records:
        kind = record.get("type")
        node_id = record.get("node_id")
        if kind == "answer":
            stub = (str(record.get("stub") or "").splitlines() or [""])[0]
            verdict = "" if record.get("accepted") else ", rejected"
            out += [""] if out[-1] else []
            out += [f"**Answer for `{node_id}`** `{stub}` ({record.get('purpose', UNRECORDED_PURPOSE)}; "
                    f"{record.get('source', '')}{verdict})", "",
                    f"```{'python' if code else 'text'}", *str(record.get("answer", "")).strip().splitlines(), "```", ""]
        elif kind == "action":
            out += [f"- `> {record.get('action')}` — {record.get('observation')}"]
        elif kind == "statement":
            out += ["", f"**`!` statement at `{node_id}`** (recorded, not run here)", "", "```python",
                    *str(record.get("code", "")).splitlines(), "```", ""]
        elif kind == "llm_failed":
            out += [f"- **LLM failed** at `{node_id}`: {record.get('error')}"]
        elif kind == "finished":
            verdict = "won" if record.get("success") else f"not won: {record.get('reason')}"
            out += ["", f"**Result:** {verdict}; {record.get('steps')} steps, {record.get('llm_calls')} LLM calls, "
                        f"${record.get('cost', 0.0):.4f}", ""]
    if journal.finished is None:
        out += ["", "**Result:** unfinished", ""]
    if view.unplaced:
        out += [f"_Records for {', '.join(view.unplaced)} have no node in the tree rebuilt from the answers._", ""]
    return "\n".join(out)


def _tree_markdown(view: JournalView) -> list[str]:
    """The nodes the run reached, depth first, each with its answers, actions and `!` statements."""
    by_node: dict[str, list[dict[str, Any]]] = {}
    for record in view.journal.records:
        if record.get("type") in ("answer", "action", "statement", "llm_failed"):
            by_node.setdefault(str(record.get("node_id") or ""), []).append(record)
    out: list[str] = []
    for node in view.tree.walk():
        records = by_node.get(node.id, [])
        if node.status is NodeStatus.PENDING and not records:
            continue  # not reached, as far as the records show
        out.append(f"{'  ' * node.depth}- `{node.id}` `{(node.code.splitlines() or [''])[0]}`")
        for record in records:
            out += _tree_record_lines(node.id, record)
    finished = view.journal.finished
    if finished is not None:
        verdict = "won" if finished.get("success") else f"not won: {finished.get('reason')}"
        out += ["", f"**Result:** {verdict}; {finished.get('steps')} steps, {finished.get('llm_calls')} LLM calls, "
                    f"${finished.get('cost', 0.0):.4f}", ""]
    else:
        out += ["", "**Result:** unfinished", ""]
    if view.unplaced:
        out += [f"_Records for {', '.join(view.unplaced)} have no node in the tree rebuilt from the answers._", ""]
    return out


def _tree_record_lines(node_id: str, record: dict[str, Any]) -> list[str]:
    kind = record.get("type")
    if kind == "answer" and record.get("accepted"):
        blocks, thought = _blocks(str(record.get("answer", "")))
        out = ["", f"  **Expansion of `{node_id}`** ({record.get('source', '')})", ""]
        if thought:
            out += [f"  > {thought}", ""]
        shown = "\n".join(blocks)
        if shown:
            out += ["  ```python", *["  " + line for line in shown.splitlines()], "  ```", ""]
        return out
    if kind == "answer":
        return [f"  - answer rejected: {record.get('reason') or '(the reason is not in the journal)'}"]
    if kind == "action":
        return [f"    - `> {record.get('action')}` — {record.get('observation')}"]
    if kind == "statement":
        return ["", f"  **`!` statement at `{node_id}`** (recorded, not run here)", "", "  ```python",
                *["  " + line for line in str(record.get("code", "")).splitlines()], "  ```", ""]
    return [f"    - **LLM failed** at `{node_id}`: {record.get('error')}"]
