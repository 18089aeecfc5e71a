"""What the parser and every command share, in a module that imports nothing.

`recode-tui --help` builds the parser only; keeping these two names here (and
not in `recode_tui.setup.build`, which loads the agents) keeps that import light.
"""

DEFAULT_GAME = "put-01"


class UsageError(Exception):
    """Bad command-line input; the message is one line that says what to do."""
