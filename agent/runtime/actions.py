"""Environment actions as every agent sends them: the size cap on an action, the cap on refusals, and why an episode ended.

Apart from `agent.runtime.stepper` because these rules hold for any agent and
any environment and need no stepper.
"""

from __future__ import annotations

from envs.base import Env

MAX_ACTION_CHARS = 2000  # an action longer than this is refused, never sent (nor journaled whole)
MAX_REFUSED_ACTIONS = 10  # then the run ends: a loop of refused actions would take no step and never end


class TooManyRefusals(Exception):
    """The run sent more refused actions than MAX_REFUSED_ACTIONS; the message is the run's end reason."""


def too_long(action: str, length: int = 0) -> str:
    """The observation refusing an action over MAX_ACTION_CHARS (it is not sent to the environment), or ''.

    Node code or a model can make an action of any size; one kept whole would fill the
    journal and every screen that shows it. `length`: its whole length where `action` is only its start.
    """
    length = max(length, len(action))
    if length <= MAX_ACTION_CHARS:
        return ""
    return (f"action too long ({length} chars, limit {MAX_ACTION_CHARS}); it was not sent: "
            "send one short command per run()")


def cut_action(action: str, length: int = 0) -> str:
    """A refused action as events and the journal keep it: its start and its (whole) length."""
    return f"{action[:80]}… ({max(length, len(action))} chars)"


def check_refusals(refused: int) -> None:
    """Raise TooManyRefusals once `refused` actions were refused as too long."""
    if refused > MAX_REFUSED_ACTIONS:
        raise TooManyRefusals(f"more than {MAX_REFUSED_ACTIONS} actions refused as too long "
                              f"(limit {MAX_ACTION_CHARS} chars each)")


def end_reason(env: Env) -> str:
    """Why an environment ended an unwon episode: the step limit, or the env's own reason
    (`failure`, `end_reason`: a simulator that hung, a task failed) when it ended before it."""
    failure = env.failure
    if failure:
        return failure
    if env.steps < env.max_steps:
        own = env.end_reason
        if own:
            return own
        if not env.done:
            return f"stopped after {env.steps} of {env.max_steps} steps without finishing the task"
    return f"step limit reached ({env.max_steps} steps)"
