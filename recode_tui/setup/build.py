"""The LLM, the environment and the agent, built from typed settings in one pass.

The one place both front ends (the command line and the console) and the tests
get the wiring a user gets; every failure is a `UsageError` of one line.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from agent.llm import LLM, LLMError
from agent.runtime.prompts import DEFAULT_PROMPTS, PromptSet, moved_prompt_set
from envs.registry import EpisodeRef
from agent.run.spec import RunFlags
from recode_tui.setup.settings import CacheSettings, RunOptions
from recode_tui.setup.usage import DEFAULT_GAME, UsageError

if TYPE_CHECKING:
    from agent.run.spec import RunSpec
    from agent.runtime.stepper import Stepper
    from agent.sandbox.settings import RunnerMaker
    from envs.base import Env

DEMOS = Path(__file__).resolve().parents[2] / "mockllm" / "demos"
DEMO_SCRIPT = DEMOS / "alfworld.yaml"  # ReCode's on ALFWorld (tests and benchmarks serve it)


def demo_script(agent_name: str | None = None, env: str | None = None) -> Path:
    """The demo script `--llm demo` plays: the one the agent declares for the environment
    (`Stepper.traits.demo_scripts`; no environment: the default one). UsageError when it declares none."""
    from agent import agents
    from envs import registry

    try:
        cls = agents.agent_class(agent_name)
    except agents.UnknownAgent as exc:
        raise UsageError(str(exc)) from None
    env = env or registry.default_env()
    script = cls.traits.demo_scripts.get(env)
    if script is not None:
        return Path(script)
    if not cls.traits.demo_scripts:
        raise UsageError(f"--llm demo: the {cls.name} agent has no demo scripts; use scripted:FILE, "
                         "profile:NAME or human")
    gold = " --llm gold," if cls.gold_answers([]) is not None else ""
    raise UsageError(f"--llm demo plays the bundled {', '.join(cls.traits.demo_scripts)} games with the {cls.name} "
                     f"agent; on {env} use{gold} scripted:FILE or profile:NAME")


def episode_of(episode_ref: str) -> EpisodeRef:
    """A reference already qualified (a journal's `game`) as an `EpisodeRef`; the environment is not
    asked (a reference naming an unknown one fails where it is played)."""
    return EpisodeRef.parse(episode_ref)


def make_llm(spec: str, profiles_path: str | None = None, episode: EpisodeRef | None = None,
             agent_name: str | None = None) -> LLM:
    """`human`, `demo` (the agent's bundled demo script), `gold` (the episode's known solution),
    `scripted:FILE` (YAML/JSONL), `journal:PATH`, `profile:NAME`; or one per role,
    `planner=profile:big,executor=profile:small` (see agent.llm.routing)."""
    from agent.llm.routing import RoleError, routed

    try:
        return routed(spec, lambda part: _one_llm(part, profiles_path, episode, agent_name))
    except RoleError as exc:
        raise UsageError(str(exc)) from None


def llm_for(options: RunOptions) -> LLM:
    """A run's LLM from its settings: the routing spec, its profiles, the episode (gold, demo) and the agent."""
    return make_llm(options.llm.spec, options.llm.profiles, options.episode, agent_name=options.settings.agent.name)


def cached_llm(llm: LLM, cache: CacheSettings) -> LLM:
    """An LLM through the response cache as the cache flags and its profiles say (eval does this per episode)."""
    from agent.llm.cache import with_cache
    from recode_tui.setup.places import llm_cache_folder

    if cache.mode == "off":
        return llm
    folder = llm_cache_folder(cache.folder)
    return with_cache(llm, folder, always=cache.mode == "on", ttl=cache.ttl)


def cache_settings(mode: str | None, ttl: str | None, folder: str | Path | None) -> CacheSettings:
    """The response cache as `--cache`/`--no-cache` ("on"/"off", None: each profile's), `--cache-ttl` (30m, 12h,
    7d) and `--cache-dir` give it: the expiry in seconds, the folder absolute; a bad expiry is one line."""
    from agent.llm.cache import CacheError, parse_ttl

    seconds = None
    if ttl is not None:
        try:
            seconds = parse_ttl(ttl)
        except CacheError as exc:
            raise UsageError(f"--cache-ttl: {exc}") from None
    return CacheSettings(mode or None, seconds, str(Path(folder).resolve()) if folder else None)


def check_llm_roles(spec: str, agent_name: str | None) -> None:
    """A routed `--llm` names only roles the agent has (eval checks it before any episode starts)."""
    from agent import agents
    from agent.llm.routing import RoleError, check_roles, split_spec

    try:
        split = split_spec(spec)
        if split is not None:
            cls = agents.agent_class(agent_name)
            check_roles(spec, list(split[1]), cls.name, cls.roles)
    except (RoleError, agents.UnknownAgent) as exc:
        raise UsageError(str(exc)) from None


def _one_llm(spec: str, profiles_path: str | None, episode: EpisodeRef | None, agent_name: str | None = None) -> LLM:
    from mockllm.human import HumanLLM
    from mockllm.scripted import ScriptedLLM

    if spec == "human":
        return HumanLLM()
    if spec == "gold":
        return gold_llm_for(episode or episode_of(DEFAULT_GAME), agent_name)
    if spec.startswith("profile:"):
        return _profile_llm(spec.split(":", 1)[1] or "default", profiles_path)
    if spec.startswith("journal:"):
        from agent.sessions.journal_read import JournalError
        from mockllm.journal import journal_llm

        try:
            return journal_llm(spec.split(":", 1)[1])
        except JournalError as exc:
            raise UsageError(str(exc)) from None
    path = str(demo_script(agent_name, episode.env if episode else None)) if spec == "demo" else spec.split(":", 1)[1] if spec.startswith("scripted:") else None
    if path is None:
        raise UsageError(f"unknown --llm {spec!r}; use human, demo, gold, scripted:FILE, journal:PATH or profile:NAME")
    if not path:
        raise UsageError("scripted: needs a file, e.g. --llm scripted:mockllm/demos/alfworld.yaml")
    try:
        llm = ScriptedLLM.from_file(path)
    except LLMError as exc:
        raise UsageError(str(exc)) from None
    if spec == "demo":  # its answers say they came from the bundled demo, not a script the user wrote
        llm.name = llm.source = "demo"
    return llm


def check_gold(agent_name: str | None) -> "type[Stepper]":
    """The agent's class when it declares answers for a known solution (`gold_answers`), else UsageError."""
    from agent import agents

    try:
        cls = agents.agent_class(agent_name)
    except agents.UnknownAgent as exc:
        raise UsageError(str(exc)) from None
    if cls.gold_answers([]) is None:
        demo = f"demo ({', '.join(cls.traits.demo_scripts)}), " if cls.traits.demo_scripts else ""
        raise UsageError(f"--llm gold: the {cls.name} agent cannot play a known solution; use {demo}"
                         "scripted:FILE or profile:NAME")
    return cls


def gold_llm_for(episode: EpisodeRef, agent_name: str | None = None) -> LLM:
    """A scripted LLM playing the episode's gold path (asked of the env's provider) with the agent's own
    answers (`Stepper.gold_answers`; ReCode's: a plan as code).

    Fetch it before the episode's environment resets: ScienceWorld loads the
    variation again to compute the path.
    """
    from envs.base import EnvError
    from mockllm.gold import script_llm

    cls = check_gold(agent_name)
    try:
        actions = episode.gold_actions()
    except EnvError as exc:
        raise UsageError(str(exc)) from None
    if actions is None:
        raise UsageError(f"--llm gold: the {episode.env} environment has no gold paths; use demo, scripted:FILE or profile:NAME")
    if not actions:
        raise UsageError(f"--llm gold: the simulator gave no gold path for {episode}")
    return script_llm(cls.gold_answers(actions) or [])


def parse_episode(env: str | None, episode_ref: str | None) -> EpisodeRef:
    """`--env` and `--game` as one episode (`put-01`, `sciworld:boil/0`), parsed once; bad input is one line.

    No `--game`: the default ALFWorld game, or the first episode the environment lists.
    The default environment's episodes stay bare in `ref` (see `EpisodeRef.parse`).
    """
    from envs import registry
    from envs.base import EnvError

    try:
        if not episode_ref:
            name = env or registry.default_env()
            if name == registry.default_env():
                episode_ref = DEFAULT_GAME
            else:
                first = registry.provider(name).episodes()
                if not first:
                    raise UsageError(f"the {name} environment lists no episodes; give --game")
                episode_ref = first[0].id
        episode = EpisodeRef.parse(episode_ref, env)
        registry.provider(episode.env)  # an unknown --env is one line here, not later
    except EnvError as exc:
        raise UsageError(str(exc)) from None
    return episode


def episode_ref(env: str | None, game: str | None) -> str:
    """`parse_episode` as the reference's text (for callers of the string API)."""
    return parse_episode(env, game).ref


def step_limit_of(episode: EpisodeRef, settings: "RunSpec") -> int:
    """`--max-steps` when given, else the episode's own limit, else the preset's (see envs.registry)."""
    from envs.base import EnvError

    given = settings.max_steps if settings.max_steps_given else None
    try:
        return episode.step_limit(settings.max_steps, given)
    except EnvError as exc:
        raise UsageError(str(exc)) from None


def _profile_llm(name: str, profiles_path: str | None) -> LLM:
    from agent.llm.openai_client import OpenAILLM
    from agent.llm.profiles import ProfileError, find_profiles_file, load_profiles, resolve_profile

    try:
        book = load_profiles(find_profiles_file(profiles_path))
        return OpenAILLM(resolve_profile(name, book, os.environ), book.prices)  # the key is read here, at the edge
    except ProfileError as exc:
        raise UsageError(str(exc)) from None


def load_prompt_set(path: str | Path | None, agent_name: str | None = None) -> PromptSet:
    """The prompt set at `path` (None: the bundled one); a folder that is not one is a usage error.

    The one check every command uses (run, tui, eval, prompt show): a wrong
    folder would otherwise send an empty prompt.
    """
    from agent.agents import agent_class

    cls = agent_class(agent_name)
    default = cls.default_prompts or DEFAULT_PROMPTS
    if not path:
        return PromptSet(default)
    root = moved_prompt_set(Path(path))  # `agent/prompts/paper`: an old path of a bundled set, mapped to where it lives
    main = cls.main_prompt_file
    if not root.is_dir():
        raise UsageError(f"--prompts {path}: no such folder; give a prompt set folder (one with {main})")
    if not (root / main).is_file():
        raise UsageError(f"--prompts {path} is not a prompt set for the {cls.name} agent (no {main}); see {default}")
    return PromptSet(root)


def make_env(episode: EpisodeRef, max_steps: int | None = None) -> "Env":
    """The environment of an episode, from its provider (`max_steps` None: the episode's own limit)."""
    from envs.base import EnvError

    try:
        return episode.make_env(max_steps)
    except EnvError as exc:
        raise UsageError(str(exc)) from None


def checked_prompts(settings: "RunSpec") -> PromptSet:
    """The prompt set the run names, read and checked before any environment starts (a folder that is
    not one is refused; an unknown agent too)."""
    from agent import agents

    try:
        agents.agent_class(settings.agent.name)
    except agents.UnknownAgent as exc:
        raise UsageError(str(exc)) from None
    return load_prompt_set(settings.prompts.path, settings.agent.name)


def prompt_places(settings: "RunSpec") -> tuple[Path, ...]:
    """Where a resume looks for an edited prompt set by its hash: `--prompts` (a set, or a folder of
    sets) and the user's prompt folder, where the prompt workspace saves."""
    from recode_tui.setup.places import user_prompts_dir

    given = (moved_prompt_set(Path(settings.prompts.path)),) if settings.prompts.path else ()
    return (*given, user_prompts_dir())


EnvMaker = Callable[[EpisodeRef, "int | None"], "Env"]
"""Where an episode's environment is made: `make_env` in-process, or the console's early `EnvHost` worker."""


def make_agent(settings: "RunSpec", episode: EpisodeRef, llm: LLM, *, env_maker: EnvMaker | None = None,
               runner_maker: RunnerMaker | None = None) -> "Stepper":
    """The agent `settings` name on `episode` (`put-01`, `sciworld:boil/0`, a `.tw-pddl` path), asking `llm`.

    The step limit is `step_limit_of(episode, settings)`. Node code runs in a sandboxed worker
    process built by `agent.sandbox.settings`, the one place every path gets its runner and checks;
    `settings.runner.trusted` drops the static checks (process isolation and limits stay). `runner_maker`
    (tests) makes the runner from the same settings instead.
    """
    from agent import agents

    prompts = checked_prompts(settings)  # refused before any environment starts
    runner = runner_maker(settings.runner) if runner_maker is not None else None
    env = (env_maker or make_env)(episode, step_limit_of(episode, settings))
    try:
        return agents.build_agent(settings, env, llm, runner, prompts=prompts)
    except ValueError as exc:  # a routed role the agent does not have
        env.close()
        raise UsageError(str(exc)) from None


def agent_for(options: RunOptions, llm: LLM) -> "Stepper":
    """A run's agent on its episode's environment, from the run's settings in one pass."""
    if options.episode is None:
        raise UsageError("no episode to play: give --game")
    return make_agent(options.settings, options.episode, llm)


def preset_env(env: str | None, preset: str) -> str | None:
    """The environment a preset plays: `--preset paper --env sciworld` is the reference's own
    benchmark (`sciworld-paper`: its episodes, step limits and success rule); others stay."""
    from envs import registry
    from envs.base import EnvError

    if preset != "paper" or not env:
        return env
    try:
        source = registry.provider(env)
        _warn_once(source.preset_warnings(preset))
        return source.paper_env or env
    except EnvError as exc:
        raise UsageError(str(exc)) from None


_warned: set[str] = set()


def _warn_once(lines: list[str]) -> None:
    """A preset's warnings on stderr, each once a process (a command resolves its preset more than once)."""
    for line in lines:
        if line not in _warned:
            _warned.add(line)
            print(f"recode-tui: warning: {line}", file=sys.stderr)


def settings_of(flags: RunFlags) -> "RunSpec":
    """The run's settings from its flags: the preset with every flag given put over it; bad input is one line."""
    from agent.agents.presets import resolve

    try:
        return resolve(flags)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
