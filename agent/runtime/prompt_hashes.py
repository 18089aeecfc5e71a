"""A hash per prompt file, so two runs can say which file of their prompt sets differs.

The set's one hash (`PromptSet.content_hash`) says only that something differs;
a journal also records each file's own, keyed by its path in the set
(`alfworld/examples/clean.txt`) or, for the texts every agent shares, under
`envs/` (`envs/alfworld/actions.txt`), the same files the set's hash covers.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from agent.runtime.prompts import ENV_FILES, ENV_TEXTS

ENV_PREFIX = "envs/"
HASH_LENGTH = 12


def text_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:HASH_LENGTH]


def file_hashes(root: Path) -> dict[str, str]:
    """{file: hash} for every file of the set at `root` and the shared environment texts."""
    found: dict[str, str] = {}
    if root.is_dir():
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            found[path.relative_to(root).as_posix()] = text_hash(path.read_bytes())
    for path in sorted(p for name in ENV_FILES for p in ENV_TEXTS.glob(f"*/{name}")):
        found[ENV_PREFIX + path.relative_to(ENV_TEXTS).as_posix()] = text_hash(path.read_bytes())
    return found


def file_path(root: Path, name: str) -> Path:
    """Where a recorded prompt file is read from: under the set's folder, or the shared `envs/` texts."""
    if name.startswith(ENV_PREFIX):
        return ENV_TEXTS / name[len(ENV_PREFIX):]
    return root / name
