"""`recode.diff.v1`: a diff as JSON for scripts (`recode-tui diff A B --json`); the shape is in the README."""

from __future__ import annotations

from dataclasses import asdict, is_dataclass
from typing import Any

from agent.eval.rundiff.diff import RunDiff
from agent.eval.rundiff.evals import EvalDiff
from agent.eval.rundiff.runs import Call, Run, Step
from agent.runtime.tree import Node

DIFF_VERSION = "recode.diff.v1"


def _run(run: Run) -> dict[str, Any]:
    return {"session": run.journal.session_id, "folder": str(run.journal.folder), "agent": run.agent,
            "env": run.env, "episode": run.episode, "success": run.success, "outcome": run.outcome,
            "steps": len(run.steps), "llm_calls": len(run.calls),
            "prompt_hash": run.header.run.prompts.hash, "llm": run.header.run.model.llm}


def _plain(value: Any) -> Any:
    """A header value as JSON holds it (the limits are a record)."""
    return asdict(value) if is_dataclass(value) and not isinstance(value, type) else value


def _step(step: Step | None) -> dict[str, Any] | None:
    if step is None:
        return None
    return {"step": step.number, "action": step.action, "observation": step.observation, "node_id": step.node_id}


def _call(call: Call | None) -> dict[str, Any] | None:
    if call is None:
        return None
    return {"index": call.number, "node_id": call.node_id, "purpose": call.purpose, "role": call.role,
            "stub": call.stub, "accepted": call.accepted, "prompt": call.prompt, "answer": call.answer}


def _node(node: Node | None, run: Run) -> dict[str, Any] | None:
    if node is None:
        return None
    return {"id": node.id, "path": run.paths.get(node.id, ""), "code": node.code, "depth": node.depth}


def diff_document(diff: RunDiff) -> dict[str, Any]:
    """One pair of runs: both runs, the first divergence (or null), the aligned steps and nodes (or null)."""
    d = diff.divergence
    divergence = None if d is None else {
        "kind": d.kind, "before_step": d.before_step, "step": d.step, "record": {"a": d.record_a, "b": d.record_b},
        "action": {"a": _step(d.action_a), "b": _step(d.action_b)},
        "llm_call": {"a": _call(d.call_a), "b": _call(d.call_b)},
        "prompt_diff": d.prompt_diff, "answer_diff": d.answer_diff,
    }
    return {
        "version": DIFF_VERSION,
        "kind": "runs",
        "a": _run(diff.a),
        "b": _run(diff.b),
        "divergence": divergence,
        "prompts": diff.prompts.to_dict(),
        "settings_differ": [{"setting": name, "a": _plain(a), "b": _plain(b)}
                            for name, a, b in diff.a.header.settings_differences(diff.b.header)],
        "steps": [{"op": row.op, "a": _step(row.a), "b": _step(row.b)} for row in diff.steps],
        "nodes": None if diff.nodes is None else [
            {"op": row.op, "path": row.path, "depth": row.depth, "a": _node(row.a, diff.a), "b": _node(row.b, diff.b)}
            for row in diff.nodes],
    }


def eval_diff_document(diff: EvalDiff) -> dict[str, Any]:
    """Two evaluations: each common episode (flipped first) with its run diff, or why it was not diffed."""
    return {
        "version": DIFF_VERSION,
        "kind": "evals",
        "a": diff.a,
        "b": diff.b,
        "episodes": [{"episode": e.episode, "task_type": e.task_type, "flipped": e.flipped,
                      "success": {"a": e.won_a, "b": e.won_b}, "refused": e.refused or None,
                      "diff": diff_document(e.diff) if e.diff is not None else None} for e in diff.episodes],
    }
