"""Old module paths, kept importable for one release after the layout change (issue 26).

`agent/` used to be flat: `agent.engine`, `agent.stepper`, `agent.journal`, ...
Those modules now live by concern (`agent.runtime`, `agent.sessions`, `agent.eval`,
`agent.llm`, `agent.agents.recode`). A plug-in, a notebook or a branch written
against the old paths keeps working: `import agent.stepper` gives the very module
`agent.runtime.stepper` (the same object, so monkeypatching one patches the other).
A module whose names were split between the runtime and ReCode's package maps to a
small module here that re-exports both halves.

No file stays at the old path on purpose: git then sees each move as a rename, so
changes made on other branches to the old files follow the move when merged.
Remove this package (and its line in `agent/__init__.py`) one release after the move.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import sys
from types import ModuleType
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:  # for the checker only: importing it costs `--help` its speed (see _Alias)
    from importlib.abc import Loader

# old module path -> where it lives now
MOVED: dict[str, str] = {
    "agent.engine": "agent.agents.recode.engine",
    "agent.prompt": "agent.compat.prompt",  # split: agent.runtime.prompts + agent.agents.recode.prompt
    "agent.codeblocks": "agent.compat.codeblocks",  # split: agent.runtime.code + agent.agents.recode.codeblocks
    "agent.answer_rule": "agent.agents.recode.answer_rule",  # its Verdict now lives in agent.runtime.verdict
    "agent.prompt_authoring": "agent.agents.recode.authoring",
    "agent.stepper": "agent.runtime.stepper",
    "agent.events": "agent.runtime.events",
    "agent.tree": "agent.runtime.tree",
    "agent.debugger": "agent.runtime.debugger",
    "agent.debug_settings": "agent.runtime.debug_settings",
    "agent.event_text": "agent.runtime.event_text",
    "agent.varlist": "agent.runtime.varlist",
    "agent.runner": "agent.runtime.runner",
    "agent.runners": "agent.runtime.runners",
    "agent.thread_runner": "agent.runtime.thread_runner",
    "agent.presets": "agent.runtime.presets",
    "agent.safe_text": "agent.runtime.safe_text",
    "agent.journal": "agent.sessions.journal",
    "agent.journal_view": "agent.sessions.journal_view",
    "agent.session": "agent.sessions.session",
    "agent.replay": "agent.sessions.replay",
    "agent.export": "agent.sessions.export",
    "agent.evaluation": "agent.eval.batch",
    "agent.eval_compare": "agent.eval.compare",
    "agent.failure": "agent.eval.failure",
    "agent.fairness": "agent.eval.fairness",
    "agent.openai_llm": "agent.llm.openai_client",
    "agent.profiles": "agent.llm.profiles",
    "agent.tokens": "agent.llm.tokens",
    "agent.agents.routing": "agent.llm.routing",
}


class _Alias:
    """Loads an old path as the module that now holds its code.

    A plain class: the import system needs only `create_module`/`exec_module` (and a finder only
    `find_spec`); subclassing `importlib.abc` would import `importlib.resources`, tempfile and
    shutil into every command, `recode-tui --help` included."""

    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(self.target)
        self.spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run (the target ran when imported); give the module back its own spec,
        which the import system replaced with the old path's."""
        module.__spec__ = self.spec


class MovedFinder:
    """Finds the old paths in `MOVED`; last on `sys.meta_path`, so a real file always wins."""

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> importlib.machinery.ModuleSpec | None:
        new = MOVED.get(fullname)
        if new is None:
            return None
        return importlib.util.spec_from_loader(fullname, cast("Loader", _Alias(new)))  # a Loader by its methods


def install() -> None:
    """Make the old paths importable (once per process)."""
    if not any(isinstance(finder, MovedFinder) for finder in sys.meta_path):
        sys.meta_path.append(MovedFinder())
