"""ReCode's prompt set as a person edits it: the files to edit and saving a draft to a folder.

Part of ReCode's prompt authoring (with `agent.agents.recode.authoring`); apart from
rendering and the example checks because it is the only part that touches the disk. The draft
itself (`DraftPromptSet`, held in memory, hashed as it would be saved) is the runtime's
(`agent.runtime.prompt_parts`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from agent.runtime.prompt_parts import DraftPromptSet, PromptSetError
from agent.runtime.prompts import DEFAULT_PROMPTS, PromptSet

EXPAND_TEMPLATE = "expand.txt"
_SET_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def editable_files(prompts: PromptSet, env_name: str) -> list[str]:
    """What a person edits: the expand template, the action list, each few-shot file."""
    folder = prompts.root / env_name / "examples"
    examples = sorted(f"{env_name}/examples/{p.name}" for p in folder.glob("*.txt")) if folder.is_dir() else []
    return [EXPAND_TEMPLATE, f"{env_name}/actions.txt", *examples]


def examples_file(env_name: str, task_type: str | None) -> str | None:
    return f"{env_name}/examples/{task_type}.txt" if task_type else None


# -- saving ------------------------------------------------------------------------------------


def is_bundled(path: Path) -> bool:
    bundled = DEFAULT_PROMPTS.parent.resolve()
    resolved = path.resolve()
    return resolved == bundled or bundled in resolved.parents


def save_prompt_set(draft: DraftPromptSet, name: str, prompts_dir: Path) -> Path:
    """Write the whole set (unchanged files too) to `<prompts_dir>/<name>/`; returns the folder.

    The bundled prompts are never written to.
    """
    if not _SET_NAME.match(name):
        raise PromptSetError(f"prompt set name {name!r}: use letters, digits, '-', '_' or '.'")
    target = prompts_dir / name
    if is_bundled(target):
        raise PromptSetError(f"{target} holds the bundled prompts, which are never overwritten; pick another folder")
    files = draft.files()
    try:
        for relative, data in files.items():
            path = target / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            temp = path.with_name(path.name + ".tmp")
            temp.write_bytes(data)
            os.replace(temp, path)
    except OSError as exc:
        raise PromptSetError(f"cannot write {target}: {exc.strerror}") from None
    return target


def default_set_name(prompts: PromptSet) -> str:
    """A name to offer when saving: the set's own folder unless it is the bundled one."""
    return "my-prompts" if is_bundled(prompts.root) else prompts.root.name
