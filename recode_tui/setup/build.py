"""Build engines and LLMs from command-line style specs.

Shared by the headless command line and the console, and by tests that want
the same wiring a user gets.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.llm import LLM, LLMError
from agent.runtime.prompts import DEFAULT_PROMPTS, PromptSet, moved_prompt_set
from agent.runtime.stepper import Limits
from recode_tui.commands.usage import DEFAULT_GAME, UsageError  # re-exported: the commands import them from here

if TYPE_CHECKING:
    from agent.runtime.presets import RunSettings
    from agent.runtime.stepper import Stepper

DEMOS = Path(__file__).resolve().parents[2] / "mockllm" / "demos"
DEMO_SCRIPT = DEMOS / "alfworld.yaml"  # ReCode's on ALFWorld (tests and benchmarks serve it)


def demo_script(agent: str | None = None, env: str | None = None) -> Path:
    """The demo script `--llm demo` plays: the one the agent declares for the environment
    (`Stepper.demo_scripts`; no environment: the default one). UsageError when it declares none."""
    from agent import agents
    from envs import registry

    try:
        cls = agents.agent_class(agent)
    except agents.UnknownAgent as exc:
        raise UsageError(str(exc)) from None
    env = env or registry.default_env()
    script = cls.demo_scripts.get(env)
    if script is not None:
        return Path(script)
    if not cls.demo_scripts:
        raise UsageError(f"--llm demo: the {cls.name} agent has no demo scripts; use scripted:FILE, "
                         "profile:NAME or human")
    gold = " --llm gold," if cls.gold_answers([]) is not None else ""
    raise UsageError(f"--llm demo plays the bundled {', '.join(cls.demo_scripts)} games with the {cls.name} "
                     f"agent; on {env} use{gold} scripted:FILE or profile:NAME")


def _env_of(episode: str | None) -> str | None:
    from envs import registry
    from envs.base import EnvError

    try:
        return registry.split_ref(episode)[0] if episode else None
    except EnvError:
        return None


def make_llm(spec: str, profiles_path: str | None = None, episode: str | None = None,
             agent: str | None = None) -> LLM:
    """`human`, `demo` (the agent's bundled demo script), `gold` (the episode's known solution),
    `scripted:FILE` (YAML/JSONL), `journal:PATH`, `profile:NAME`; or one per role,
    `planner=profile:big,executor=profile:small` (see agent.llm.routing)."""
    from agent.llm.routing import RoleError, routed

    try:
        return routed(spec, lambda part: _one_llm(part, profiles_path, episode, agent))
    except RoleError as exc:
        raise UsageError(str(exc)) from None


def check_llm_roles(spec: str, agent: str | None) -> None:
    """A routed `--llm` names only roles the agent has (eval checks it before any episode starts)."""
    from agent import agents
    from agent.llm.routing import RoleError, check_roles, split_spec

    try:
        split = split_spec(spec)
        if split is not None:
            cls = agents.agent_class(agent)
            check_roles(spec, list(split[1]), cls.name, cls.roles)
    except (RoleError, agents.UnknownAgent) as exc:
        raise UsageError(str(exc)) from None


def _one_llm(spec: str, profiles_path: str | None, episode: str | None, agent: str | None = None) -> LLM:
    from mockllm import HumanLLM, ScriptedLLM

    if spec == "human":
        return HumanLLM()
    if spec == "gold":
        return gold_llm_for(episode or DEFAULT_GAME, agent)
    if spec.startswith("profile:"):
        return _profile_llm(spec.split(":", 1)[1] or "default", profiles_path)
    if spec.startswith("journal:"):
        from agent.sessions.journal import JournalError
        from mockllm.journal import journal_llm

        try:
            return journal_llm(spec.split(":", 1)[1])
        except JournalError as exc:
            raise UsageError(str(exc)) from None
    path = str(demo_script(agent, _env_of(episode))) if spec == "demo" else spec.split(":", 1)[1] if spec.startswith("scripted:") else None
    if path is None:
        raise UsageError(f"unknown --llm {spec!r}; use human, demo, gold, scripted:FILE, journal:PATH or profile:NAME")
    if not path:
        raise UsageError("scripted: needs a file, e.g. --llm scripted:mockllm/demos/alfworld.yaml")
    try:
        llm = ScriptedLLM.from_file(path)
    except LLMError as exc:
        raise UsageError(str(exc)) from None
    if spec == "demo":
        llm.name = "demo"
    return llm


def check_gold(agent: str | None) -> "type[Stepper]":
    """The agent's class when it declares answers for a known solution (`gold_answers`), else UsageError."""
    from agent import agents

    try:
        cls = agents.agent_class(agent)
    except agents.UnknownAgent as exc:
        raise UsageError(str(exc)) from None
    if cls.gold_answers([]) is None:
        demo = f"demo ({', '.join(cls.demo_scripts)}), " if cls.demo_scripts else ""
        raise UsageError(f"--llm gold: the {cls.name} agent cannot play a known solution; use {demo}"
                         "scripted:FILE or profile:NAME")
    return cls


def gold_llm_for(episode: str, agent: str | None = None) -> LLM:
    """A scripted LLM playing the episode's gold path (asked of the env's provider) with the agent's own
    answers (`Stepper.gold_answers`; ReCode's: a plan as code).

    Fetch it before the episode's environment resets: ScienceWorld loads the
    variation again to compute the path.
    """
    from envs import registry
    from envs.base import EnvError
    from mockllm.gold import script_llm

    cls = check_gold(agent)
    try:
        name, _ = registry.split_ref(episode)
        actions = registry.gold_actions(episode)
    except EnvError as exc:
        raise UsageError(str(exc)) from None
    if actions is None:
        raise UsageError(f"--llm gold: the {name} environment has no gold paths; use demo, scripted:FILE or profile:NAME")
    if not actions:
        raise UsageError(f"--llm gold: the simulator gave no gold path for {episode}")
    return script_llm(cls.gold_answers(actions) or [])


def episode_ref(env: str | None, game: str | None) -> str:
    """`--env` and `--game` as one episode reference (`put-01`, `sciworld:boil/0`); bad input is one line.

    No `--game`: the default ALFWorld game, or the first episode the environment lists.
    """
    from envs import registry
    from envs.base import EnvError

    try:
        if not game:
            name = env or registry.default_env()
            if name == registry.default_env():
                game = DEFAULT_GAME
            else:
                first = registry.provider(name).episodes()
                if not first:
                    raise UsageError(f"the {name} environment lists no episodes; give --game")
                game = first[0].id
        return registry.qualify(game, env)
    except EnvError as exc:
        raise UsageError(str(exc)) from None


def step_limit(ref: str, args: Any, settings: "RunSettings") -> int:
    """`--max-steps` when given, else the episode's own limit, else the preset's (see envs.registry)."""
    from envs import registry
    from envs.base import EnvError

    try:
        return registry.step_limit(ref, settings.max_steps, getattr(args, "max_steps", None))
    except EnvError as exc:
        raise UsageError(str(exc)) from None


def _profile_llm(name: str, profiles_path: str | None) -> LLM:
    from agent.llm.openai_client import OpenAILLM
    from agent.llm.profiles import ProfileError, find_profiles_file, load_profiles, resolve_profile

    try:
        book = load_profiles(find_profiles_file(profiles_path))
        return OpenAILLM(resolve_profile(name, book), book.prices)
    except ProfileError as exc:
        raise UsageError(str(exc)) from None


def load_prompt_set(path: str | Path | None, agent: str | None = None) -> PromptSet:
    """The prompt set at `path` (None: the bundled one); a folder that is not one is a usage error.

    The one check every command uses (run, tui, eval, prompt show): a wrong
    folder would otherwise send an empty prompt.
    """
    from agent.agents import agent_class

    cls = agent_class(agent)
    default = cls.default_prompts or DEFAULT_PROMPTS
    if not path:
        return PromptSet(default)
    root = moved_prompt_set(Path(path))  # `agent/prompts/paper`: where ReCode's sets were before issue 26
    main = cls.main_prompt_file
    if not root.is_dir():
        raise UsageError(f"--prompts {path}: no such folder; give a prompt set folder (one with {main})")
    if not (root / main).is_file():
        raise UsageError(f"--prompts {path} is not a prompt set for the {cls.name} agent (no {main}); see {default}")
    return PromptSet(root)


def make_engine(
    game: str,
    llm: LLM,
    limits: Limits = Limits(),
    max_steps: int | None = None,
    prompts_dir: str | Path | None = None,
    trusted: bool = False,
    node_timeout: float = 5.0,
    preset: str = "default",
    agent: str | None = None,
    agent_options: dict[str, Any] | None = None,
) -> "Stepper":
    """An agent (`agent`, default ReCode) on an episode reference (`put-01`, `sciworld:boil/0`, a `.tw-pddl` path).

    `max_steps` None: the episode's own limit.

    Node code runs in a sandboxed worker process built by `agent.runtime.runners`, the
    one place every path gets its runner and checks; `trusted` drops the static
    checks (process isolation and limits stay).
    """
    from agent.runtime.runners import RunnerSettings
    from envs import make_env
    from envs.base import EnvError

    from agent import agents

    try:
        agents.agent_class(agent)
    except agents.UnknownAgent as exc:
        raise UsageError(str(exc)) from None
    prompts = load_prompt_set(prompts_dir, agent)
    try:
        settings = RunnerSettings(trusted=trusted, node_timeout=node_timeout)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    try:
        env = make_env(game, max_steps=max_steps)
    except EnvError as exc:
        raise UsageError(str(exc)) from None
    runner = settings.make_runner()
    try:
        engine = agents.build(agent, env, llm, runner, limits=limits, prompts=prompts, options=agent_options)
    except ValueError as exc:  # a routed role the agent does not have
        env.close()
        raise UsageError(str(exc)) from None
    engine.preset = preset
    return engine


def preset_env(env: str | None, preset: str) -> str | None:
    """The environment a preset plays: `--preset paper --env sciworld` is the reference's own
    benchmark (`sciworld-paper`: its episodes, step limits and success rule); others stay."""
    from envs import registry
    from envs.base import EnvError
    from envs.protocols import PaperVariant

    if preset != "paper" or not env:
        return env
    try:
        source = registry.provider(env)
        return (source.paper_env or env) if isinstance(source, PaperVariant) else env
    except EnvError as exc:
        raise UsageError(str(exc)) from None


def run_settings(args: Any) -> RunSettings:
    """`--preset` with the explicit flags (`--max-steps`, `--max-depth`, ...) put over it.

    Also points `args.env` at the environment the preset plays (see `preset_env`)."""
    from agent.runtime.presets import resolve

    try:
        settings = resolve(
            getattr(args, "preset", None),
            max_steps=args.max_steps,
            max_depth=args.max_depth,
            max_rewrite=args.max_rewrite,
            max_retry=args.max_retry,
            prompts=args.prompts,
            agent=getattr(args, "agent", None),
            agent_options=getattr(args, "agent_option", None),
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if hasattr(args, "env"):
        args.env = preset_env(args.env, settings.preset)
    return settings


def game_path_of(game: str) -> Path:
    """The file of an ALFWorld game (kept for callers of the pre-seam `start_session`)."""
    from envs import registry

    return Path(registry.header_fields(game).get("game_path", game))
