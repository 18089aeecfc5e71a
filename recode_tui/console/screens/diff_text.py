"""What the diff screen shows for one row on each side: the step or node, the env log, the LLM call.

Pure functions of the diff (`agent.eval.rundiff`) to Rich Text, kept apart from the
widgets so they are tested without an app. Journal text is shown as plain Text
(never markup: a journal may come from anyone).
"""

from __future__ import annotations

import difflib

from rich.text import Text

from agent.agents import status_words
from agent.eval.rundiff.diff import NodeRow, RunDiff, StepRow
from agent.eval.rundiff.runs import Call, Run, Step
from agent.runtime.safe_text import for_terminal
from recode_tui.setup.diffs import node_text, one_line, step_text
from recode_tui.console.widgets.diff_rows import Line

LOG_LINES = 8  # env log lines shown above the selected step


WIDEST = 400  # a row's text is cut here; the pane cuts it again to its width


def step_lines(diff: RunDiff) -> list[Line]:
    """One line a step row, control characters shown as escapes (the rows are drawn as raw segments)."""
    return [Line(row.op, one_line(step_text(row.a), WIDEST), one_line(step_text(row.b), WIDEST)) for row in diff.steps]


def node_lines(diff: RunDiff) -> list[Line]:
    return [Line(row.op, one_line(node_text(row.a), WIDEST), one_line(node_text(row.b), WIDEST))
            for row in diff.nodes or []]


def _own_lines(mine: str, theirs: str, style: str) -> Text:
    """`mine` line by line, the lines the other side does not have in `style`."""
    out = Text()
    a, b = for_terminal(mine).splitlines(), for_terminal(theirs).splitlines()
    for tag, i1, i2, _, _ in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        for line in a[i1:i2]:
            out.append(line + "\n", "" if tag == "equal" else style)
    return out


def _prompt_hunks(mine: str, theirs: str, style: str, context: int = 2) -> Text:
    """The parts of `mine` where it differs from `theirs`, with a little context; its own lines in `style`."""
    a, b = for_terminal(mine).splitlines(), for_terminal(theirs).splitlines()
    out = Text()
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(context):
        out.append(f"@@ line {group[0][1] + 1} @@\n", "cyan")
        for tag, i1, i2, _, _ in group:
            for line in a[i1:i2]:
                out.append(("  " if tag == "equal" else "» ") + line + "\n", "dim" if tag == "equal" else style)
    return out


def call_text(call: Call | None, other: Call | None, run: Run, other_run: Run, style: str) -> Text:
    if call is None:
        return Text("no LLM call before this point\n", "dim")
    stub = for_terminal((call.stub.strip().splitlines() or [""])[0], newlines=False)
    out = Text()
    out.append(for_terminal(f"LLM call {call.number} ({call.purpose}) for {call.node_id}", newlines=False), "bold")
    out.append(f" {stub}\n" if stub else "\n", "dim")
    out.append("answer" + ("" if call.accepted else " (rejected)") + ":\n", "bold")
    out.append_text(_own_lines(call.answer.strip(), other.answer.strip() if other else "", style))
    if other is None:
        out.append(f"prompt: {len(call.prompt.splitlines())} lines ({other_run.name} has no call here)\n", "dim")
    elif call.prompt == other.prompt:
        out.append(f"prompt: the same as {other_run.name}'s ({len(call.prompt.splitlines())} lines)\n", "dim")
    else:
        out.append(f"prompt: where it differs from {other_run.name}'s (» its own lines)\n", "bold")
        out.append_text(_prompt_hunks(call.prompt, other.prompt, style))
    return out


def _log(steps: list[Step], selected: Step | None) -> Text:
    out = Text()
    if not steps:
        out.append("(no action yet)\n", "dim")
    for step in steps[-LOG_LINES:]:
        here = selected is not None and step.record == selected.record
        out.append(f"{'▶' if here else ' '}{step.number:>3} > {for_terminal(step.action, newlines=False)}\n",
                   "bold" if here else "")
        out.append(f"      {for_terminal(' '.join(step.observation.split()), newlines=False)}\n", "" if here else "dim")
    return out


def _nearest(rows: list[StepRow], index: int, side: str) -> Step | None:
    """This side's step at row `index`, else its last step in a row above it."""
    for row in reversed(rows[: index + 1]):
        step = row.a if side == "a" else row.b
        if step is not None:
            return step
    return None


def step_side(diff: RunDiff, index: int, side: str) -> Text:
    """One side's pane for step row `index`: the step, the LLM call that led to it, the env log before it.

    The step and the call come first: on a small terminal they are what the pane has room for.
    """
    run, other_run = (diff.a, diff.b) if side == "a" else (diff.b, diff.a)
    row = diff.steps[index] if 0 <= index < len(diff.steps) else None
    mine = (row.a if side == "a" else row.b) if row else None
    theirs = (row.b if side == "a" else row.a) if row else None
    style = "bold red" if side == "a" else "bold green"
    out = Text()
    shown = mine or _nearest(diff.steps, index, side)
    head = f"step {mine.number}, node {for_terminal(mine.node_id, newlines=False)}" if mine else "no step in this row"
    out.append(for_terminal(f"{run.name} · {run.outcome} · {head}", newlines=False) + "\n", "bold reverse")
    if mine is not None:
        out.append_text(_log([mine], mine))
    at = mine.record if mine else (shown.record if shown else -1)
    call = run.call_at_or_before(at) if at >= 0 else None
    other_at = theirs.record if theirs else -1
    other = other_run.call_at_or_before(other_at) if other_at >= 0 else None
    out.append_text(call_text(call, other, run, other_run, style))
    before = [s for s in run.steps if shown is not None and s.record < shown.record]
    if shown is not None and mine is None:
        before.append(shown)  # this side has no step here: its log up to its last step above
    out.append("environment log before it:\n", "bold")
    out.append_text(_log(before, None))
    return out


def node_side(diff: RunDiff, index: int, side: str) -> Text:
    """One side's pane for node row `index`: the node's code, its actions, its last LLM call."""
    run, other_run = (diff.a, diff.b) if side == "a" else (diff.b, diff.a)
    rows: list[NodeRow] = diff.nodes or []
    row = rows[index] if 0 <= index < len(rows) else None
    node = (row.a if side == "a" else row.b) if row else None
    theirs = (row.b if side == "a" else row.a) if row else None
    style = "bold red" if side == "a" else "bold green"
    out = Text()
    if node is None:
        out.append(for_terminal(f"{run.name} · {run.outcome}", newlines=False) + " · no node in this row\n",
                   "bold reverse")
        return out
    out.append(for_terminal(f"{run.name} · {run.outcome} · {node.id} at {run.paths.get(node.id, '?')} "
                            f"({status_words(run.agent, node.status)})", newlines=False) + "\n", "bold reverse")
    if theirs is None or node.code.strip() != theirs.code.strip():
        out.append_text(_own_lines(node.code.strip(), theirs.code.strip() if theirs else "", style))
    calls, other_calls = run.calls_of(node.id), other_run.calls_of(theirs.id) if theirs else []
    if calls:
        out.append_text(call_text(calls[-1], other_calls[-1] if other_calls else None, run, other_run, style))
    steps = run.steps_of(node.id)
    if steps:
        out.append("environment log at this node:\n", "bold")
        out.append_text(_log(steps, None))
    elif not calls:
        out.append("no LLM call and no action at this node\n", "dim")
    return out
