"""The setup layer below both front ends: typed settings parsed once, and what is built from them.

`settings` holds the frozen types (`RunOptions`, `EpisodeRef`, `LLMSettings`, `EvalOptions`, ...),
`build` the builders (`make_llm`, `make_env`, `checked_prompts`, `make_agent`), `run_session` the
session a headless run works on, `usage` the `UsageError` every command reports in one line. Every
front end (the command line and its `eval`, the console, the plain terminal, the web server) builds
on this package; it imports none of them, and none reaches it through another
(tests/test_layers.py).

Each name is imported from its module, so `recode-tui --help`, which needs only `usage`, imports no
agent (tests/test_help_imports.py).
"""
