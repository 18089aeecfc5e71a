"""The old home of `UsageError` and `DEFAULT_GAME` (now `recode_tui.setup.usage`), kept for one release."""

from recode_tui.setup.usage import DEFAULT_GAME, UsageError

__all__ = ["DEFAULT_GAME", "UsageError"]
