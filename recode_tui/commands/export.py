"""`recode-tui export`: training pairs (`--sft`) from one session or every episode of an
evaluation; the tree (`--tree`, ReCode only), the trace (`--trace`, any agent) or a
transcript (`--markdown`) of one session, from its journal's records (nothing runs: a
journal is data, wherever it came from), or rebuilt by replaying it with `--exec`.

The formats and filters are `agent.sessions.export`'s; this gathers the journals and
says on stderr what was left out.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from recode_tui.setup.settings import ExportOptions


def sft_text(options: ExportOptions) -> str:
    """SFT lines of one session, or of every episode of an eval folder; notes go to stderr."""
    from agent.eval.journals import eval_folder, eval_journals
    from agent.sessions.export import sft_lines, unpaired_answers
    from agent.sessions.journal_read import read_journal
    from agent.sessions.listing import find_session
    from recode_tui.setup.places import sessions_dir_from

    evaluation = eval_folder(options.session)
    folders = eval_journals(evaluation) if evaluation else [find_session(sessions_dir_from(options.sessions), options.session)]
    lines, blank = [], 0
    for folder in folders:
        journal = read_journal(folder)
        lines += sft_lines(journal, won_only=options.won_only, corrected_only=options.corrected_only)
        blank += unpaired_answers(journal)
    if blank:
        print(f"note: {blank} answer(s) were journaled without their prompt and are left out", file=sys.stderr)
    if evaluation:
        print(f"note: {len(lines)} pair(s) from {len(folders)} episode journal(s) of {evaluation}", file=sys.stderr)
    elif not lines and (options.won_only or options.corrected_only):
        print("note: no answer passes the filter", file=sys.stderr)
    return "\n".join(lines) + "\n" if lines else ""


async def replayed_text(options: ExportOptions) -> str:
    """`--exec`: the tree, trace or Markdown of one session, from a replay of its journal (a journal that
    no longer replays raises JournalError: an export of a run that does not rebuild would be wrong)."""
    import json

    from agent.sessions.export import has_code_tree, journal_agent, markdown_transcript, trace_document, tree_document
    from agent.sessions.journal_read import JournalError, read_journal
    from agent.sessions.listing import find_session
    from recode_tui.setup.places import sessions_dir_from
    from agent.sandbox.settings import RunnerSettings
    from agent.sessions.session import replay_failure, resume_session
    from envs.registry import make_env
    from mockllm.scripted import ScriptedLLM
    from recode_tui.setup.usage import UsageError

    from agent.sessions.journal_view import foreign_note

    sessions_dir = sessions_dir_from(options.sessions)
    folder = find_session(sessions_dir, options.session)
    journal = read_journal(folder)
    agent_name = journal_agent(journal)
    if options.form == "tree" and not has_code_tree(agent_name):
        raise UsageError(f"{journal.session_id} is a {agent_name} run, which has no code tree: "
                         "export it with --trace (recode.trace.v1) or --markdown")
    note = foreign_note(folder, sessions_dir, "it is exported")
    if note:
        print(f"note: {note}", file=sys.stderr)
    session, events = await resume_session(folder, ScriptedLLM([]), make_env,
                                           runs_with=RunnerSettings(trusted=options.trusted,
                                                                           sandbox=options.sandbox))
    session.writer.close()
    await session.agent.close()
    if replay_failure(events):
        raise JournalError(f"cannot export {journal.session_id}: {replay_failure(events)}")
    meta = {"session": journal.session_id}
    started = journal.header.created or None
    if options.form == "tree":
        return json.dumps(tree_document(session.agent, meta, started=started), indent=2) + "\n"
    if options.form == "trace":
        return json.dumps(trace_document(session.agent, events, meta, started=started), indent=2) + "\n"
    return markdown_transcript(journal, events)


def records_text(options: ExportOptions) -> str:
    """The tree, trace or Markdown of one session from its journal's records alone (the default).

    No environment and no sandbox worker is started, so a journal from elsewhere can be read
    safely; what only a replay would show is said on stderr and in the output.
    """
    import json

    from agent.sessions.export import has_code_tree, journal_agent
    from agent.sessions.journal_read import read_journal
    from agent.sessions.listing import find_session
    from recode_tui.setup.places import sessions_dir_from
    from agent.sessions.journal_view import (NO_EXEC_LINE, markdown_from_records, read_view, trace_document_from_records,
                                    tree_document_from_records)
    from recode_tui.setup.usage import UsageError

    journal = read_journal(find_session(sessions_dir_from(options.sessions), options.session), lenient=True)
    agent_name = journal_agent(journal)
    if options.form == "tree" and not has_code_tree(agent_name):
        raise UsageError(f"{journal.session_id} is a {agent_name} run, which has no code tree: "
                         "export it with --trace (recode.trace.v1) or --markdown")
    view = read_view(journal)
    print(f"note: {NO_EXEC_LINE}", file=sys.stderr)
    for note in journal.notes:
        print(f"note: {note}", file=sys.stderr)
    meta = {"session": journal.session_id}
    if options.form == "tree":
        return json.dumps(tree_document_from_records(view, meta), indent=2) + "\n"
    if options.form == "trace":
        return json.dumps(trace_document_from_records(view, meta), indent=2) + "\n"
    return markdown_from_records(view)


def unfinished_outcomes(folder: Path, journals: list[Any]) -> dict[str, Any]:
    """How each eval episode whose journal has no end record ended, as the report says: its result's reason
    and seconds (given up at its wall clock), else why the evaluation stopped (`aborted: the LLM failed ...`)."""
    from agent.eval.report import EvalReport
    from agent.sessions.otel import Ended

    try:
        report = EvalReport.read(folder / "report.json")
    except ValueError:
        return {}
    by_journal = {Path(e.journal).resolve(): e for e in report.episodes if e.journal}
    stopped = (f"{report.status}: {report.note}" if report.status != "complete" and report.note
               else "unfinished: its evaluation was stopped while it ran")
    ended = {}
    for journal in journals:
        if journal.finished is not None:
            continue
        result = by_journal.get(Path(journal.folder).resolve())
        ended[str(journal.folder)] = (Ended(result.error or result.reason, result.seconds) if result is not None
                                      else Ended(stopped))
    return ended


def otel_export(options: ExportOptions) -> int:
    """`--otel FILE` / `--otlp URL`: one session's or every eval episode's spans, from the journals' records."""
    from agent.eval.journals import eval_folder, eval_journals
    from agent.sessions.journal_read import read_journal
    from agent.sessions.listing import find_session
    from recode_tui.setup.places import sessions_dir_from
    from agent.sessions.otel import OtelError, export_endpoint, export_file
    from recode_tui.setup.usage import UsageError

    target = options.target or ""
    evaluation = eval_folder(options.session)
    folders = (eval_journals(evaluation, unfinished=True) if evaluation
               else [find_session(sessions_dir_from(options.sessions), options.session)])
    journals = [read_journal(folder, lenient=True) for folder in folders]
    ended = unfinished_outcomes(evaluation, journals) if evaluation else {}
    try:
        count = (export_file(journals, target, ended) if options.form == "otel"
                 else export_endpoint(journals, target, ended))
    except OtelError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"cannot write {target}: {exc.strerror}; pick another path") from None
    where = target
    print(f"{count} spans of {len(journals)} episode(s) to {where} (OpenTelemetry GenAI conventions)", file=sys.stderr)
    return 0
