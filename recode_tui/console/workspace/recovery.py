"""Unsaved prompt edits, kept on disk as they are typed, so a crash or a kill loses none.

The workspace holds edits in memory until the person saves a set. After each
quiet pause in typing they are also written (atomically) to
`<sessions dir>/.prompt-edits/<key>.json`, keyed by the prompt set's folder.
Opening the workspace on that set again brings them back, as long as the
folder's files are still what the edits were made against; saving the set
discards the file.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from agent.sessions.journal import write_json_atomically

RECOVERY_DIR = ".prompt-edits"
FORMAT = "recode.prompt-edits.v1"


def recovery_file(sessions_dir: Path, root: Path) -> Path:
    key = hashlib.sha256(str(Path(root).resolve()).encode()).hexdigest()[:16]
    return sessions_dir / RECOVERY_DIR / f"{key}.json"


def save_edits(path: Path, root: Path, base_hash: str, edits: dict[str, str]) -> str:
    """Write the edits (or remove the file when there are none); returns an error text or ''."""
    if not edits:
        discard(path)
        return ""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"unsaved prompt edits not kept on disk ({exc.strerror})"
    data = {"format": FORMAT, "root": str(root), "base_hash": base_hash, "edits": edits}
    error = write_json_atomically(path, data)
    return f"unsaved prompt edits not kept on disk ({error})" if error else ""


def load_edits(path: Path, root: Path, base_hash: str) -> dict[str, str]:
    """The kept edits of `root`, if they were made against its files as they are now."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("base_hash") != base_hash:
        return {}
    if data.get("root") != str(root):
        return {}
    edits = data.get("edits")
    if not isinstance(edits, dict):
        return {}
    return {k: v for k, v in edits.items() if isinstance(k, str) and isinstance(v, str)}


def discard(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass
