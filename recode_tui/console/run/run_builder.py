"""How the console's run is built: the LLM, the agent on its environment, the session.

`build_app` builds it at once (tests, a pipe); `recode-tui tui` on a terminal builds
it in a thread behind the first frame (`RecodeApp(loader=...)`); both from the typed
`ConsoleOptions` the command line's edge parsed. This module imports
nothing heavy itself: the agent and the session layer load inside `load_run`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from agent.llm import LLM
    from agent.runtime.breakpoints import Breakpoint
    from agent.runtime.stepper import Stepper
    from envs.base import Env
    from envs.registry import EpisodeRef
    from recode_tui.console.session.session_control import SessionControl
    from agent.sandbox.settings import RunnerMaker
    from recode_tui.setup.build import EnvMaker
    from recode_tui.setup.settings import ConsoleOptions


@dataclass
class LoadedRun:
    """What the console needs to show a run: built off the UI thread by a `RunLoader`."""

    agent: Stepper
    episode: str
    session_control: SessionControl | None = None
    breakpoints: list[Breakpoint] | None = None
    autostart: bool = True
    keymap: dict[str, str] | None = None  # the user's keymap, read with the rest behind the first frame
    review: bool = False  # review mode (--review, or the resumed session's): known once the options are read


RunLoader = Callable[[], LoadedRun]
"""Builds the run (imports included); runs in a thread, so it must not touch the app."""


def load_run(options: ConsoleOptions, llm: LLM | None = None, env_maker: EnvMaker | None = None,
             runner_maker: RunnerMaker | None = None) -> LoadedRun:
    """Build what the console's run needs (the LLM, the agent on its environment, the session) from its options.

    `llm`: a model object answering instead of the options' spec (tests); `env_maker`: where the
    episode's environment is made (the early `EnvHost`'s worker), default in-process; `runner_maker`:
    where node code runs (tests: in-process), default the sandbox.
    With `options.run.resumed` (a session folder) the console replays that session instead, with the
    LLM it recorded unless `--llm` was given.
    """
    from recode_tui.setup.build import episode_of, make_agent, make_llm
    from recode_tui.setup.usage import UsageError
    from recode_tui.setup.build import prompt_places

    run = options.run
    episode = run.episode
    if run.resumed is not None:
        from recode_tui.setup.sessions import session_game

        episode = episode_of(session_game(run.resumed))  # the agent is replaced once the replay is done
    if episode is None:
        raise UsageError("no episode to play: give --game")
    model = llm if llm is not None else make_llm(run.llm.spec, run.llm.profiles, episode, agent_name=run.settings.agent.name)
    agent = make_agent(run.settings, episode, model, env_maker=env_maker, runner_maker=runner_maker)
    control = None
    if options.journaled or run.resumed is not None:
        from recode_tui.setup.places import sessions_dir_from
        from recode_tui.console.session.session_control import SessionControl

        control = SessionControl.create(agent, episode, llm if llm is not None else run.llm.spec,
                                        sessions_dir_from(run.sessions), run.resumed, run.llm.profiles, run.llm.given,
                                        prompt_places=prompt_places(run.settings), review=options.review,
                                        spec=run.settings, runner_maker=runner_maker)
        if run.resumed is not None:
            control.salvage_at_start, control.select_at = run.from_last_good, options.at
    breakpoints = list(options.breakpoints) if options.breakpoints is not None else None
    return LoadedRun(agent, episode_label(episode), control, breakpoints, run.resumed is None, options.keymap,
                     options.review)


def episode_label(episode: EpisodeRef) -> str:
    """A short name for the status line: the bundled id, the task folder of a path, `sciworld boil/0`."""
    from envs import registry

    if episode.env != registry.default_env():
        return f"{episode.env} {episode.episode}"
    path = Path(episode.episode)
    if path.suffix == ".tw-pddl" or path.exists():
        if path.suffix == ".tw-pddl" and path.parent.name.startswith("trial_"):
            return path.parent.parent.name
        return path.stem if path.suffix else path.name
    return episode.episode
