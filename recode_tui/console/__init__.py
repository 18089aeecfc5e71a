"""The Textual debugging console: the app, its panes, screens and the prompt workspace."""

from recode_tui.console.support.textual_compat import (guard_terminal_output, share_css_parsing, share_highlight_queries,
                                                       unpin_styles_caches)

# Whatever a pane shows, no terminal control reaches the terminal (a model's or a data file's
# `\x1b]52;...`): every app and screen of the console draws through this guard.
guard_terminal_output()

# Every console of this process (a test session boots hundreds) parses its CSS once, not once per app.
share_css_parsing()

# Every answer editor of this process compiles Python's highlight query once, not once per editor opened.
share_highlight_queries()

# A closed screen's widgets (a workspace, a diff, a run a resume replaced) leave nothing of what they drew
# behind in Textual's caches.
unpin_styles_caches()
