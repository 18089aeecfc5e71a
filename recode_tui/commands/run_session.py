"""Open the session a headless run works on: a new one, or `--resume` of a recorded one.

Shared by `run` (one line per event) and the plain-terminal mode, so both
open, announce and salvage sessions the same way.
"""

from __future__ import annotations

import argparse
import sys

from recode_tui.commands.factory import UsageError, episode_ref, run_settings, step_limit


def announce_llm(args: argparse.Namespace, session) -> None:
    """After a resume: say which LLM goes on, and journal an explicit --llm so the next resume keeps it."""
    note = getattr(args, "recorded_note", "")
    if not note:
        return
    from agent.runtime.safe_text import for_terminal

    print(f"note: {for_terminal(note)}", file=sys.stderr)
    if getattr(args, "llm_given", False):
        from agent.sessions.session import profiles_in_use

        session.writer.record_llm(args.llm, profiles_in_use(args.llm, args.profiles), "--llm on resume")


def adopt_recorded_llm(args: argparse.Namespace) -> str:
    """`--resume` without --llm goes on with the LLM the session recorded last (and its profiles file).

    Returns a note to print: which LLM was taken, or that --llm overrides the recording.
    """
    from agent.sessions.journal import JournalError, find_session, read_journal, sessions_dir_from

    if args.resume is None:
        return ""
    try:
        folder = find_session(sessions_dir_from(args.sessions), args.resume or None)
        spec, profiles = read_journal(folder, lenient=True).llm_setup
    except JournalError:
        return ""  # the resume itself says what is wrong
    if not getattr(args, "llm_given", False):
        args.llm = spec
        args.profiles = args.profiles or profiles
        return f"resuming with the session's LLM {spec}" + (f" (profiles {profiles})" if profiles else "")
    if args.llm != spec:
        return f"--llm {args.llm} given: it answers instead of the session's {spec}"
    return ""


async def open_session(args: argparse.Namespace, llm):
    """A journaled engine and the replayed events: a new session, or `--resume` of a recorded one
    (an eval's journal carries on in a copy; `--from-last-good` from the last clean point)."""
    from agent.sessions.journal import JournalError, find_session, sessions_dir_from
    from agent.sessions.session import profiles_in_use, reopen_session, start_session
    from envs import make_env
    from recode_tui.commands.factory import make_engine

    sessions_dir = sessions_dir_from(args.sessions)
    if args.resume is not None:
        from agent.sessions.session import replay_failure, salvage_session

        from agent.sessions.journal_view import foreign_note

        trusted = bool(getattr(args, "trusted", False))
        try:
            folder = find_session(sessions_dir, args.resume or None)
            note = foreign_note(folder, sessions_dir, "it is resumed")
            if note:  # said before the replay runs anything
                print(f"note: {note}", file=sys.stderr, flush=True)
            if getattr(args, "from_last_good", False):
                return await salvage_session(folder, llm, make_env, sessions_dir, trusted=trusted)
            session, events = await reopen_session(folder, llm, make_env, sessions_dir, trusted=trusted)
        except JournalError as exc:
            raise UsageError(salvage_hint(str(exc), args)) from None
        if replay_failure(events):
            session.writer.close()
            await session.engine.close()
            raise UsageError(salvage_hint(f"cannot resume {folder.name}: {replay_failure(events)}", args))
        return session, events
    settings = run_settings(args)
    game = episode_ref(args.env, args.game)
    engine = make_engine(game, llm, settings.limits, step_limit(game, args, settings), settings.prompts, args.trusted,
                         args.node_timeout, settings.preset, settings.agent, settings.agent_options)
    return start_session(engine, sessions_dir, game, args.llm, profiles=profiles_in_use(args.llm, args.profiles)), []


def salvage_hint(message: str, args: argparse.Namespace) -> str:
    """A resume that failed on the recording names the flag that goes on from its last good point."""
    if not ("corrupt" in message or "differs from the recording" in message or "cannot resume" in message):
        return message
    target = f"--resume {args.resume}" if args.resume else "--resume"
    return f"{message.splitlines()[0]}; go on from the last point that replayed cleanly: `{args.command} {target} --from-last-good`"
