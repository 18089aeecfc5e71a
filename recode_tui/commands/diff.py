"""`recode-tui diff A B`: where two runs part, what made them part, and the rest side by side.

A and B are sessions (ids, folders or journal files) or two evaluation
folders (every common episode, the flipped ones first). The alignment is
`agent.eval.rundiff`'s; this module only lays it out as text or JSON.
Exit codes as `compare`: 0 diffed, 2 the runs cannot be diffed (one line says why).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from typing import Any, Callable, Sequence, TypeVar

from agent.eval.rundiff.diff import NodeRow, RunDiff, StepRow
from agent.eval.rundiff.document import diff_document, eval_diff_document
from agent.eval.rundiff.evals import EvalDiff
from agent.eval.rundiff.prompts import PromptDifference
from agent.runtime.safe_text import for_terminal
from recode_tui.setup.diffs import load_diff, node_text, one_line, parting, step_text

MARKS = {"equal": " ", "changed": "~", "only_a": "<", "only_b": ">"}
FOLD_AT = 3  # equal stretches this long or longer are folded into one line


# ------------------------------------------------------------------ text
Row = TypeVar("Row", StepRow, NodeRow)


def side_by_side(rows: Sequence[Row], text: Callable[[Any], str], noun: str, width: int, marked: int = -1) -> list[str]:
    """One line a row (`~` changed, `<` only in A, `>` only in B, `!` the divergence); equal stretches folded."""
    half = max(10, (width - 5) // 2)
    lines: list[str] = []
    index = 0
    while index < len(rows):
        end = index
        while end < len(rows) and rows[end].op == "equal" and end != marked:
            end += 1
        if end - index >= FOLD_AT:
            lines.append(f"  ··· {end - index} equal {noun} (rows {index + 1}-{end}) ···")
            index = end
            continue
        row = rows[index]
        mark = "!" if index == marked else MARKS[row.op]
        left, right = one_line(text(row.a), half), one_line(text(row.b), half)
        lines.append(f"{mark} {left:<{half}} │ {right}".rstrip())
        index += 1
    return lines


def _diff_block(lines: list[str], same: str) -> list[str]:
    if not lines:
        return [f"    {same}"]
    return ["    " + for_terminal(line, newlines=False) for line in lines]


def run_lines(diff: RunDiff, width: int, show_prompts: bool = True) -> list[str]:
    """The text `diff` prints for two runs (an eval's diff says how the prompts differ once, above all)."""
    a, b = diff.a, diff.b
    out = [f"A: {a.journal.folder}  ({a.agent}, {a.header.run.model.llm}, {a.outcome}, {len(a.steps)} steps, "
           f"{len(a.calls)} LLM calls)",
           f"B: {b.journal.folder}  ({b.agent}, {b.header.run.model.llm}, {b.outcome}, {len(b.steps)} steps, "
           f"{len(b.calls)} LLM calls)",
           f"episode: {a.env} {a.episode}"]
    out += prompt_lines(diff.prompts) if show_prompts else []
    # from the headers' fields (a new setting shows here with no new code); the prompt set's is said above
    differ = [(name, x, y) for name, x, y in a.header.settings_differences(b.header) if name != "prompts.hash"]
    if differ:
        out.append("settings differ: " + "; ".join(f"{name} {x!r} → {y!r}" for name, x, y in differ))
    d = diff.divergence
    if d is None:
        if diff.prompts.unused:
            out.append(f"the two runs are the same ({len(a.steps)} steps, {len(a.calls)} LLM calls, the same answers) "
                       "and so was every prompt they sent: the changed prompt files are unused by this episode")
        elif diff.prompts.differ:
            out.append(f"the two runs' outputs are the same ({len(a.steps)} steps, {len(a.calls)} LLM calls, the same "
                       "answers) though their prompts differ: the LLM did not react to the change")
        else:
            out.append(f"the two runs are the same: {len(a.steps)} steps, {len(a.calls)} LLM calls, the same answers")
        return [for_terminal(line, newlines=False) for line in out]
    where = {"answer": "an LLM answer", "action": "an action or its observation", "end": "the end"}[d.kind]
    out.append(f"first divergence: {where}, before step {d.before_step}; {parting(d)}")
    for name, step, run in (("A", d.action_a, a), ("B", d.action_b, b)):
        if d.action_a is None and d.action_b is None:
            break
        took = f"> {step.action}  → {step.observation}" if step else f"no action (the run {run.outcome})"
        out.append(f"  {name} at step {d.step}: {one_line(took, width - 19)}")
    out.append("the LLM call that led there:")
    for name, call, run in (("A", d.call_a, a), ("B", d.call_b, b)):
        if call is None:
            out.append(f"  {name}: no LLM call before it")
            continue
        stub = (call.stub.strip().splitlines() or [""])[0]
        path = run.paths.get(call.node_id, "")
        out.append(f"  {name}: call {call.number} ({call.purpose}{', ' + call.role if call.role else ''}) for "
                   f"{call.node_id}{f' at {path}' if path and run.has_nodes else ''} {one_line(stub, 60)}")
    same_prompt = (f"the prompts are the same ({len(d.call_a.prompt.splitlines())} lines)"
                   if d.call_a and d.call_b else "(one side has no call)")
    out += ["  prompt diff:", *_diff_block(d.prompt_diff, same_prompt)]
    out += ["  answer diff:", *_diff_block(d.answer_diff, "the answers are the same")]
    if diff.nodes is not None:
        out += ["", "nodes, by path and code (A │ B):",
                *side_by_side(diff.nodes, node_text, "nodes", width, diff.node_divergence_row)]
    out += ["", "environment steps (A │ B):"]
    if diff.steps:
        out += side_by_side(diff.steps, step_text, "steps", width, diff.step_divergence_row)
    else:
        out.append("  (neither run sent an action)")
    return [for_terminal(line, newlines=False) for line in out]


PROMPT_DIFF_LINES = 40  # lines of each file's diff shown (--json has them all)


def prompt_lines(prompts: PromptDifference) -> list[str]:
    """When the runs were asked with different prompts: which files, and the lines that changed."""
    if not prompts.differ:
        return []
    out = [f"the prompts differ: prompt set {prompts.hash_a} → {prompts.hash_b}"]
    for change in prompts.files:
        out.append(f"  {change.file} ({change.change})" + (f": {change.note}" if change.note else ""))
        out += ["    " + line for line in change.lines[:PROMPT_DIFF_LINES]]
        if len(change.lines) > PROMPT_DIFF_LINES:
            out.append(f"    ... {len(change.lines) - PROMPT_DIFF_LINES} more lines (--json has them all)")
    if not prompts.files:
        out.append("  (these journals record no per-file hashes, so the files are not named)")
    if prompts.unused:
        out.append("  no prompt these runs sent differs: the changed files are unused by them")
    if prompts.first_call is not None:
        out.append(f"  first LLM call asked differently: call {prompts.first_call}")
        if not any(change.lines for change in prompts.files):
            out += ["    " + line for line in prompts.first_diff[:PROMPT_DIFF_LINES]]
    return out


def _won(won: bool) -> str:
    return "won" if won else "lost"


def eval_lines(diff: EvalDiff, width: int) -> list[str]:
    flipped = sum(e.flipped for e in diff.episodes)
    out = [f"A: {diff.a}", f"B: {diff.b}"]
    differing = [e.diff.prompts for e in diff.episodes if e.diff is not None and e.diff.prompts.differ]
    if differing:
        first = next((p for p in differing if not p.unused), differing[0])
        out += [line for line in prompt_lines(first) if not line.startswith("  no prompt these runs sent differs")]
        used = sum(not p.unused for p in differing)
        out.append(f"  the change reached the prompts of {used} of {len(differing)} episodes"
                   + ("; unused by the others" if 0 < used < len(differing) else
                      ": unused by these episodes" if not used else ""))
    out.append(f"{len(diff.episodes)} episodes in common, {flipped} flipped (listed first)")
    for item in diff.episodes:
        flip = f"flipped: {_won(item.won_a)} → {_won(item.won_b)}" if item.flipped else f"{_won(item.won_a)} in both"
        out += ["", f"=== {item.episode} ({item.task_type}) {flip} ==="]
        if item.diff is None:
            out.append(f"not diffed: {item.refused}")
        else:
            out += run_lines(item.diff, width, show_prompts=False)
    return [for_terminal(line, newlines=False) for line in out]


def run_diff(args: argparse.Namespace) -> int:
    diff = load_diff(args.a, args.b, args.sessions)
    if args.json:
        document = eval_diff_document(diff) if isinstance(diff, EvalDiff) else diff_document(diff)
        text = json.dumps(document, indent=1, ensure_ascii=False) + "\n"
    else:
        width = args.width or (shutil.get_terminal_size((120, 24)).columns if sys.stdout.isatty() else 120)
        lines = eval_lines(diff, width) if isinstance(diff, EvalDiff) else run_lines(diff, width)
        text = "\n".join(lines) + "\n"
    if args.output:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
    return 0
