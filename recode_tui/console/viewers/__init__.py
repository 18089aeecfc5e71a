"""Read-only consoles for one file: a diff of two runs, a recorded journal, an exported plan tree."""
