"""The run limits every agent reads (spec §4), apart from the Stepper.

Kept in a module of its own, importing nothing of the runtime, so the command
line can show their defaults in `--help` without loading the agent.
`agent.runtime.stepper.Limits` is this very class.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """Run limits (spec §4). The environment's step limit lives on the Env.

    Every agent reads the ones that apply to it: `max_rewrite` (re-asks after an
    invalid answer) for all, `max_depth` for the recursive ones, `max_retry` for
    repairs of code that raised.
    """

    max_depth: int = 10
    max_rewrite: int = 5  # re-asks after an invalid answer; one more invalid answer stops the run
    max_retry: int = 5  # repairs: how deep a chain of "this node raised, rewrite it" may go
    end_on_error: bool = False  # the paper's code: the first node that raises ends the episode (no repair)
