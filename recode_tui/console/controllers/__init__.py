"""The debug screen's controllers: each group of keys, and what it asks the screen to show."""
