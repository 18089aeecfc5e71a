"""Plain-terminal mode: you are the LLM, in an ordinary scrolling terminal.

`recode-tui run --llm human` uses this instead of the full-screen console, for
ssh sessions, narrow terminals and screen readers. The run is stepped by the
console's `agent.runtime.debugger.Debugger`: every event it passes is printed as one
line, and where it stops for the person its stop reason is printed (the
console's stop line) before the prompt. For each expansion the prompt is printed
(highlighted with pygments; long sections folded, F2 prints it whole), then a
prompt-toolkit editor opens: multi-line, Python highlighting, auto-indent,
up/down on the first/last line walks the answers given earlier, the
<think>/<execute> skeleton prefilled. Esc Enter (or Alt-Enter) submits; the
answer is validated first and, when it cannot be used, the reason is shown
under the editor and the text stays as typed. Ctrl-D (or Ctrl-C) pauses: the
text is saved as the session's draft (so is the answer in hand when the editor
or the run crashes), and `--resume` continues there. While the person types,
the draft is also written every 2 s when it changed (as in the console), and
SIGHUP (the terminal closed) or SIGTERM saves it at once and pauses the same
way (`recode_tui.plain.drafts`).

Nothing here imports Textual.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import Any, Callable

from agent.llm import Purpose
from agent.runtime import events as ev
from agent.runtime.debugger import Debugger, Stop, StepMode
from agent.runtime.event_text import first_line
from agent.runtime.safe_text import for_terminal
from agent.runtime.event_text import MainCall
from agent.runtime.event_text import log_line as event_line
from recode_tui.plain.drafts import DraftAutosave, draft_cursor_offset, install_stop_signals
from agent.runtime.answer_check import SubmitRule
from recode_tui.plain.editor import (SUBMIT_KEY, TOOLBAR_KEYS, Paused, answer_validator, editor_key_bindings,
                                     skeleton_for, wrapping_validation)
from recode_tui.plain.prompt_text import render_prompt
from recode_tui.plain.wrap import wrap_fragments, wrap_text, wrap_toolbar
from recode_tui.setup.settings import RunOptions

__all__ = ["EXIT_PAUSED", "PlainFrontEnd", "open_plain_session", "run_plain"]

EXIT_PAUSED = 3


@dataclass
class PlainFrontEnd:
    """Drives a journaled agent whose LLM is a HumanLLM, in a plain terminal, through `agent.runtime.debugger.Debugger`.

    `input`/`output` are prompt-toolkit's (tests pass a pipe input and a
    DummyOutput); every line printed is also kept in `transcript`.
    """

    session: Any  # agent.sessions.session.Session
    pending: ev.LLMRequested | None = None  # an expansion awaiting its answer (after --resume)
    input: Any = None
    output: Any = None
    echo: Callable[[str], None] | None = None
    transcript: list[str] = field(default_factory=list)
    history: list[str] = field(default_factory=list)
    editing: asyncio.Event = field(default_factory=asyncio.Event)
    prompt_session: Any = None
    debugger: Debugger = field(init=False)  # the console's debugger: the plain mode steps the run through it
    _last_text: dict[str, str] = field(default_factory=dict)
    _request: ev.LLMRequested | None = None
    stop_signal: str = ""  # how a SIGHUP/SIGTERM stopped the run ('' when none did)
    run_task: "asyncio.Future[Any] | None" = None  # `run()`, cancelled by a signal between two answers
    _autosave: DraftAutosave | None = None  # the open editor's draft writer
    _restored: str = ""  # the node whose saved draft was put back in the editor
    # An accepted answer leaves `_last_text` (the node's next call starts from the template; a repair
    # from the answer that failed), as in the console.
    _submitted: str | None = None  # the node of the answer submitted, until it is taken or refused
    _accepted: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import InMemoryHistory
        from prompt_toolkit.lexers import PygmentsLexer
        from prompt_toolkit.styles import style_from_pygments_cls
        from pygments.lexers import PythonLexer
        from pygments.styles import get_style_by_name

        history = InMemoryHistory()
        for answer in self.history or self._journal_answers():
            history.append_string(answer)
        self.prompt_session = PromptSession(
            multiline=True,
            lexer=PygmentsLexer(PythonLexer),
            history=history,
            key_bindings=editor_key_bindings(reset=lambda: skeleton_for(self.agent, self._request),
                                             unfold=lambda: self._print_prompt(folded=False)),
            style=style_from_pygments_cls(get_style_by_name("monokai")),
            include_default_pygments_style=False,
            input=self.input,
            output=self.output,
            validate_while_typing=False,
            prompt_continuation=lambda width, line, wrap: "... ".rjust(width),
            bottom_toolbar=self._toolbar,
            erase_when_done=False,
        )
        wrapping_validation(self.prompt_session)
        self.debugger = Debugger(self.agent, breakpoints=[], on_event=self._print_event)
        draft = self.session.draft or {}
        if self.pending is not None and draft.get("node_id") == self.pending.node_id and draft.get("text"):
            self._last_text[self.pending.node_id or ""] = draft["text"]
            self._restored = self.pending.node_id or ""

    # -- output ------------------------------------------------------------
    @property
    def agent(self) -> Any:
        return self.session.agent

    def _journal_answers(self) -> list[str]:
        try:
            from agent.sessions.journal_read import read_journal

            return [r["answer"] for r in read_journal(self.session.folder).records
                    if r.get("type") == "answer" and r.get("source") == "human"]
        except Exception:  # noqa: BLE001 - history is a convenience
            return []

    def say(self, text: str, style: str = "") -> None:
        from prompt_toolkit import print_formatted_text
        from prompt_toolkit.formatted_text import FormattedText

        text = for_terminal(text)  # model and environment text: no terminal controls, no lone surrogates
        self.transcript.extend(text.splitlines() or [""])
        if self.echo is not None:
            self.echo(text)
        print_formatted_text(FormattedText(wrap_fragments([(style, text)], self.width)), output=self.output)

    @property
    def width(self) -> int:
        """The terminal's columns now (it may have been resized): lines break between words there."""
        return self.prompt_session.output.get_size().columns

    def _print_prompt(self, folded: bool = True) -> None:
        from prompt_toolkit import print_formatted_text
        from prompt_toolkit.formatted_text import PygmentsTokens
        from prompt_toolkit.styles import style_from_pygments_cls
        from pygments.styles import get_style_by_name

        request = self._request
        if request is None:
            return
        tokens, hidden = render_prompt(for_terminal(request.prompt), folded)
        self.transcript.extend("".join(t for _, t in tokens).splitlines())
        if self.echo is not None:
            self.echo("".join(t for _, t in tokens))
        print_formatted_text(PygmentsTokens(wrap_fragments(tokens, self.width)),
                             style=style_from_pygments_cls(get_style_by_name("monokai")), output=self.output, end="")

    def _toolbar(self) -> Any:
        # a refused answer's reason is shown by prompt-toolkit's validation line, above this one
        # (on as many rows as it needs: `editor.wrapping_validation`); the keys wrap between entries
        return wrap_toolbar(TOOLBAR_KEYS, self.width)

    # -- the loop ------------------------------------------------------------
    async def run(self) -> ev.RunFinished | None:
        """Step to the end of the run through the debugger; None when the person paused (the session is saved).

        The debugger stops where the console's would: when the person is asked (its human stop),
        when a model's call failed (asked again here, as the plain mode always has), at a breakpoint
        (none from the command line: `run` has no --break; its stop line is printed and the run goes on)
        and at the end.
        """
        debugger = self.debugger
        if self.pending is not None:
            debugger.resume_at(self.pending)
        stop = await debugger.step(StepMode.CONTINUE)  # resumed at a request: stops there at once
        while not isinstance(stop.event, ev.RunFinished):
            if debugger.awaiting_human:
                answered = await self._answer(stop)
                if answered is None:
                    return None
                stop = answered
            else:  # a breakpoint set on `debugger` says where it was; an accepted answer or a model's
                # failed call already has its event's line
                if stop.reason.kind in ("breakpoint", "condition_error"):
                    self.say(f"■ {stop.reason}", "bold")
                stop = await debugger.step(StepMode.CONTINUE)
        return stop.event

    def _print_event(self, event: ev.Event) -> None:
        """The debugger's hook: every event as it passes, one line (the console batches the same hook)."""
        if isinstance(event, (ev.LLMAnswered, ev.LLMRejected)) and self._submitted is not None:
            text = self._last_text.pop(self._submitted, None) if isinstance(event, ev.LLMAnswered) else None
            if text is not None:
                self._accepted[self._submitted] = text
            self._submitted = None
        self.say(event_line(event, MainCall(self.agent.traits.main_purpose, self.agent.traits.answer_words.noun)))

    def _show_request(self, request: ev.LLMRequested) -> None:
        self._request = request
        title = request.purpose or self.agent.traits.main_purpose or "the call"
        self.say(f"─── prompt for {title} of [{request.node_id}] (attempt {request.attempt}) ───", "bold")
        self._print_prompt(folded=True)
        self.say("─── your answer: Esc Enter submits, Ctrl-D pauses and saves ───", "bold")
        if request.node_id and request.node_id == self._restored:  # said last, just above the editor
            self._restored = ""
            self.say(f"your unfinished answer for [{request.node_id}] is back in the editor (its saved draft)", "bold")

    async def _answer(self, stop: Stop) -> Stop | None:
        """At the debugger's human stop: the editor, then `Debugger.submit`. None when the person paused.

        Whatever ends the editor or the run while an answer is in hand, the text is saved as the draft first.
        """
        request = stop.event if isinstance(stop.event, ev.LLMRequested) else self._request
        assert request is not None
        self.say(f"■ {stop.reason}", "bold")  # the debugger's words, as on the console's stop line
        self._show_request(request)
        known = await self.agent.runner.names()
        try:
            text = await self._edit(request, known)
        except Paused as paused:
            await self._stop_here(request, paused.text, paused.how)
            return None
        except (EOFError, KeyboardInterrupt) as exc:  # the terminal went away: keep what was typed
            how = "input closed" if isinstance(exc, EOFError) else "interrupted"
            await self._stop_here(request, self.prompt_session.default_buffer.text, how)
            return None
        except Exception as exc:
            await self._stop_here(request, self.prompt_session.default_buffer.text, _crash(exc, "the editor"))
            raise
        self.history.append(text)
        self._last_text[request.node_id or ""] = text
        self._submitted = request.node_id or ""
        try:
            return await self.debugger.submit(text)  # the person's time counts from the stop that asked them
        except Exception as exc:
            await self._stop_here(request, text, _crash(exc, "the run"))
            raise
        except BaseException:  # cancelled or interrupted while the run took the answer: the text still stays
            self._keep(request, text)
            raise

    async def _edit(self, request: ev.LLMRequested, known: frozenset[str]) -> str:
        from prompt_toolkit.validation import ValidationError

        agent = self.agent
        at_root = bool(request.node_id) and request.node_id == agent.tree.root.id
        rule = SubmitRule(agent, request.purpose, request.role, known=known, at_root=at_root)

        def check(document: Any) -> None:
            reason = rule.refusal(document.text, SUBMIT_KEY)
            if reason:  # the cursor stays where it was: the text is kept exactly as typed
                raise ValidationError(message=wrap_text(reason, self.width), cursor_position=document.cursor_position)

        skeleton, skeleton_cursor = skeleton_for(agent, request)
        node = request.node_id or ""
        default = self._last_text.get(node) or (self._accepted.get(node) if request.purpose == Purpose.REPAIR else None) or skeleton
        cursor = skeleton_cursor if default == skeleton else draft_cursor_offset(default)  # where typing stopped

        def place_cursor() -> None:
            self.prompt_session.default_buffer.cursor_position = cursor

        buffer = self.prompt_session.default_buffer
        self._autosave = DraftAutosave(self.session.folder, request.node_id or "", lambda: buffer.text, saved=default)
        self._autosave.start()
        self.editing.set()
        try:
            return await self.prompt_session.prompt_async(
                f"[{request.node_id}] > ",
                default=default,
                validator=answer_validator(check),
                pre_run=place_cursor,
            )
        finally:
            self.editing.clear()
            await self._autosave.stop()
            self._autosave = None

    def stop_on_signal(self, how: str) -> None:
        """SIGHUP/SIGTERM: the text in hand is written at once (the terminal may be gone already),
        then the run stops as Ctrl-D stops it; between two answers the run is cancelled instead.

        "In hand" includes an editor that is closing: a closed terminal also ends the editor with an
        end of input, and when that came first the signal found the editor no longer editing, cancelled
        the run inside the editor's clean-up, and the typed text was never written (seen under load).
        """
        self.stop_signal = how
        autosave, app = self._autosave, self.prompt_session.app
        text = self.prompt_session.default_buffer.text
        if autosave is not None:
            autosave.save_now(text)
        if self.editing.is_set() and autosave is not None:
            if app.is_running and not app.future.done():
                app.exit(exception=Paused(text, how))
        elif self.run_task is not None:
            self.run_task.cancel()

    async def stopped_between_answers(self) -> None:
        """After a signal cancelled the run between two answers: close it and say how to go on."""
        session = self.session
        try:
            await self.agent.close()
        except Exception:  # noqa: BLE001 - the journal holds everything up to here
            pass
        finally:
            session.writer.close()
        with contextlib.suppress(OSError):  # SIGHUP: the terminal is gone
            self.say(f"{self.stop_signal}: session {session.folder.name} saved.")
            self.say(f"continue with: recode-tui run --llm human --resume {session.folder}")

    def _keep(self, request: ev.LLMRequested, text: str) -> str:
        """Save the person's text as the session's draft; what to tell them about it."""
        from agent.sessions.journal import write_draft

        error = write_draft(self.session.folder, request.node_id or "", text)
        return "the text you typed is kept as a draft" if not error else error

    async def _stop_here(self, request: ev.LLMRequested, text: str, how: str) -> None:
        """Keep the draft, close the run and its journal, and say how to go on."""
        session = self.session
        saved = self._keep(request, text)
        try:
            await self.agent.close()
        except Exception:  # noqa: BLE001 - the run may be what crashed; the draft and the journal are kept
            pass
        finally:
            session.writer.close()
        with contextlib.suppress(OSError):  # after SIGHUP the terminal is gone; the draft is on disk
            self.say(f"{how}: session {session.folder.name} saved ({saved}).")
            self.say(f"continue with: recode-tui run --llm human --resume {session.folder}")


def _crash(exc: BaseException, where: str) -> str:
    return f"{where} stopped on an error ({type(exc).__name__}: {first_line(str(exc), 80)})"


async def run_plain(options: RunOptions) -> int:
    """`recode-tui run --llm human`: the episode in this terminal. Exit 0 won, 1 failed, 3 paused."""
    import sys

    from mockllm.human import HumanLLM
    from recode_tui.setup.run_session import announce_llm

    llm = HumanLLM()
    session, pending = await open_plain_session(options, llm)
    announce_llm(options, session)
    for note in session.notes:
        print(f"note: {for_terminal(note)}", file=sys.stderr)
    front = PlainFrontEnd(session, pending=pending)
    front.run_task = asyncio.ensure_future(front.run())
    undo_signals = install_stop_signals(front.stop_on_signal)
    try:
        result = await front.run_task
    except asyncio.CancelledError:
        if not front.stop_signal:
            raise
        await front.stopped_between_answers()
        return EXIT_PAUSED
    finally:
        undo_signals()
        if front.agent.host.done:
            await front.agent.close()
            session.writer.close()
    if result is None:
        return EXIT_PAUSED
    return 0 if result.success else 1


async def open_plain_session(options: RunOptions, llm: Any) -> tuple[Any, Any]:
    """A journaled session (opened as `run` opens it), and the expansion it waits for when resumed at one."""
    from recode_tui.setup.run_session import open_session

    session, events = await open_session(options, llm)
    last = events[-1] if events else None
    return session, last if isinstance(last, ev.LLMRequested) else None
