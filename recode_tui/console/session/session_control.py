"""The console's side of sessions: journal the run, keep the draft, resume, rewind, fork.

The app holds one `SessionControl`. It is a plain object, not a widget, so it
outlives the debug screen of each run: after a resume or a branch, a new
`DebugScreen` on the replayed agent takes the old one's place. Replays run as
async workers on the app's loop (the agent already steps the environment in
its own thread), behind a replay cover that keeps keys away from the old
agent meanwhile. It sits below the screens: those it opens (the sessions list,
the replay cover, the parent diff) are the app's `session_screens`. The old session's journal is never touched: a branch is a
new session. Its `WorkKeeper` (session_work.py) writes the draft and debug.json.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Awaitable, Callable

from agent.llm import LLM, Cancellable
from agent.runtime import events as ev
from agent.sessions.debug_settings import DebugSettings
from agent.runtime.prompts import PromptSet
from agent.runtime.stepper import Stepper
from agent.run.spec import RunSpec
from agent.sandbox.settings import RunnerMaker, RunnerSettings
from agent.runtime.tree import Node
from agent.sessions.journal import DRAFT_SECONDS
from agent.sessions.journal_read import JournalError, read_journal
from agent.sessions.model_record import profiles_in_use
from agent.sessions.session import (
    Session,
    branch_session,
    fork_at_answer,
    reopen_session,
    replay_failure,
    rewind_to_node,
    salvage_session,
    start_session,
)
from mockllm.chosen import ChosenAnswerLLM
from mockllm.human import HumanLLM
from recode_tui.console.run.hosts import ConsoleApp, ReplaceRun, ReplayCover, RunScreen, is_trusted
from recode_tui.console.run.requests import HandOver, SelectNode, ShowSession
# What `--resume` names and the game a session played: the setup layer's, named here too for the console's callers.
from recode_tui.setup.sessions import find_resume as find_resume, journal_llm_note, session_game as session_game
from recode_tui.console.session.session_work import WorkKeeper
from recode_tui.console.support.lazy_work import LazyWork
from envs.registry import make_env
from envs.registry import EpisodeRef

CHECK_SECONDS = 1.0  # how often the journal writer's error is looked at

Replay = Callable[[LLM], Awaitable[tuple[Session, list[ev.Event]]]]


def one_line(exc: BaseException) -> str:
    """The first line of an error: a replay mismatch carries a diff after it."""
    text = str(exc).strip().split("\n", 1)[0] or type(exc).__name__
    return text if isinstance(exc, (JournalError, OSError)) else f"{type(exc).__name__}: {text}"


def read_journal_setup(folder: Path) -> str:
    """The LLM spec a session's journal says answers now ('' when unreadable)."""
    try:
        return read_journal(folder, lenient=True).llm_setup[0]
    except JournalError:
        return ""


class SessionControl:
    """Which session the console's agent journals into, and how to get another."""

    def __init__(
        self,
        sessions_dir: Path,
        new_llm: Callable[[], LLM],
        session: Session | None = None,
        resume: Path | None = None,
    ) -> None:
        self.sessions_dir = sessions_dir
        self.new_llm = new_llm
        self.session = session
        self.pending_resume = resume
        self.app: ConsoleApp | None = None
        self.replace_run: ReplaceRun | None = None  # the app's: a replayed agent on a new run screen
        self.busy = False  # a replay is running
        self.error = ""  # the journal or draft error last shown
        self.how = "new"  # new | resumed | rewound | forked: for the status line
        self.work = WorkKeeper(self.report, lambda: self.error)  # draft.json and debug.json
        # Which LLM a replay goes on with: the recorded one (header, then `L` switches) unless --llm was given.
        self.llm_spec = ""  # the spec the console was started with
        self.profiles: str | None = None  # --profiles as given
        self.explicit_llm = False  # --llm was given with --resume: it overrides what that session recorded
        self.replay_source: Path | None = None  # the session the next replay reads (None: the current one)
        self.salvage_from: Path | None = None  # the session a failed replay came from (offered to salvage)
        self.salvage_at_start = False  # `--from-last-good`: the start-up resume goes on from the last good point
        self.select_at: str | None = None  # `--at NODE`: the tree cursor goes there once the resume is shown
        self.failure = ""  # the last replay's one-line failure ('' once a session is open)
        self.own_runner: RunnerSettings | None = None  # the user's runner settings (None: the first agent's)
        self.runner_maker: RunnerMaker | None = None  # where replays run node code (None: the sandbox)
        self.prompt_places: tuple[Path, ...] = ()  # where a replay looks for an edited prompt set by its hash

    @classmethod
    def create(
        cls, agent: Stepper, episode: EpisodeRef, llm: str | LLM, sessions_dir: Path, resume: Path | None,
        profiles: str | None = None, explicit_llm: bool = True, *, prompt_places: tuple[Path, ...] = (),
        review: bool = False, spec: RunSpec | None = None, runner_maker: RunnerMaker | None = None,
    ) -> "SessionControl":
        """Journal a fresh agent into a new session, or prepare to resume `resume`; every replay keeps
        the agent's runner settings (the user's `--trusted` and `--node-timeout`). `spec`: the run's record as
        the edge resolved it, journaled with what the agent was built with over it. `runner_maker`: the
        run's own (tests: in-process), so its replays run node code where the run does (None: the sandbox)."""
        from recode_tui.setup.build import make_llm

        new_llm: Callable[[], LLM] = (lambda: make_llm(llm, profiles, episode)) if isinstance(llm, str) else (lambda: llm)
        llm_spec = llm if isinstance(llm, str) else llm.name
        if resume is not None:
            control = cls(sessions_dir, new_llm, resume=resume)
        else:
            session = start_session(agent, sessions_dir, episode, llm_spec, profiles=profiles_in_use(llm_spec, profiles),
                                    review=review, spec=spec)
            control = cls(sessions_dir, new_llm, session)
        control.llm_spec, control.profiles = llm_spec, profiles
        control.own_runner, control.prompt_places = RunnerSettings.of_runner(agent.runner), prompt_places
        control.runner_maker = runner_maker
        # --llm given with --resume overrides the recording once, for the session opened at start;
        # later branches of it go on with what it journals (the override is journaled too).
        control.explicit_llm = explicit_llm and isinstance(llm, str) and resume is not None
        return control

    # -- wiring -------------------------------------------------------------------------

    def attach(self, app: ConsoleApp, replace_run: ReplaceRun) -> None:
        """Called once the app is mounted: timers and the first status (each run's screen
        saves the draft when the focus moves, see `DebugScreen.on_mount`). `replace_run` is how
        the app shows a replayed agent (a resume, rewind or fork) in place of the run on show."""
        self.app, self.replace_run = app, replace_run
        app.set_interval(DRAFT_SECONDS, self.save_work)
        app.set_interval(CHECK_SECONDS, self.check_journal)
        self.show_status()
        if self.pending_resume is not None:
            folder, self.pending_resume = self.pending_resume, None
            if self.salvage_at_start:
                self.salvage_from = folder
                self.salvage()
            else:
                self.resume(folder, at_start=True)
        elif self.session is not None:
            # No notice: a toast at start covered the editor for seconds. The status line names the
            # session; `S` lists the sessions and quitting an unfinished run prints its folder.
            self.check_journal()

    def _run_screen(self) -> RunScreen:
        """The debug screen of the run on show (a modal may be on top of it)."""
        assert self.app is not None
        return self.app.debug_screen

    def show_status(self) -> None:
        """The session on the run's status line: its folder, how it was opened, a replay under way."""
        if self.app is None or not self.app.loaded:  # a start-up resume: no run's status line yet
            return
        self._run_screen().post_message(ShowSession(
            self.session.folder.name if self.session is not None else None, how=self.how, failed=bool(self.error),
            opening=self.busy or self.pending_resume is not None))

    # -- journal and draft ------------------------------------------------------------------

    def check_journal(self) -> None:
        """Show a journal write failure once; the run goes on unrecorded."""
        if self.session is not None and self.session.writer.error and self.session.writer.error != self.error:
            self.report(self.session.writer.error)

    def report(self, error: str) -> None:
        self.error = error
        if self.app is not None:
            self.app.notify(error, title="Session journal", severity="error", timeout=15)
            self.show_status()

    def save_work(self) -> None:
        """The draft and the debugging set-up, each written only if it changed (timer, focus change, replay)."""
        self.save_draft()
        self.save_settings()

    def save_settings(self) -> None:
        """Write the breakpoints and watches to debug.json if they changed (in a thread)."""
        app, session = self.app, self.session
        if app is None or session is None or not app.loaded:  # a start-up resume replays: no run's set-up yet
            return
        settings = DebugSettings(list(app.debug_screen.debugger.breakpoints), list(app.watch_expressions))
        self.work.save_settings(app, session.folder, settings)

    def save_draft(self) -> None:
        """Write the expansion being typed to draft.json if it changed (in a thread)."""
        app, session = self.app, self.session
        if app is None or session is None or self.busy or not app.loaded:
            return
        node_id = self._run_screen().editing
        text = app.debug_screen.drafts.get(node_id) if node_id else None
        if node_id is not None and text is not None:
            self.work.save_draft(app, session.folder, node_id, text)

    # -- another agent: resume, rewind, fork ---------------------------------------------------

    def open_list(self) -> None:
        """The sessions screen; the chosen one is resumed."""
        if self.app is None:
            return
        current = self.session.folder if self.session is not None else None

        def chosen(folder: Path | None) -> None:
            if folder is not None:
                self.resume(folder, at_start=self.session is None)

        self.app.session_screens.sessions_list(self.sessions_dir, current, chosen)

    def resume(self, folder: Path, *, at_start: bool = False) -> None:
        """Replay a recorded session and carry on in it.

        A session outside the sessions folder (an eval's journal) is never written:
        it carries on in a copy in the sessions folder, with its own journal,
        draft and breakpoints.
        """
        from agent.sessions.journal_view import foreign_note

        self.replay_source = folder
        self.salvage_from = folder
        note = foreign_note(folder, self.sessions_dir, "it is resumed")  # a journal from elsewhere says so

        async def replay(llm: LLM):
            session, events = await reopen_session(folder, llm, make_env, self.sessions_dir, **self.replay_options)
            if note:
                session.notes.insert(0, note)
            return session, events

        self._replace(replay, f"Resuming {folder.name}", "resumed", closable=not at_start)

    def salvage(self) -> None:
        """After a failed replay: go on from its last clean point, in a new branch session."""
        folder = self.salvage_from
        if folder is None:
            self._warn("no failed replay to continue from")
            return
        self.replay_source = folder
        at_start = self.session is None
        self._replace(lambda llm: salvage_session(folder, llm, make_env, self.sessions_dir, **self.replay_options),
                      f"Continuing {folder.name} from the last good point", "forked", closable=not at_start)

    # -- which LLM a replay goes on with -----------------------------------------------------

    def live_llm(self) -> tuple[LLM, str, str | None, str, str]:
        """The LLM for the next replay, its spec, profiles file, a note, and why it is journaled if it differs
        from the recording. Without --llm: the spec the session last recorded, a profile read from the
        console's own profiles file (never the journal's: it sets the server the key goes to); a spec that
        cannot be built falls back to the console's own, noted and journaled as a `fallback: ...`, which a
        later resume does not keep (`Journal.llm_setup`)."""
        from recode_tui.setup.build import episode_of, make_llm
        from recode_tui.setup.usage import UsageError

        source = self.replay_source or (self.session.folder if self.session is not None else None)
        self.replay_source = None
        recorded: tuple[str, str | None] | None = None
        episode: str | None = None
        if source is not None:
            try:
                journal = read_journal(source, lenient=True)
                recorded, episode = journal.llm_setup, journal.header.game or None
            except JournalError:
                recorded = None
        own = (self.llm_spec, profiles_in_use(self.llm_spec, self.profiles))
        if recorded is None or (self.explicit_llm and recorded[0] != self.llm_spec):
            note = (f"--llm {self.llm_spec} given: it answers instead of the session's {recorded[0]}"
                    if recorded is not None else "")
            return self.new_llm(), own[0], own[1], note, "--llm on resume"
        spec = recorded[0]  # the journal's profiles file is never read: the console's own profiles are
        ignored = recorded[1] is not None and recorded[1] != profiles_in_use(spec, self.profiles)
        try:
            note = journal_llm_note(recorded, self.profiles, "going on") if ignored else ""  # a toast: plain text
            return make_llm(spec, self.profiles, episode_of(episode) if episode else None), spec, self.profiles, note, "replay"
        except UsageError as exc:
            why = f"the session's LLM {spec} cannot be used ({exc})"
            return self.new_llm(), own[0], own[1], f"{why}; {own[0]} answers for now", f"fallback: {why}"

    def record_llm(self, spec: str, profiles: str | None, why: str = "switch") -> None:
        """`L` (or a resume under another LLM): journaled, so a resume or a fork goes on with it."""
        if self.session is not None:
            self.session.writer.record_llm(spec, profiles_in_use(spec, profiles), why)

    def rewind(self) -> None:
        """A branch that stops just before the selected node runs."""
        node = self._selected_node("rewind")
        if node is not None:
            self._branch(rewind_to_node(node.id), f"rewind {node.id}", "rewound")

    def diff_parent(self) -> None:
        """This branch (a fork, a rewind) against the session it was made from, on the diff screen."""
        if self.session is None or self.app is None:
            self._warn("no session is open: nothing to diff")
            return
        self.app.session_screens.parent_diff(self.session.folder, self._warn)

    def fork(self) -> None:
        """A branch at the selected stub's expansion, to answer it differently."""
        node = self._selected_node("fork")
        if node is None:
            return
        answers = [e.answer for e in node.llm_calls if e.accepted] or [e.answer for e in node.llm_calls]
        if not answers:
            self._warn(f"{node.id} was never expanded: fork gives an expanded stub another answer")
            return
        assert self.session is not None
        folder, label = self.session.folder, f"fork {node.id}"
        chosen: list[LLM] = []

        async def replay(llm: LLM):
            # Whatever the LLM, the person writes the forked answer (the old one waits in the
            # editor); the session's LLM answers after it, unless another is chosen with L.
            chosen.append(llm)
            return await branch_session(folder, fork_at_answer(node.id), HumanLLM(), make_env, folder.parent,
                                        label, **self.replay_options)

        self._replace(replay, f"Branching {folder.name} at {label}", "forked", prefill={node.id: answers[-1]},
                      then=lambda: chosen[-1] if chosen else None)

    def fork_with_answer(self, node_id: str, text: str, source: str, prompts: PromptSet) -> bool:
        """A branch at `node_id`'s expansion that continues with a chosen answer and prompt set.

        The prompt workspace uses it for a stub expanded earlier. The replay up to
        the stub uses the recorded prompt set (so it still checks out); expansions
        after the chosen one use the edited set. A person's run gets the answer in
        the editor to submit; any other LLM is handed it as its next answer.
        """
        if self.session is None:
            self._warn("this run is not journaled: nothing to fork from")
            return False
        folder = self.session.folder

        async def replay(llm: LLM):
            live = llm if isinstance(llm, HumanLLM) else ChosenAnswerLLM(text, source, llm)
            session, events = await branch_session(folder, fork_at_answer(node_id), live, make_env, folder.parent,
                                                   f"fork {node_id}", **self.replay_options)
            session.agent.prompts = prompts
            return session, events

        self._replace(replay, f"Forking {folder.name} at {node_id} with the chosen answer", "forked",
                      prefill={node_id: text})  # a person's run: the answer waits in the editor
        return True

    @property
    def replay_options(self) -> dict[str, Any]:
        """What every replay is given: the user's runner settings, where its runner is made from them (the
        run's own maker; None: the sandbox) and where edited prompt sets are saved."""
        return {"runs_with": self.runs_with, "prompt_places": self.prompt_places, "runner_maker": self.runner_maker}

    @property
    def runs_with(self) -> RunnerSettings:
        """Replays keep the console's own --trusted and --node-timeout (its first agent's runner), never
        what a journal says; a test's in-process runner counts as trusted."""
        if self.own_runner is not None:
            return self.own_runner
        trusted = self.app is not None and is_trusted(self.app.run_agent.runner)
        return RunnerSettings(trusted=trusted)

    def _selected_node(self, what: str) -> Node | None:
        app = self.app
        if app is None:
            return None
        if self.session is None:
            self._warn(f"this run is not journaled: nothing to {what} from")
            return None
        node = app.debug_screen.selected_node()
        if node is None:
            self._warn(f"select a node in the code tree to {what}")
        return node

    def _branch(self, stop: Callable[[ev.Event], bool], label: str, how: str, prefill: dict[str, str] | None = None) -> None:
        assert self.session is not None
        folder = self.session.folder
        self._replace(
            lambda llm: branch_session(folder, stop, llm, make_env, folder.parent, label, **self.replay_options),
            f"Branching {folder.name} at {label}",
            how,
            prefill=prefill,
        )

    def _warn(self, text: str) -> None:
        if self.app is not None:
            self.app.notify(text, severity="warning")

    def _replace(self, replay: Replay, title: str, how: str, *, closable: bool = True,
                 prefill: dict[str, str] | None = None, then: Callable[[], LLM | None] | None = None) -> None:
        app = self.app
        assert app is not None
        if self.busy:
            self._warn("a replay is already running")
            return
        if closable and app.debug_screen.driver.busy:
            self._warn("the agent is running: pause it (p) first")
            return
        self.save_work()
        self.busy = True
        screen = app.session_screens.replay_cover(title, self, closable=closable)  # in place of a failed one's
        self.show_status()
        if app.loaded:
            app.debug_screen.say("info", f"{title.lower()}…")
        app.run_worker(LazyWork(lambda: self._run(replay, (screen, title), how, prefill, then)), group="session",
                       exit_on_error=False)  # its coroutine made when the worker starts (none if it never does)

    async def _run(self, replay: Replay, cover: tuple[ReplayCover, str], how: str, prefill: dict[str, str] | None,
                   then: Callable[[], LLM | None] | None = None) -> None:
        app = self.app
        assert app is not None
        screen, title = cover
        try:
            llm, spec, profiles, llm_note, why = self.live_llm()
            session, events = await replay(llm)
            mismatch = replay_failure(events) and f"cannot resume: {replay_failure(events)}"
            if mismatch:  # the agent ends the run on one; the journal got nothing of it
                session.writer.close()
                await session.agent.close()
                raise JournalError(mismatch)
        except Exception as exc:  # noqa: BLE001 - a bad journal or a mismatch is shown, never raised
            self.busy = False
            line = one_line(exc)
            self.failure = line
            if not app.loaded:  # a start-up resume: the run the console started with, under a cover saying why
                await app.show_started_run()
                screen = app.session_screens.replay_cover(title, self, closable=False)
            screen.fail(line, str(exc), salvage=self.salvage_from is not None)
            app.debug_screen.say("error", line)
            self.show_status()
            return
        self.salvage_from, self.failure = None, ""
        self.explicit_llm = False  # the override was for the session opened at start, now journaled
        if read_journal_setup(session.folder) != spec:  # the branch or resume goes on under another LLM
            session.writer.record_llm(spec, profiles_in_use(spec, profiles), why)
        if llm_note:
            session.notes.append(llm_note)
        try:
            await self.adopt(session, events, how, prefill, profiles)
            after = then() if then is not None else None
            run = app.debug_screen
            if after is not None and not isinstance(after, HumanLLM) and run.debugger.awaiting_human:
                run.post_message(HandOver(after))
                app.notify(f"edit the old answer, ctrl+s submits; then {after.name} "
                           "answers again (L chooses another)", title="Fork", timeout=8)
        except Exception as exc:  # noqa: BLE001 - a console bug: say so, keep the journal as it is
            line = f"could not show the replayed session: {one_line(exc)}"
            if screen in app.screen_stack:
                screen.fail(line, str(exc))
            else:  # the new run's screen is up already: its cover is gone
                app.notify(line, title="Session", severity="error", timeout=15)
            return
        finally:
            self.busy = False
        if screen in app.screen_stack:  # the new run's screen replaces it with the old run's
            screen.dismiss()

    async def adopt(self, session: Session, events: list[ev.Event], how: str,
                    prefill: dict[str, str] | None = None, profiles: str | None = None) -> None:
        """Show `session`'s agent on a new debug screen: the replayed events, the draft; close the old run."""
        app, replace_run = self.app, self.replace_run
        assert app is not None and replace_run is not None
        old_agent, old_session = app.run_agent, self.session
        self.session, self.how, self.error = session, how, ""
        drafts = self.work.reopened_draft(session)
        drafts.update(prefill or {})
        # a branch keeps the set-up on screen; a resume brings back the session's own
        breakpoints, watches = self.work.reopened_settings(session) if how == "resumed" else (None, None)
        # the L picker lists the profiles file the session's LLM came from
        await replace_run(session.agent, events, how=how, drafts=drafts, breakpoints=breakpoints,
                              watches=watches, profiles=profiles, episode_ref=session_game(session.folder))
        if self.select_at:
            if self.select_at in session.agent.tree.nodes:
                app.debug_screen.post_message(SelectNode(self.select_at))
            else:
                session.notes.append(f"--at {self.select_at}: this session has no such node")
            self.select_at = None
        if old_session is not None:
            old_session.writer.close()
        if old_agent.host.llm is not session.agent.host.llm and isinstance(old_agent.host.llm, Cancellable):
            old_agent.host.llm.cancel()
        try:
            await old_agent.close()
        except Exception:  # noqa: BLE001 - the old agent is gone either way
            pass
        for note in session.notes:
            app.notify(note, title="Session", severity="warning", timeout=10)
        self.check_journal()
        self.show_status()
        if not self.error:
            app.notify(f"{how}: {session.folder}", title="Session", timeout=5)
