"""One readable line per engine event, for the headless command line and the plain mode.

The wording lives in `agent.runtime.event_text` (one way to describe an event, shared
with the console's stop line); this is its log form under the name the
command line uses.
"""

from __future__ import annotations

from agent.runtime.event_text import log_line as event_line

__all__ = ["event_line"]
