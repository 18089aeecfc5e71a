"""Prompt sets a person edits: drafts held in memory (hashed as they would be saved), the files to edit, and saving to a folder.

Part of ReCode's prompt authoring (with `agent.agents.recode.authoring`); apart from
rendering and the example checks because it is the only part that touches the disk.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from agent.runtime.prompts import DEFAULT_PROMPTS, PromptSet, env_digest

EXPAND_TEMPLATE = "expand.txt"
_SET_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class PromptSetError(Exception):
    """A prompt set cannot be saved or read; the message says what to do."""


# -- an edited prompt set ---------------------------------------------------------------


@dataclass
class DraftPromptSet(PromptSet):
    """A prompt set whose files may be replaced by edited texts held in memory.

    Its content hash is computed exactly like `PromptSet.content_hash` over the
    files as they would be saved, so a saved copy has the same hash.
    """

    edits: dict[str, str] = field(default_factory=dict)

    def optional(self, relative: str) -> str | None:
        if relative in self.edits:
            return self.edits[relative]
        return super().optional(relative)

    def files(self) -> dict[str, bytes]:
        """Every file of the set as it would be saved: relative path -> bytes."""
        found: dict[str, bytes] = {}
        if self.root.is_dir():
            for path in self.root.rglob("*"):
                if path.is_file() and "__pycache__" not in path.parts:
                    found[path.relative_to(self.root).as_posix()] = path.read_bytes()
        for relative, text in self.edits.items():
            found[relative] = text.encode("utf-8")
        return found

    def content_hash(self) -> str:
        digest = hashlib.sha256()
        files = self.files()
        for relative in sorted(files, key=Path):
            digest.update(str(Path(relative)).encode())
            digest.update(files[relative])
        env_digest(digest)
        return digest.hexdigest()[:12]

    @property
    def changed(self) -> list[str]:
        """The edited files whose text differs from the folder's."""
        return [r for r, t in self.edits.items() if t != PromptSet(self.root).optional(r)]


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
