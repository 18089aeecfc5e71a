"""Two runs of one episode side by side: where they part, what made them part, and the rest aligned.

The first divergence is found by walking both runs' outputs in order (each
LLM answer, each action with its observation, the end) to the first one that
differs; the LLM call at that point (or the last one before it) is what made
them part, shown as unified diffs of its two prompts and its two answers. The
rest is aligned row by row: the environment steps by longest common
subsequence of (action, observation), and for agents that build a tree the
nodes by their path and code (children of matched nodes aligned by code).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Literal

from agent.sessions.journal_read import Journal
from agent.eval.rundiff.lcs import align
from agent.eval.rundiff.prompts import PromptDifference, prompt_difference
from agent.eval.rundiff.runs import Call, Run, Step, read_run
from agent.runtime.tree import Node

Op = Literal["equal", "changed", "only_a", "only_b"]


class IncomparableRuns(ValueError):
    """Two runs that cannot be diffed; the message is one line that says why."""


@dataclass(frozen=True)
class StepRow:
    op: Op
    a: Step | None
    b: Step | None


@dataclass(frozen=True)
class NodeRow:
    op: Op
    path: str
    depth: int
    a: Node | None
    b: Node | None


@dataclass
class Divergence:
    """Where two runs part: the step, the action each side took, and the LLM call that led there."""

    kind: Literal["answer", "action", "end"]  # what differs first
    before_step: int  # the first differing output came before this environment step
    step: int  # the environment step at which the actions part (equal steps before it: step - 1)
    record_a: int | None  # the first differing record's position (None: that run had ended)
    record_b: int | None
    action_a: Step | None  # the action each side took at `step` (None: that run sent no more)
    action_b: Step | None
    call_a: Call | None  # the LLM call at the divergence, or the last one before it
    call_b: Call | None
    prompt_diff: list[str] = field(default_factory=list)  # unified diff lines ([] when the prompts are the same)
    answer_diff: list[str] = field(default_factory=list)

    @property
    def node_a(self) -> str:
        return self.call_a.node_id if self.call_a else ""

    @property
    def node_b(self) -> str:
        return self.call_b.node_id if self.call_b else ""


@dataclass
class RunDiff:
    a: Run
    b: Run
    divergence: Divergence | None  # None: the two runs are the same
    steps: list[StepRow]
    nodes: list[NodeRow] | None  # None: the agents build no tree to align (or two different agents)
    prompts: PromptDifference = field(default_factory=lambda: PromptDifference(None, None))

    @property
    def step_divergence_row(self) -> int:
        """The row of `steps` where the runs part (the first row that is not equal); -1 when none."""
        return next((i for i, row in enumerate(self.steps) if row.op != "equal"), -1)

    @property
    def node_divergence_row(self) -> int:
        """The row of `nodes` holding the node of the diverging LLM call, else the first unequal row; -1 when none."""
        if not self.nodes:
            return -1
        d = self.divergence
        if d is not None and (d.node_a or d.node_b):
            for i, row in enumerate(self.nodes):
                if (row.a is not None and row.a.id == d.node_a) or (row.b is not None and row.b.id == d.node_b):
                    return i
        return next((i for i, row in enumerate(self.nodes) if row.op != "equal"), -1)


def comparable(a: Journal, b: Journal) -> str:
    """Why two journals cannot be diffed ('' when they can): another environment or another episode."""
    env_a, env_b = a.header.run.env.name, b.header.run.env.name
    if env_a != env_b:
        return f"{a.session_id} ran in {env_a} and {b.session_id} in {env_b}: a diff compares runs of the same episode"
    ep_a, ep_b = a.header.episode_name, b.header.episode_name
    if ep_a != ep_b:
        return (f"{a.session_id} played {ep_a} and {b.session_id} played {ep_b}: "
                "a diff compares runs of the same episode (give two runs of one game)")
    fa, fb = a.header.fingerprint, b.header.fingerprint
    if fa and fb and fa != fb:
        return f"{ep_a} changed between the two runs (its fingerprint differs): the runs played different games"
    return ""


def unified(before: str, after: str, a: str = "A", b: str = "B", context: int = 2) -> list[str]:
    """Unified diff lines of two texts ([] when they are the same)."""
    if before == after:
        return []
    return [line.rstrip("\n") for line in difflib.unified_diff(
        before.splitlines(), after.splitlines(), fromfile=a, tofile=b, n=context, lineterm="")]


def _outputs(run: Run) -> list[tuple[int, tuple[object, ...]]]:
    """The run's outputs in record order, each (record position, what must be equal)."""
    found: list[tuple[int, tuple[object, ...]]] = []
    for position, record in enumerate(run.journal.records):
        kind = record.get("type")
        if kind == "answer":
            found.append((position, ("answer", str(record.get("answer", "")).strip(), bool(record.get("accepted")))))
        elif kind == "action" and not record.get("refused"):
            found.append((position, ("action", record.get("action"), record.get("observation"))))
        elif kind == "finished":
            found.append((position, ("end", bool(record.get("success")), record.get("reason"))))
    return found


def first_divergence(a: Run, b: Run) -> Divergence | None:
    """The first output that differs between the runs, and the LLM call that led there; None when none does."""
    out_a, out_b = _outputs(a), _outputs(b)
    index = 0
    while index < len(out_a) and index < len(out_b) and out_a[index][1] == out_b[index][1]:
        index += 1
    if index == len(out_a) and index == len(out_b):
        return None
    here_a = out_a[index] if index < len(out_a) else None
    here_b = out_b[index] if index < len(out_b) else None
    kinds = {str(h[1][0]) for h in (here_a, here_b) if h is not None}
    kind: Literal["answer", "action", "end"] = "answer" if "answer" in kinds else "action" if "action" in kinds else "end"
    equal_steps = sum(1 for _, key in out_a[:index] if key[0] == "action")
    part = equal_steps  # the actions may stay equal for a while after a differing answer
    while part < len(a.steps) and part < len(b.steps) and a.steps[part].key == b.steps[part].key:
        part += 1
    rec_a = here_a[0] if here_a else None
    rec_b = here_b[0] if here_b else None
    call_a = a.call_at_or_before(rec_a if rec_a is not None else len(a.journal.records))
    call_b = b.call_at_or_before(rec_b if rec_b is not None else len(b.journal.records))
    return Divergence(
        kind=kind, before_step=equal_steps + 1, step=part + 1, record_a=rec_a, record_b=rec_b,
        action_a=a.steps[part] if part < len(a.steps) else None,
        action_b=b.steps[part] if part < len(b.steps) else None,
        call_a=call_a, call_b=call_b,
        prompt_diff=unified(call_a.prompt if call_a else "", call_b.prompt if call_b else "", "A prompt", "B prompt"),
        answer_diff=unified(call_a.answer if call_a else "", call_b.answer if call_b else "", "A answer", "B answer"),
    )


def _op(same: bool, a: object, b: object) -> Op:
    if a is None:
        return "only_b"
    if b is None:
        return "only_a"
    return "equal" if same else "changed"


def align_steps(a: Run, b: Run) -> list[StepRow]:
    rows = align([s.key for s in a.steps], [s.key for s in b.steps])
    out = []
    for i, j in rows:
        sa = a.steps[i] if i is not None else None
        sb = b.steps[j] if j is not None else None
        out.append(StepRow(_op(sa is not None and sb is not None and sa.key == sb.key, sa, sb), sa, sb))
    return out


def _accepted(node: Node) -> str:
    return next((e.answer.strip() for e in reversed(node.llm_calls) if e.accepted), "")


def _same_node(x: Node, y: Node) -> bool:
    return x.code == y.code and _accepted(x) == _accepted(y) and x.observations == y.observations


def align_nodes(a: Run, b: Run) -> list[NodeRow]:
    """Pre-order rows: the roots, then each matched pair's children aligned by code (one-sided subtrees below)."""
    rows: list[NodeRow] = []
    stack: list[tuple[Node | None, Node | None, str]] = [(a.view.tree.root, b.view.tree.root, "0")]
    while stack:
        na, nb, path = stack.pop()
        either = na if na is not None else nb
        assert either is not None
        rows.append(NodeRow(_op(na is not None and nb is not None and _same_node(na, nb), na, nb),
                            path, either.depth, na, nb))
        kids_a = na.children if na is not None else []
        kids_b = nb.children if nb is not None else []
        if not kids_a and not kids_b:
            continue
        codes_a, codes_b = [c.code.strip() for c in kids_a], [c.code.strip() for c in kids_b]
        pairs: list[tuple[int | None, int | None]] = (
            [(i, i) for i in range(len(codes_a))] if codes_a == codes_b else align(codes_a, codes_b))
        children = [(kids_a[i] if i is not None else None, kids_b[j] if j is not None else None,
                     f"{path}.{i if i is not None else j}") for i, j in pairs]
        stack.extend(reversed(children))
    return rows


def diff_runs(a: Journal, b: Journal) -> RunDiff:
    """Align two journals of one episode; IncomparableRuns (one line) for another environment or game."""
    reason = comparable(a, b)
    if reason:
        raise IncomparableRuns(reason)
    run_a, run_b = read_run(a, "A"), read_run(b, "B")
    nodes = align_nodes(run_a, run_b) if run_a.has_nodes and run_a.agent == run_b.agent else None
    return RunDiff(run_a, run_b, first_divergence(run_a, run_b), align_steps(run_a, run_b), nodes,
                   prompt_difference(run_a, run_b))
