"""Build engines and LLMs from command-line style specs.

Shared by the headless command line and the console, and by tests that want
the same wiring a user gets.
"""

from __future__ import annotations

from pathlib import Path

from agent.engine import Engine, Limits
from agent.llm import LLM, LLMError
from agent.prompt import DEFAULT_PROMPTS, PromptSet

DEMO_SCRIPT = Path(__file__).resolve().parent.parent / "mockllm" / "demos" / "alfworld.yaml"
DEFAULT_GAME = "put-01"


class UsageError(Exception):
    """Bad command-line input; the message is one line that says what to do."""


def make_llm(spec: str, profiles_path: str | None = None) -> LLM:
    """`human`, `demo` (the bundled demo script), `scripted:FILE` (YAML/JSONL), `profile:NAME`."""
    from mockllm import HumanLLM, ScriptedLLM

    if spec == "human":
        return HumanLLM()
    if spec.startswith("profile:"):
        return _profile_llm(spec.split(":", 1)[1] or "default", profiles_path)
    if spec.startswith("journal:"):
        from agent.journal import JournalError
        from agent.session import journal_llm

        try:
            return journal_llm(spec.split(":", 1)[1])
        except JournalError as exc:
            raise UsageError(str(exc)) from None
    path = str(DEMO_SCRIPT) if spec == "demo" else spec.split(":", 1)[1] if spec.startswith("scripted:") else None
    if path is None:
        raise UsageError(f"unknown --llm {spec!r}; use human, demo, scripted:FILE, journal:PATH or profile:NAME")
    if not path:
        raise UsageError("scripted: needs a file, e.g. --llm scripted:mockllm/demos/alfworld.yaml")
    try:
        llm = ScriptedLLM.from_file(path)
    except LLMError as exc:
        raise UsageError(str(exc)) from None
    if spec == "demo":
        llm.name = "demo"
    return llm


def _profile_llm(name: str, profiles_path: str | None) -> LLM:
    from agent.openai_llm import OpenAILLM
    from agent.profiles import ProfileError, find_profiles_file, load_profiles, resolve_profile

    try:
        book = load_profiles(find_profiles_file(profiles_path))
        return OpenAILLM(resolve_profile(name, book), book.prices)
    except ProfileError as exc:
        raise UsageError(str(exc)) from None


def make_engine(
    game: str,
    llm: LLM,
    limits: Limits = Limits(),
    max_steps: int = 80,
    prompts_dir: str | None = None,
    trusted: bool = False,
    node_timeout: float = 5.0,
) -> Engine:
    """An engine on a bundled game id, a split id or a `.tw-pddl` path.

    Node code runs in a sandboxed worker process; `trusted` drops its static
    checks (process isolation and limits stay).
    """
    from envs import make_env
    from envs.base import EnvError

    try:
        env = make_env(game, max_steps=max_steps)
    except EnvError as exc:
        raise UsageError(str(exc)) from None
    prompts = PromptSet(Path(prompts_dir)) if prompts_dir else PromptSet(DEFAULT_PROMPTS)
    from agent.sandbox import SandboxRunner

    runner = SandboxRunner(trusted=trusted, node_timeout=node_timeout)
    return Engine(env, llm, runner=runner, limits=limits, prompts=prompts, code_check=runner.check)


def game_path_of(game: str) -> Path:
    from envs.alfworld.catalog import resolve_game

    return resolve_game(game)
