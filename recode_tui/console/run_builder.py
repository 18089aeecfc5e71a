"""How the console's run is built: the LLM, the agent on its environment, the session.

`build_app` builds it at once (tests, a pipe); `recode-tui tui` on a terminal builds
it in a thread behind the first frame (`RecodeApp(loader=...)`). This module imports
nothing heavy itself: the engine and the session layer load inside `load_run`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from agent.runtime.limits import Limits

if TYPE_CHECKING:
    from agent.llm import LLM
    from agent.runtime.debugger import Breakpoint
    from agent.runtime.stepper import Stepper
    from envs.base import Env
    from recode_tui.console.session_control import SessionControl
    from recode_tui.setup.build import EnvMaker


@dataclass
class LoadedRun:
    """What the console needs to show a run: built off the UI thread by a `RunLoader`."""

    engine: Stepper
    episode: str
    session_control: SessionControl | None = None
    breakpoints: list[Breakpoint] | None = None
    autostart: bool = True
    keymap: dict[str, str] | None = None  # the user's keymap, read with the rest behind the first frame


RunLoader = Callable[[], LoadedRun]
"""Builds the run (imports included); runs in a thread, so it must not touch the app."""


def load_run(
    game: str,
    llm: str | LLM,
    *,
    max_steps: int | None,
    limits: Limits,
    prompts: str | None,
    breakpoints: list[Breakpoint] | None,
    autostart: bool,
    profiles: str | None,
    trusted: bool,
    node_timeout: float,
    preset: str,
    agent: str | None,
    agent_options: dict | None,
    sessions_dir: str | Path | None,
    resume: str | Path | None,
    explicit_llm: bool,
    from_last_good: bool = False,
    select_at: str | None = None,
    keymap: dict[str, str] | None = None,
    env_maker: EnvMaker | None = None,
) -> LoadedRun:
    """Build what a run needs (the LLM, the agent on its environment, the session): `build_app`'s loader."""
    from agent.runtime.presets import RunSettings
    from recode_tui.setup import episode_of, make_engine, make_llm

    if resume is not None:
        from recode_tui.setup.sessions import session_game

        game = session_game(Path(resume))  # the engine is replaced once the replay is done
    episode = episode_of(game)
    model = make_llm(llm, profiles, episode, agent=agent) if isinstance(llm, str) else llm
    settings = RunSettings(preset, max_steps, limits, Path(prompts) if prompts else None, agent or "recode",
                           agent_options or {}, max_steps_given=max_steps is not None, trusted=trusted,
                           node_timeout=node_timeout)
    engine = make_engine(settings, episode, model, env_maker=env_maker)
    control = None
    if sessions_dir is not None or resume is not None:
        from agent.sessions.journal import sessions_dir_from
        from recode_tui.console.session_control import SessionControl

        folder = Path(resume) if resume is not None else None
        control = SessionControl.create(engine, episode, llm, sessions_dir_from(str(sessions_dir) if sessions_dir else None),
                                        folder, profiles, explicit_llm)
        if resume is not None:
            control.salvage_at_start, control.select_at = from_last_good, select_at
    return LoadedRun(engine, episode_label(game), control, breakpoints, autostart and resume is None, keymap)


def episode_label(game: str) -> str:
    """A short name for the status line: the bundled id, the task folder of a path, `sciworld boil/0`."""
    from envs import registry

    name, episode = registry.split_ref(game)
    if name != registry.default_env():
        return f"{name} {episode}"
    path = Path(game)
    if path.suffix == ".tw-pddl" or path.exists():
        if path.suffix == ".tw-pddl" and path.parent.name.startswith("trial_"):
            return path.parent.parent.name
        return path.stem if path.suffix else path.name
    return game
