"""The command line: parsing, and the commands that need no full-screen UI (run, eval, export, compare)."""
