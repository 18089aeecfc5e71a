"""Diff two recorded runs (or two evaluations): the first divergence, and both runs aligned row by row.

No UI: `recode_tui.commands.diff` prints it, the console's diff screen shows it.
"""

from agent.eval.rundiff.lcs import align, lcs_pairs
from agent.eval.rundiff.diff import (Divergence, IncomparableRuns, NodeRow, RunDiff, StepRow, comparable, diff_runs,
                                first_divergence, unified)
from agent.eval.rundiff.document import DIFF_VERSION, diff_document, eval_diff_document
from agent.eval.rundiff.evals import EpisodeDiff, EvalDiff, diff_evals, is_eval_folder
from agent.eval.rundiff.runs import NODE_AGENTS, Call, Run, Step, parent_folder, read_run

__all__ = [
    "DIFF_VERSION", "NODE_AGENTS", "Call", "Divergence", "EpisodeDiff", "EvalDiff", "IncomparableRuns", "NodeRow",
    "Run", "RunDiff", "Step", "StepRow", "align", "comparable", "diff_document", "diff_evals", "diff_runs",
    "eval_diff_document", "first_divergence", "is_eval_folder", "lcs_pairs", "parent_folder", "read_run", "unified",
]
