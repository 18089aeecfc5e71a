"""The Textual debugging console: the app, its panes, screens and the prompt workspace."""
