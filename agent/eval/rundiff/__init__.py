"""Diff two recorded runs (or two evaluations): the first divergence, and both runs aligned row by row.

No UI: `recode_tui.commands.diff` prints it, the console's diff screen shows it.
"""


