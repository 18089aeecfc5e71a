"""Which recorded session `--resume` names, and what it recorded: read at the edge, before a front end starts."""

from __future__ import annotations

from pathlib import Path
from typing import overload

from recode_tui.setup.usage import UsageError


@overload
def find_resume(sessions: str | None, ref: str) -> Path: ...
@overload
def find_resume(sessions: str | None, ref: None) -> None: ...
def find_resume(sessions: str | None, ref: str | None) -> Path | None:
    """`--resume [SESSION]` as a session folder (no value: the latest); None when not resuming."""
    from agent.sessions.journal_read import JournalError
    from agent.sessions.listing import find_session
    from recode_tui.setup.places import sessions_dir_from

    if ref is None:
        return None
    try:
        return find_session(sessions_dir_from(sessions), ref or None)
    except JournalError as exc:
        raise UsageError(str(exc)) from None


def session_game(folder: Path) -> str:
    """The game a recorded session played; a journal that cannot be read is a usage error."""
    from agent.sessions.journal_read import JournalError, read_journal

    try:
        return read_journal(folder, lenient=True).header.game  # a corrupt line is met by the replay
    except JournalError as exc:
        raise UsageError(str(exc)) from None


def recorded_review(folder: Path | None) -> bool:
    """The session ran in review mode (`--review`): a resume goes on in it (False: not resuming, or unreadable)."""
    from agent.sessions.journal_read import JournalError, read_journal

    if folder is None:
        return False
    try:
        return read_journal(folder, lenient=True).header.run.model.review
    except JournalError:
        return False


def recorded_llm(sessions: str | None, resume: str | None) -> tuple[str, str | None] | None:
    """The LLM spec and profiles file a session recorded last (None: not resuming, or unreadable:
    the resume itself says what is wrong). Only the spec may be used: see `journal_llm_note`."""
    from agent.sessions.journal_read import JournalError, read_journal
    from agent.sessions.listing import find_session
    from recode_tui.setup.places import sessions_dir_from

    if resume is None:
        return None
    try:
        folder = find_session(sessions_dir_from(sessions), resume or None)
        return read_journal(folder, lenient=True).llm_setup
    except JournalError:
        return None


def journal_llm_note(recorded: tuple[str, str | None], own_profiles: str | None, doing: str = "resuming") -> str:
    """What to say when a recorded session goes on with the LLM spec its journal names.

    A journal is data from wherever the session came from: it may name the LLM
    (`profile:NAME` is then looked up by NAME in the user's own profiles file,
    `--profiles` or the default one), never the profiles file itself, since that
    file chooses the server the user's API key is sent to. A journal that names
    another file than the user's gets it said, in the same line.
    """
    from agent.runtime.safe_text import for_terminal
    from agent.sessions.model_record import profiles_in_use

    spec, named = recorded
    note = f"{doing} with the session's LLM {for_terminal(spec, newlines=False)}"
    own = profiles_in_use(spec, own_profiles)
    if own is not None:
        note += f" from your profiles file {own}"
    if named and named != own:
        named_text = for_terminal(str(named), newlines=False)
        note += f" (the journal names the profiles file {named_text}: never read from a journal)"
    return note


def check_recorded_profiles(recorded: tuple[str, str | None], own_profiles: str | None, command: str,
                            ref: str) -> None:
    """A resume without --llm goes on with the session's `profile:NAME`, read from the user's own profiles
    (`--profiles`, else the default file): when NAME is not there, one line says what to pass (the file the
    session recorded, which is never read unless the user names it), instead of a fallback to a person."""
    import re
    import shlex

    from agent.llm.profiles import DEFAULT_PROFILE, ProfileError, find_profiles_file, load_profiles
    from agent.runtime.safe_text import for_terminal

    spec, named = recorded
    names = [name or DEFAULT_PROFILE for name in re.findall(r"profile:([^,\s]*)", spec)]
    if not names:
        return
    try:
        book = load_profiles(find_profiles_file(own_profiles))
    except ProfileError as exc:
        raise UsageError(str(exc)) from None
    missing = [name for name in names if name not in book.profiles and name != DEFAULT_PROFILE]
    if not missing:
        return
    flag = f"--profiles {shlex.quote(for_terminal(named, newlines=False))}" if named else "--profiles FILE"
    where = f"your profiles file {book.source}" if book.source else "no profiles file of yours"
    target = f"--resume {ref}" if ref else "--resume"
    raise UsageError(f"the session answers with {for_terminal(spec, newlines=False)}, and profile "
                     f"{for_terminal(missing[0], newlines=False)!r} is in {where}: go on with "
                     f"`recode-tui {command} {target} {flag}` (or --llm SPEC for another LLM)")


def resume_command(command: str, folder: Path, *, profiles: str | None = None, review: bool = False) -> str:
    """The command that goes on with a session as it ran: its profiles file (the model's, which a resume
    never takes from the journal) and review mode."""
    import shlex

    parts = [f"recode-tui {command} --resume {shlex.quote(str(folder))}"]
    if profiles:
        parts.append(f"--profiles {shlex.quote(str(Path(profiles).resolve()))}")
    if review:
        parts.append("--review")
    return " ".join(parts)
