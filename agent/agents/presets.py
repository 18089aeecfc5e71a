"""Named run settings: our defaults, and `paper` (the reference implementation's semantics).

Our defaults differ from the reference ReCode code on purpose (a longer
ALFWorld step limit, repair expansions for a node that raises). Someone
reproducing the paper's numbers picks `--preset paper`. A preset only fills in
what the user did not say: an explicit flag always wins (`resolve`).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from agent import agents
from agent.run.spec import AgentChoice, PromptChoice, RunFlags, RunSpec
from agent.runtime.limits import Limits
from agent.sandbox.settings import RunnerSettings

# The paper's prompt set: the sibling of agent.runtime.prompts.DEFAULT_PROMPTS, named by its path here so
# that listing the presets (`recode-tui --help`) imports no prompt machinery; tests/test_presets.py checks
# the two paths agree.
PAPER_PROMPTS = Path(__file__).parent / "recode" / "prompts" / "paper"


def _paper_prompts() -> PromptChoice:
    """The paper's prompt set when it is installed, else the default set."""
    return PromptChoice(str(PAPER_PROMPTS)) if PAPER_PROMPTS.is_dir() else PromptChoice()


def preset_names() -> list[str]:
    return ["default", "paper"]


def preset(name: str) -> RunSpec:
    """A preset by name (what it decides: the step limit, the agent's limits, the prompt set); ValueError
    with a one-line reason for an unknown one."""
    if name == "default":
        return RunSpec(preset="default")
    if name == "paper":
        # The reference: 50 ALFWorld steps, the first node error ends the episode
        # (it never uses max_retry), depth 10, 5 rewrites of an invalid answer.
        # On ScienceWorld it also plays the reference's own benchmark (its 211 episodes, per-task
        # limits and success rule): `--env sciworld` becomes `sciworld-paper` (recode_tui.setup.build.preset_env).
        return RunSpec(preset="paper", max_steps=50, limits=Limits(max_depth=10, max_rewrite=5, end_on_error=True),
                       prompts=_paper_prompts())
    raise ValueError(f"unknown --preset {name!r}; use one of: {', '.join(preset_names())}")


def resolve(flags: RunFlags) -> RunSpec:
    """The preset's settings with every flag the user gave put over them.

    ValueError, one line, for an unknown agent or preset, a bad option, a negative limit or a node time
    limit that is not above 0."""
    base = preset(flags.preset or "default")
    agent_name = flags.agent or agents.DEFAULT_AGENT
    agents.agent_class(agent_name)  # an unknown name is refused here, in one line
    options = agents.parse_options(list(flags.agent_option) if flags.agent_option is not None else None, agent_name)
    prompts = PromptChoice(flags.prompts) if flags.prompts else base.prompts
    if agent_name != agents.DEFAULT_AGENT and not flags.prompts:
        prompts = PromptChoice()  # the paper's prompts are ReCode's: another agent keeps its own
    given: dict[str, Any] = {k: v for k, v in (("max_depth", flags.max_depth), ("max_rewrite", flags.max_rewrite),
                               ("max_retry", flags.max_retry)) if v is not None}
    for key, value in [("max_steps", flags.max_steps), *given.items()]:
        if value is not None and value < 0:
            raise ValueError(f"--{key.replace('_', '-')} must be 0 or more")
    runner = (RunnerSettings(trusted=flags.trusted, sandbox=flags.sandbox) if flags.node_timeout is None
              else RunnerSettings(trusted=flags.trusted, node_timeout=flags.node_timeout, sandbox=flags.sandbox))
    return replace(
        base,
        agent=AgentChoice(agent_name, options),
        max_steps=base.max_steps if flags.max_steps is None else flags.max_steps,
        max_steps_given=flags.max_steps is not None,
        limits=replace(base.limits, **given),
        prompts=prompts,
        runner=runner,
    )
