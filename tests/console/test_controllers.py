"""The debug screen's controllers and declared interfaces, without starting a console."""

from __future__ import annotations

import re

from textual.binding import Binding

from agent.sessions.replay import ReplayLLM
from mockllm.chosen import ChosenAnswerLLM
from mockllm.human import HumanLLM
from mockllm.review import ReviewLLM
from mockllm.scripted import ScriptedLLM
from agent.llm import Cancellable
from recode_tui.console.run.hosts import Interruptible, is_trusted
from recode_tui.console.controllers.keys import DEBUG_BINDINGS
from recode_tui.console.controllers.session_actions import SESSION_BINDINGS, session_commands
from recode_tui.console.workspace.fresh import unwrapped


class _Control:
    """Enough of a session control for `session_commands` (it only names the methods)."""

    def __init__(self) -> None:
        self.called: list[str] = []

    def rewind(self) -> None:
        self.called.append("rewind")

    def fork(self) -> None:
        self.called.append("fork")

    def diff_parent(self) -> None:
        self.called.append("diff_parent")

    def open_list(self) -> None:
        self.called.append("open_list")


def test_every_session_key_names_a_session_command() -> None:
    control = _Control()
    commands = session_commands(control)
    named = [m.group(1) for b in SESSION_BINDINGS if (m := re.fullmatch(r"session\('(\w+)'\)", b.action))]
    assert len(named) == len(SESSION_BINDINGS)
    assert sorted(named) == sorted(commands)
    for name in named:
        commands[name]()
    assert control.called == named


def test_the_footer_keeps_every_binding_id_once() -> None:
    ids = [b.id for b in DEBUG_BINDINGS if isinstance(b, Binding)]
    assert len(ids) == len(DEBUG_BINDINGS)
    assert len(ids) == len(set(ids)) and None not in ids
    assert {"llm.switch", "session.rewind", "search.find", "view.zoom", "breakpoint.toggle"} <= set(ids)


def test_a_wrapped_llm_is_unwrapped_by_its_wrapper_class() -> None:
    script = ScriptedLLM([], name="scripted:x")
    wrapped = ChosenAnswerLLM("answer", "model", ReviewLLM(ReplayLLM([], script)))
    assert unwrapped(wrapped) is script
    assert unwrapped(script) is script


def test_optional_powers_are_asked_with_isinstance() -> None:
    class Runner:
        trusted = True

        def interrupt(self) -> None: ...

    assert is_trusted(Runner()) and not is_trusted(object())
    assert isinstance(Runner(), Interruptible) and not isinstance(object(), Interruptible)
    assert isinstance(HumanLLM(), Cancellable)
