"""A page object over the console for Pilot tests: what a person does (step, answer) and sees (the
tree, the log, the status line), on the toy environment with node code run in-process.

Why: a behaviour of the console (a key, a pane, a breakpoint) does not depend on ALFWorld or on the
sandbox's worker process, and booting both costs most of a console test. `toy_app` builds the real
console on the toy world (tests/toyenv) with the runtime's own in-process runner (`ThreadRunner`);
a test of what the sandbox or ALFWorld does keeps `build_app` with the real ones.

Waits await what they need: a command's result is the screen's `stop_shown` signal, published once
the stop is shown in every pane, then the messages it queued and its frame; nothing polls. Keys are
sent as the terminal sends them, not with `pilot.press`, which waits for the process to go idle after
each key and so lets Textual draw every frame of what the key started (a stop's layout, its scrollbars,
the tree's cursor a frame later): most of a console test's CPU is Textual drawing.
"""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, AsyncContextManager, AsyncIterator, Callable

import pytest
import pytest_asyncio
from textual.pilot import Pilot
from textual.widgets import Input

from recode_tui.console.app import RecodeApp, build_app
from recode_tui.console.run.run_state import RunState
from recode_tui.console.widgets.status_bar import StatusBar
from tests.settings import console_options, in_process

from .helpers import HANG, SIZE, armed, drawn, key_pressed, post_keys, published, queues_drained, refreshed, replays_done, select_node, type_text

if TYPE_CHECKING:
    from agent.llm import LLM
    from agent.runtime.answer_check import AnswerCheck
    from agent.runtime.breakpoints import Breakpoint
    from agent.runtime.stepper import Stepper
    from recode_tui.console.screens.debug_screen import DebugScreen
    from recode_tui.console.widgets.variables import VariablesPane

TOY_GAME = "toy:vase-1"  # "put a vase in sidetable."; the vase is on diningtable 1 (as in ALFWorld's put-01)
STEP_KEYS = {"next": "n", "step": "s", "over": "o", "out": "u", "continue": "c"}


def toy_app(llm: str | LLM = "human", *, game: str = TOY_GAME, breakpoints: list[Breakpoint] | None = None,
            **options: Any) -> RecodeApp:
    """The console on a toy episode, node code in-process. `llm`: an `--llm` spec or a model object;
    `options`: `console_options`' keywords (sessions_dir, keymap, agent, limits, ...).

    The toy environment must be registered (the `toy_env` fixture)."""
    return in_process_app(game, llm, breakpoints=breakpoints, **options)


def alfworld_app(llm: str | LLM = "human", *, game: str = "put-01", breakpoints: list[Breakpoint] | None = None,
                 **options: Any) -> RecodeApp:
    """The console on a bundled ALFWorld game (the real engine), node code in-process: for what ALFWorld
    decides (its action grammar, the games the demo model plays) where the sandbox worker is not what is
    checked. Same arguments as `toy_app`."""
    return in_process_app(game, llm, breakpoints=breakpoints, **options)


def in_process_app(game: str, llm: str | LLM, *, breakpoints: list[Breakpoint] | None, **options: Any) -> RecodeApp:
    spec, model = (llm, None) if isinstance(llm, str) else ("human", llm)
    return build_app(console_options(game, spec, breakpoints=breakpoints, **options), model, runner_maker=in_process)


class ConsolePage:
    """The running console as a person uses it: keys that run the agent, the answer they type, what the
    panes show. Each command returns once its stop is shown."""

    def __init__(self, pilot: Pilot) -> None:
        self.pilot = pilot
        self.app: RecodeApp = pilot.app  # type: ignore[assignment]
        self._waiting: list[asyncio.Future[RunState]] = []
        self._subscribed: DebugScreen | None = None

    @classmethod
    @asynccontextmanager
    async def open(cls, app: RecodeApp, size: tuple[int, int] = SIZE) -> AsyncIterator[ConsolePage]:
        """Run `app` under Pilot and yield its page once the run's first stop is shown."""
        async with app.run_test(size=size) as pilot:
            page = cls(pilot)
            await page.started()
            yield page

    # -- what a person sees ------------------------------------------------------------------

    @property
    def screen(self) -> DebugScreen:
        return self.app.debug_screen

    def tree(self) -> list[str]:
        """The code tree's lines as shown (open nodes' children included, closed ones' not)."""
        lines: list[str] = []
        stack = [self.screen.tree_view.root]
        while stack:
            item = stack.pop()
            if item is not self.screen.tree_view.root or self.screen.tree_view.show_root:
                lines.append(item.label.plain)
            if item.is_expanded or item is self.screen.tree_view.root:
                stack.extend(reversed(item.children))
        return lines

    def log(self) -> str:
        """The environment pane's text."""
        return "\n".join(self.screen.env_log.lines)

    @property
    def reason(self) -> str:
        """Why the run stopped, as the status line says it."""
        return self.screen.reason

    @property
    def state(self) -> str:
        return self.screen.run_state

    def status(self) -> str:
        """The status line's text (the run's figures, its LLM, why it stopped)."""
        return self.screen.query_one(StatusBar).text

    @property
    def variables(self) -> VariablesPane:
        """The variables pane: the values, the marks of what the run bound since the last stop, the watches."""
        return self.screen.variables

    @property
    def breakpoints(self) -> list[Breakpoint]:
        """The breakpoints in the list, in its order (each one's spec, whether it is on, its hits)."""
        return self.screen.debugger.breakpoints

    @property
    def agent(self) -> Stepper:
        """The run's agent: its tree, environment and LLM, as the panes show them."""
        return self.screen.agent

    @property
    def last_event(self) -> Any:
        """The event the run stopped at."""
        return self.screen.debugger.last_event

    @property
    def editor_text(self) -> str:
        """The text in the answer editor."""
        return self.screen.editor.editor.text

    @property
    def check(self) -> AnswerCheck | None:
        """The verdict the answer editor's check line shows (`ok`, `message`), None before any."""
        return self.screen.editor.last_check

    def header(self) -> str:
        """The answer editor's header line: which call of which node the answer is for."""
        return self.screen.editor.query_one("#expand-header").render().plain

    @property
    def awaiting_answer(self) -> bool:
        """The run waits for a person's answer (the editor is theirs)."""
        return self.screen.debugger.awaiting_human

    @property
    def prompt(self) -> str:
        """The prompt of the call awaiting an answer, as the prompt tab shows it ('' when none is)."""
        pending = self.screen.pending_prompt
        return pending[1] if pending else ""

    @property
    def steps(self) -> int:
        """The environment's step count (the status line's figure)."""
        return self.agent.env.steps

    @property
    def finished(self) -> Any:
        """How the run ended (`success`, `reason`), None while it runs."""
        return self.agent.host.finished

    # -- what a person does ------------------------------------------------------------------

    async def started(self) -> None:
        """Wait until the run's first stop (the task and first observation) is shown."""
        await replays_done(self.pilot)  # a console started to resume a session: its replay first
        try:
            await asyncio.wait_for(self.screen.first_stop_shown.wait(), HANG)
        except asyncio.TimeoutError:
            raise AssertionError(f"the run showed no stop in {HANG:g} s (it says: {self.reason!r})") from None
        await queues_drained(self.app)
        await refreshed(self.app)

    async def command(self, *keys: str) -> None:
        """Press keys that run one agent command and wait until its stop is shown."""
        stop = self._next_stop()
        post_keys(self.app, *keys)
        await self._shown(stop)

    async def step(self, mode: str = "next") -> None:
        """One debugger command by its key: next, step (into), over, out, continue."""
        await self.command(STEP_KEYS[mode])

    async def answer(self, text: str) -> None:
        """Type `text` into the open answer editor and submit it (ctrl+s); returns once the run stopped
        after it. The editor must be open (the run awaits an answer)."""
        await type_text(self.pilot, text)
        await self.command("ctrl+s")

    async def select(self, node_id: str) -> None:
        """Put the tree's cursor on `node_id`, the tree focused, as a person does with the arrow keys."""
        self.screen.tree_view.focus()
        await select_node(self.pilot, self.app, node_id)

    async def put_answer(self, text: str) -> AnswerCheck:
        """Put `text` in the open answer editor at once (as a paste) and return its check, once shown."""
        self.screen.editor.editor.load_text(text)
        await self.checked()
        assert self.check is not None
        return self.check

    async def add_breakpoint(self, spec: str) -> None:
        """Type a breakpoint in the breakpoint box (B), then give the tree the keys again."""
        await self.press("B")
        self.screen.query_one("#bp-input", Input).focus()
        await self.type(spec)
        await self.press("enter")
        self.screen.tree_view.focus()

    async def press(self, *keys: str) -> None:
        """Press keys one at a time, each handled (with what it posted) before the next is sent; then
        wait until the frames the keys call for are drawn (a box a key filled has its scrollbar and its
        text wrapped to the width left): `drawn`, frame by frame, where `pilot.press` sleeps until idle."""
        for key in keys:
            await key_pressed(self.app, key)
        await drawn(self.app)

    async def type(self, text: str) -> None:
        await type_text(self.pilot, text)

    # -- waiting -----------------------------------------------------------------------------

    async def worked(self, group: str) -> None:
        """Wait until the work a key just started in the app's workers of `group` is done (a pane
        reading a value from the runner, say)."""
        await queues_drained(self.app)  # the key's message is handled: its worker exists
        await self.app.workers.wait_for_complete([w for w in self.app.workers if w.group == group])
        await drawn(self.app)

    def _next_stop(self) -> asyncio.Future[RunState]:
        """A future the next shown stop resolves (armed before the key that causes it)."""
        screen = self.screen
        if self._subscribed is not screen:  # a new run (resume, fork) has its own screen and signal
            screen.stop_shown.subscribe(self.app, self._on_stop_shown, immediate=True)
            self._subscribed = screen
        future: asyncio.Future[RunState] = asyncio.get_running_loop().create_future()
        self._waiting.append(future)
        return future

    def _on_stop_shown(self, state: RunState) -> None:
        waiting, self._waiting = self._waiting, []
        for future in waiting:
            if not future.done():
                future.set_result(state)

    async def _shown(self, stop: asyncio.Future[RunState]) -> None:
        try:
            await asyncio.wait_for(stop, HANG)
        except asyncio.TimeoutError:
            raise AssertionError(f"no stop was shown in {HANG:g} s (the run says: {self.reason!r})") from None
        await queues_drained(self.app)  # the requests the stop posted (the editor's focus, the key line) are handled
        await refreshed(self.app)  # and what waited for the stop's frame (the tree's cursor on the current node)

    async def reached(self, state: str) -> None:
        """Wait until the run's state is `state`: for what no stop marks (a review's proposal, shown
        whenever the model answers). Awaits the state's change; nothing polls."""
        reached: asyncio.Future[str] = asyncio.get_running_loop().create_future()

        def changed(value: str) -> None:
            if value == state and not reached.done():
                reached.set_result(value)

        self.screen.watch(self.screen, "run_state", changed, init=True)
        try:
            await asyncio.wait_for(reached, HANG)
        except asyncio.TimeoutError:
            raise AssertionError(f"the run never reached {state!r} in {HANG:g} s (it is {self.state!r})") from None
        await drawn(self.app)  # the requests posted with the state (the editor, the key line) are handled

    async def replaced(self, *keys: str) -> None:
        """Press keys that put a new run on show (R rewinds, F forks, enter on a listed session resumes)
        and wait until the new run's first stop is shown and the session's work is done. No keys: the
        session `--resume` opens at start-up (called first thing under `run_test`)."""
        from recode_tui.console.screens.debug_screen import DebugScreen

        if not keys:  # a start-up resume: no run is on show before its replay's, which may be shown already
            await self.started()
            await self.work_done("session")
            return
        old = self.screen

        def changed(screen: object) -> None:  # the new run's screen: its stops are the ones to await
            if isinstance(screen, DebugScreen) and screen is not old and self._subscribed is not screen:
                screen.stop_shown.subscribe(self.app, self._on_stop_shown, immediate=True)
                self._subscribed = screen

        self.app.screen_change_signal.subscribe(self.app, changed, immediate=True)
        try:
            stop: asyncio.Future[int] = asyncio.get_running_loop().create_future()
            self._waiting.append(stop)
            for key in keys:
                await key_pressed(self.app, key)
            await self._shown(stop)
        finally:
            self.app.screen_change_signal.unsubscribe(self.app)
        await self.work_done("session")

    async def checked(self) -> None:
        """Wait until the answer editor's check line judges the text now in it (a typed text is
        checked in a worker; a proposal's check may be shown already): each verdict shown is published, and
        one of an older text is followed by the current one's. The line's text is set with the verdict, so no
        frame is awaited (`helpers.checked` awaits a finished frame, for a snapshot)."""
        editor = self.screen.editor
        while editor.last_check != editor.check(editor.editor.text):
            await published(armed(self.app, editor.check_shown), "the live check")
        await drawn(self.app)

    async def work_done(self, group: str) -> None:
        """Like `worked`, when the work may be over already: no worker of `group` left is no wait
        (Textual's `wait_for_complete` takes an empty list for every worker, the agent's too)."""
        await queues_drained(self.app)
        left = [w for w in self.app.workers if w.group == group]
        if left:
            await self.app.workers.wait_for_complete(left)
        await drawn(self.app)

    async def status_shows(self, predicate: Callable[[str], bool], what: str) -> None:
        """Wait until the status line's text satisfies `predicate` (at once if it does): what the run
        waits for (a model answering, its clock) changes only at the line's `set_activity`, which is
        awaited, so nothing polls while a clock ticks."""
        bar = self.screen.query_one(StatusBar)
        if predicate(bar.text):
            return
        shown: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        set_activity = bar.set_activity

        def observed(text: str) -> None:
            set_activity(text)
            if predicate(bar.text) and not shown.done():
                shown.set_result(None)

        bar.set_activity = observed  # type: ignore[method-assign]
        try:
            await published(shown, f"the status line showing {what}")
        finally:
            del bar.set_activity

    async def events_applied(self, predicate: Callable[[], bool], what: str) -> None:
        """Wait until `predicate` holds (at once if it does), checked each time the panes take a batch of
        the agent's events (the screen's `apply_events`): for what happens mid-command that no stop marks
        (a node starting to run); nothing polls while the command goes on."""
        if predicate():
            return
        screen = self.screen
        held: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        apply_events = screen.apply_events

        def applied(events: Any) -> None:
            apply_events(events)
            if predicate() and not held.done():
                held.set_result(None)

        screen.apply_events = applied  # type: ignore[method-assign]
        try:
            await published(held, what)
        finally:
            del screen.apply_events

    async def opened(self, *keys: str) -> Any:
        """Press keys that open a screen (W the prompt workspace, ctrl+r its comparison, S the sessions)
        and return the screen once it is on show: awaits the app's screen change; nothing polls."""
        before = self.app.screen
        shown: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

        def changed(screen: object) -> None:
            if screen is not before and not shown.done():
                shown.set_result(screen)

        self.app.screen_change_signal.subscribe(self.app, changed, immediate=True)
        try:
            for key in keys:
                await key_pressed(self.app, key)
            await asyncio.wait_for(shown, HANG)
        except asyncio.TimeoutError:
            raise AssertionError(f"no screen opened in {HANG:g} s after {keys}") from None
        finally:
            self.app.screen_change_signal.unsubscribe(self.app)
        await drawn(self.app)
        return shown.result()


@asynccontextmanager
async def toy_console(llm: str | LLM = "human", **options: Any) -> AsyncIterator[ConsolePage]:
    """`ConsolePage.open(toy_app(...))`: the console on the toy world, at its first stop."""
    async with ConsolePage.open(toy_app(llm, **options)) as page:
        yield page


Stops = dict[str, Callable[[], AsyncContextManager[ConsolePage]]]


def shared_consoles(stops: Stops) -> Any:
    """A module's `page` fixture: one console per named stop of `stops` (each opens the console and brings
    it to that stop), shared by the tests marked `at(name)`. For tests that only read what a stop shows
    (or leave it as they found it); a test that changes the run opens its own. pytest runs the tests of one
    stop together and closes its console before the next one opens. The toy world must be registered for
    the whole module (`toy_module`)."""

    @pytest_asyncio.fixture(scope="module", loop_scope="module")
    async def page(request: pytest.FixtureRequest) -> AsyncIterator[ConsolePage]:
        async with stops[request.param]() as opened:
            yield opened

    return page


def at(stop: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The test reads the module's shared console (`shared_consoles`) at `stop`, in the module's loop where
    that console runs."""
    def marked(test: Callable[..., Any]) -> Callable[..., Any]:
        return pytest.mark.asyncio(loop_scope="module")(pytest.mark.parametrize("page", [stop], indirect=True)(test))

    return marked


def filled(skeleton: str, code: str) -> str:
    """The answer editor's skeleton with `code` written into its empty `<execute>` section: what a person
    types there, for `put_answer` where the keys are not what a test checks."""
    assert "<execute>\n\n</execute>" in skeleton, f"no empty <execute> section in {skeleton!r}"
    return skeleton.replace("<execute>\n\n</execute>", f"<execute>\n{code}\n</execute>")
