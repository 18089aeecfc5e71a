"""The console in a browser (`recode-tui serve`, the optional `[web]` extra); the core never imports it."""
