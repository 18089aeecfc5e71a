"""The prompt workspace: edit a prompt set, see the rendered prompt, re-expand and compare."""

from recode_tui.console.workspace.screen import PromptWorkspace

__all__ = ["PromptWorkspace"]
