"""The prompt workspace: edit a prompt set, see the rendered prompt, re-expand and compare."""


