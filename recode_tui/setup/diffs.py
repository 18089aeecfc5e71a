"""Two runs or two evaluations diffed, as every front end loads and words them (`diff`, the console's diff screen).

The alignment is `agent.eval.rundiff`'s; here: loading it from what a person named (one line when the runs
cannot be diffed) and the short texts of a step, a node and where the runs part.
"""

from __future__ import annotations

from typing import Any

from agent.eval.rundiff.diff import Divergence, IncomparableRuns, RunDiff, diff_runs
from agent.eval.rundiff.evals import EvalDiff, diff_evals, is_eval_folder
from agent.runtime.safe_text import for_terminal
from agent.sessions.journal_read import JournalError, read_journal
from agent.sessions.listing import find_session
from recode_tui.setup.places import sessions_dir_from
from recode_tui.setup.usage import UsageError


def load_diff(a: str, b: str, sessions: str | None = None) -> RunDiff | EvalDiff:
    """The diff of two sessions or two evaluations; UsageError with one line when they cannot be diffed."""
    eval_a, eval_b = is_eval_folder(a), is_eval_folder(b)
    try:
        if eval_a and eval_b:
            return diff_evals(a, b)
        if eval_a or eval_b:
            which = a if eval_a else b
            raise UsageError(f"{which} is an evaluation and the other a session: give two sessions, "
                             f"or two evaluation folders (or {which}/journals/EPISODE for one of its episodes)")
        folder = sessions_dir_from(sessions)
        return diff_runs(read_journal(find_session(folder, a), lenient=True),
                         read_journal(find_session(folder, b), lenient=True))
    except (JournalError, IncomparableRuns) as exc:
        raise UsageError(str(exc)) from None


def one_line(text: str, width: int) -> str:
    """`text` on one line (runs of white space as one; the leading indent kept), cut to `width` with `…`."""
    text = str(text)
    indent = text[: len(text) - len(text.lstrip(" "))]
    text = indent + for_terminal(" ".join(text.split()), newlines=False)
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def step_text(step: Any) -> str:
    return "" if step is None else f"{step.number:>3} {step.action} → {step.observation}"


def node_text(node: Any) -> str:
    if node is None:
        return ""
    code = (node.code.strip().splitlines() or [""])[0]
    return f"{'  ' * node.depth}{node.id} {code}"


def parting(d: Divergence) -> str:
    """Where the actions part, or that they never do (the runs differ in answers or in how they end)."""
    if d.action_a is None and d.action_b is None:
        return f"the actions never part ({d.step - 1} equal steps)"
    return f"the actions part at step {d.step} ({d.step - 1} equal steps before it)"
