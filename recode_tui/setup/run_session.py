"""Open the session a headless run works on: a new one, or `--resume` of a recorded one.

Shared by `run` (one line per event) and the plain-terminal mode, so both
open, announce and salvage sessions the same way. Both pass the run's typed
settings (`recode_tui.setup.settings.RunOptions`), parsed once at the edge.
"""

from __future__ import annotations

import sys
from typing import Any

from recode_tui.setup.settings import RunOptions
from recode_tui.setup.usage import UsageError


def announce_llm(options: RunOptions, session: Any) -> None:
    """After a resume: say which LLM goes on, and journal an explicit --llm so the next resume keeps it."""
    note = options.recorded_note
    if not note:
        return
    from agent.runtime.safe_text import for_terminal

    print(f"note: {for_terminal(note)}", file=sys.stderr)
    if options.llm.given:
        from agent.sessions.model_record import profiles_in_use

        session.writer.record_llm(options.llm.spec, profiles_in_use(options.llm.spec, options.llm.profiles),
                                  "--llm on resume")


async def open_session(options: RunOptions, llm: Any) -> tuple[Any, list[Any]]:
    """A journaled agent and the replayed events: a new session, or `--resume` of a recorded one
    (an eval's journal carries on in a copy; `--from-last-good` from the last clean point)."""
    from agent.sessions.journal_read import JournalError
    from recode_tui.setup.places import sessions_dir_from
    from agent.sessions.model_record import profiles_in_use
    from agent.sessions.session import start_session
    from envs.registry import make_env
    from recode_tui.setup.build import make_agent

    sessions_dir = sessions_dir_from(options.sessions)
    if options.resume is not None:
        from agent.sessions.listing import find_session
        from agent.sessions.journal_view import foreign_note
        from agent.sessions.session import reopen_session, replay_failure, salvage_session

        from recode_tui.setup.build import prompt_places

        runs_with, places = options.settings.runner, prompt_places(options.settings)
        try:
            folder = options.resumed or find_session(sessions_dir, options.resume or None)
            note = foreign_note(folder, sessions_dir, "it is resumed")
            if note:  # said before the replay runs anything
                print(f"note: {note}", file=sys.stderr, flush=True)
            if options.from_last_good:
                return await salvage_session(folder, llm, make_env, sessions_dir, runs_with=runs_with,
                                             prompt_places=places)
            session, events = await reopen_session(folder, llm, make_env, sessions_dir, runs_with=runs_with,
                                                   prompt_places=places)
        except JournalError as exc:
            raise UsageError(salvage_hint(str(exc), options)) from None
        if replay_failure(events):
            session.writer.close()
            await session.agent.close()
            from agent.runtime.safe_text import for_terminal

            for note in session.notes:  # what changed from the recording (the sandbox, the node limit) may be why
                print(f"note: {for_terminal(note)}", file=sys.stderr)
            raise UsageError(salvage_hint(f"cannot resume {folder.name}: {replay_failure(events)}", options))
        return session, events
    if options.episode is None:
        raise UsageError("no episode to play: give --game")
    agent = make_agent(options.settings, options.episode, llm)
    spec = options.llm.spec
    return start_session(agent, sessions_dir, options.episode, spec,
                         profiles=profiles_in_use(spec, options.llm.profiles), spec=options.settings), []


def salvage_hint(message: str, options: RunOptions) -> str:
    """A resume that failed on the recording names the flag that goes on from its last good point."""
    if not ("corrupt" in message or "differs from the recording" in message or "cannot resume" in message):
        return message
    target = f"--resume {options.resume}" if options.resume else "--resume"
    return f"{message.splitlines()[0]}; go on from the last point that replayed cleanly: `{options.command} {target} --from-last-good`"
