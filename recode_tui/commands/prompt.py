"""`recode-tui prompt show`: print the rendered expansion prompt of a stub, for scripts; or, with
`--agent NAME` (and `--role ROLE` for an agent with several LLMs), any agent's first prompt.

The game is reset to get the task's instruction and observation; the stub's
other arguments are listed as `(not bound)`, since only a run binds them.
The run's context fields (task, recent actions, steps left) are filled as a
run would fill them: `--after ACTION` plays actions first, which then show as
the recent actions.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from recode_tui.setup.build import load_prompt_set
from recode_tui.setup.usage import UsageError
from recode_tui.commands.parser import ROOT_STUB

if TYPE_CHECKING:
    from envs.registry import EpisodeRef


def run_prompt(args: argparse.Namespace) -> int:
    from agent.runtime.events import ObservationReceived
    from agent.runtime.prompts import PromptContext, RecentActions
    from agent.llm.tokens import TokenCounter
    from envs.registry import make_env
    from envs.base import EnvError

    if args.prompt_command == "table":
        from agent.eval.fairness import table_markdown

        print(table_markdown())
        return 0
    if args.prompt_command != "show":
        raise UsageError("use `recode-tui prompt show --game ID --stub CODE` or `--agent NAME`")
    if args.role is not None and args.agent is None:
        raise UsageError("--role goes with --agent NAME")
    from agent import agents

    try:
        by_parts = agents.agent_class(args.agent).traits.prompt_workspace  # its prompt by parts (ReCode's), or None
    except agents.UnknownAgent as exc:
        raise UsageError(str(exc)) from None
    if by_parts is None or args.role:
        if args.stub != ROOT_STUB or args.after or args.task_type:
            raise UsageError("--stub, --after and --task-type are ReCode's; drop them with --agent " + args.agent)
        from recode_tui.setup.build import parse_episode

        episode = parse_episode(None, args.game)
        _write(first_prompt(episode, args.agent, args.role, args.prompts).rstrip("\n") + "\n")
        return 0
    prompts = load_prompt_set(args.prompts)
    recent = RecentActions()
    try:
        env = make_env(args.game, max_steps=80)
        reset = env.reset()
        for action in args.after:
            recent.observe(ObservationReceived(None, action=action, observation=env.step(action)))
    except EnvError as exc:
        raise UsageError(str(exc)) from None
    try:
        lines = by_parts.variable_lines(args.stub, {"instruction": reset.instruction, "observation": reset.observation})
    except ValueError as exc:
        raise UsageError(f"--stub: {exc}") from None
    finally:
        env.close()
    context = PromptContext(reset.instruction, recent.last(), env.max_steps - env.steps, env.max_steps)
    rendered = by_parts.render(prompts, env.name, args.task_type or env.task_type, args.stub, lines, context)
    _write(rendered.text if rendered.text.endswith("\n") else rendered.text + "\n")
    if args.tokens:
        counter = TokenCounter()
        for part, text in rendered.parts.items():
            print(f"{part}: {counter.count(text).short()}", file=sys.stderr)
        print(f"total: {counter.count(rendered.text).label()}", file=sys.stderr)
    return 0


# An agent's first prompt: the agent is run on the game until it asks the role for the first time.
# Earlier roles are answered so as to reach it at once: Plan-and-Execute's planner with a one-step
# plan (the task itself), its executor by giving that step up (so the replanner is asked).
_REACH = {
    "plan": '{"thought": "shown by prompt show", "steps": [{"id": "s1", "description": "the task", "depends_on": []}]}',
    "act": "Thought: shown by prompt show\nFailed: shown by prompt show",
}


def first_prompt(episode: EpisodeRef, agent_name: str, role: str | None, prompts_dir: str | None) -> str:
    """The prompt of `agent`'s first LLM call of `role` (its first role when None) in `episode`."""
    import asyncio

    from agent import agents
    from agent.runtime.events import LLMRequested, RunFinished
    from mockllm.scripted import ScriptedLLM, ScriptEntry
    from agent.run.spec import RunFlags
    from recode_tui.setup.build import make_agent, settings_of

    try:
        roles = agents.agent_class(agent_name).roles
    except agents.UnknownAgent as exc:
        raise UsageError(str(exc)) from None
    names = {r or "main": r for r in roles}
    if role is not None and role not in names:
        raise UsageError(f"--role {role}: agent {agent_name} has the role(s) {', '.join(names)}")
    wanted = names[role] if role is not None else roles[0]
    llm = ScriptedLLM([ScriptEntry(answer, purpose=purpose) for purpose, answer in _REACH.items()])
    agent = make_agent(settings_of(RunFlags(agent=agent_name, prompts=prompts_dir)), episode, llm)

    async def ask() -> str:
        try:
            while True:
                event = await agent.step()
                if isinstance(event, LLMRequested) and event.role == wanted:
                    return event.prompt
                if isinstance(event, RunFinished):
                    raise UsageError(f"agent {agent_name} ended before asking {role or 'its LLM'}: {event.reason}")
        finally:
            await agent.close()

    return asyncio.run(ask())


def _write(prompt: str) -> None:
    """A prompt to stdout: as written to a file or a pipe; on a terminal with its control characters
    escaped (a prompt file's `\\x1b]52;...` would write the clipboard), as `export` prints."""
    from agent.runtime.safe_text import for_terminal

    sys.stdout.write(for_terminal(prompt) if sys.stdout.isatty() else prompt)
