"""Imported through RECODE_TUI_PLUGINS=tests.toyenv.plugin: registers the toy environment and agent."""

from tests.toyenv import register

register()
