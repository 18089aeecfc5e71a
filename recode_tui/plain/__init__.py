"""The plain-terminal front end (prompt-toolkit): `recode-tui run --llm human`."""
