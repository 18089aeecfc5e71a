"""The Textual debugging console: the app, its panes, screens and the prompt workspace."""

from recode_tui.console.support.textual_compat import guard_terminal_output, share_css_parsing, share_highlight_queries

# Whatever a pane shows, no terminal control reaches the terminal (a model's or a data file's
# `\x1b]52;...`): every app and screen of the console draws through this guard.
guard_terminal_output()

# Every console of this process (a test session boots hundreds) parses its CSS once, not once per app.
share_css_parsing()

# Every answer editor of this process compiles Python's highlight query once, not once per editor opened.
share_highlight_queries()
