"""`recode-tui export --sft`: training pairs from one session or every episode of an evaluation.

The pairs and their filters are `agent.export`'s; this gathers the journals and
says on stderr what was left out.
"""

from __future__ import annotations

import argparse
import sys


def sft_text(args: argparse.Namespace) -> str:
    """SFT lines of one session, or of every episode of an eval folder; notes go to stderr."""
    from agent.export import eval_folder, eval_journals, sft_lines, unpaired_answers
    from agent.journal import find_session, read_journal, sessions_dir_from

    evaluation = eval_folder(args.session)
    folders = eval_journals(evaluation) if evaluation else [find_session(sessions_dir_from(args.sessions), args.session)]
    lines, blank = [], 0
    for folder in folders:
        journal = read_journal(folder)
        lines += sft_lines(journal, won_only=args.won_only, corrected_only=args.corrected_only)
        blank += unpaired_answers(journal)
    if blank:
        print(f"note: {blank} answer(s) were journaled without their prompt and are left out", file=sys.stderr)
    if evaluation:
        print(f"note: {len(lines)} pair(s) from {len(folders)} episode journal(s) of {evaluation}", file=sys.stderr)
    elif not lines and (args.won_only or args.corrected_only):
        print("note: no answer passes the filter", file=sys.stderr)
    return "\n".join(lines) + "\n" if lines else ""
