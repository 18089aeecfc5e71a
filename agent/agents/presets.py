"""Named run settings: our defaults, and `paper` (the reference implementation's semantics).

Our defaults differ from the reference ReCode code on purpose (a longer
ALFWorld step limit, repair expansions for a node that raises). Someone
reproducing the paper's numbers picks `--preset paper`. A preset only fills in
what the user did not say: an explicit flag always wins (`resolve`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agent import agents
from agent.runtime.limits import Limits
from agent.sandbox.walls import SandboxPolicy

# The paper's prompt set: the sibling of agent.runtime.prompts.DEFAULT_PROMPTS, named by its path here so
# that listing the presets (`recode-tui --help`) imports no prompt machinery; tests/test_presets.py checks
# the two paths agree.
PAPER_PROMPTS = Path(__file__).parent / "recode" / "prompts" / "paper"


@dataclass(frozen=True)
class RunSettings:
    """How an agent runs on any episode: what a preset decides (the step limit, the agent's limits,
    the prompt set) with the user's flags over it, the agent and its options (`--agent`,
    `--agent-option`), and how its node code runs (`--trusted`, `--node-timeout`).

    The one settings object the builders take (`recode_tui.setup.build.make_agent`); the episode
    and the LLM are given beside it.
    """

    preset: str
    max_steps: int | None  # None: the environment's own limit (a provider's step_limit or default_max_steps)
    limits: Limits
    prompts: Path | None  # None: the agent's bundled default set
    agent: str = "recode"
    agent_options: dict[str, Any] = field(default_factory=dict)
    max_steps_given: bool = False  # `--max-steps` was typed: it wins over an episode's own limit, a preset's does not
    trusted: bool = False  # node code runs without the sandbox's static checks (agent.runtime.runners)
    node_timeout: float | None = None  # each node's time limit in seconds; None: the runner's default
    sandbox: SandboxPolicy = SandboxPolicy()  # the walls and layers the edge resolved (RECODE_SANDBOX*, --sandbox)


def _paper_prompts() -> Path | None:
    """The paper's prompt set when it is installed, else the default set."""
    return PAPER_PROMPTS if PAPER_PROMPTS.is_dir() else None


def preset_names() -> list[str]:
    return ["default", "paper"]


def preset(name: str) -> RunSettings:
    """A preset by name; ValueError with a one-line reason for an unknown one."""
    if name == "default":
        return RunSettings("default", None, Limits(), None)
    if name == "paper":
        # The reference: 50 ALFWorld steps, the first node error ends the episode
        # (it never uses max_retry), depth 10, 5 rewrites of an invalid answer.
        # On ScienceWorld it also plays the reference's own benchmark (its 211 episodes, per-task
        # limits and success rule): `--env sciworld` becomes `sciworld-paper` (recode_tui.setup.build.preset_env).
        return RunSettings("paper", 50, Limits(max_depth=10, max_rewrite=5, end_on_error=True), _paper_prompts())
    raise ValueError(f"unknown --preset {name!r}; use one of: {', '.join(preset_names())}")


def resolve(
    name: str | None,
    *,
    agent: str | None = None,
    agent_option: tuple[str, ...] | list[str] | None = None,
    max_steps: int | None = None,
    max_depth: int | None = None,
    max_rewrite: int | None = None,
    max_retry: int | None = None,
    prompts: str | Path | None = None,
    trusted: bool = False,
    node_timeout: float | None = None,
    sandbox: SandboxPolicy = SandboxPolicy(),
) -> RunSettings:
    """The preset's settings with every value the user gave explicitly put over them; the keywords are the
    flags' own names (`recode_tui.setup.settings.RunFlags`'s fields), so the flags pass through whole.

    ValueError, one line, for a negative limit (a node timeout is checked where its runner is built)."""
    base = preset(name or "default")
    agent_name = agent or agents.DEFAULT_AGENT
    agents.agent_class(agent_name)  # an unknown name is refused here, in one line
    options = agents.parse_options(list(agent_option) if agent_option is not None else None, agent_name)
    if agent_name != agents.DEFAULT_AGENT and base.prompts is not None and not prompts:
        base = replace(base, prompts=None)  # the paper's prompts are ReCode's: another agent keeps its own
    given: dict[str, Any] = {k: v for k, v in (("max_depth", max_depth), ("max_rewrite", max_rewrite), ("max_retry", max_retry))
             if v is not None}
    for key, value in [("max_steps", max_steps), *given.items()]:
        if value is not None and value < 0:
            raise ValueError(f"--{key.replace('_', '-')} must be 0 or more")
    return replace(
        base,
        max_steps=base.max_steps if max_steps is None else max_steps,
        limits=replace(base.limits, **given),
        prompts=Path(prompts) if prompts else base.prompts,
        agent=agent_name,
        agent_options=options,
        max_steps_given=max_steps is not None,
        trusted=trusted,
        node_timeout=node_timeout,
        sandbox=sandbox,
    )
