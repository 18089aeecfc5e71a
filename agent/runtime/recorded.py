"""What a replay hands the run handle (`agent.host`): statements typed at a stop to run again, and the divergence error.

The runtime defines these and the replay wrappers (`agent.sessions.replay`) use them, so the loop
knows nothing of journals: it runs each `RecordedStatement` once as many events have passed as when
it was typed, and ends the run on a `ReplayMismatch` raised from inside an agent's episode.
"""

from __future__ import annotations

from dataclasses import dataclass


class ReplayMismatch(Exception):
    """The live run differs from the recording; the message names the step and shows both texts."""


@dataclass(frozen=True)
class RecordedStatement:
    """A statement the person ran at a stop, and how many agent events came before it."""

    after: int
    code: str
