"""TextWorld's built-in game logic, parsed once and kept on disk between runs.

Importing textworld parses its built-in logic files (`*.twl`) with TatSu while
the module loads (`textworld.generator.data` ends with `KB = KnowledgeBase.load()`):
about 0.35 s of the ~1 s the engine's import takes, at every start of the
console, although those files never change. `install()`, called before the
first `import textworld`, wraps `GameLogic.load` as soon as `textworld.logic`
is imported: a parse of the same files (same contents, same TextWorld, same
Python) is read back from a pickle in the user's cache folder (a few ms). Any
problem reading or writing the cache falls back to parsing, as before.
`RECODE_ALFWORLD_SPEEDUPS=0` turns it off with the other engine speedups.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import os
import pickle
import sys
import tempfile
from pathlib import Path
from typing import Any, Iterable

MODULE = "textworld.logic"
_wrapped = False
counts = {"read": 0, "parsed": 0}  # loads answered from the cache / parsed (and written): tests read them


def cache_dir() -> Path:
    """Where the parsed logic is kept: the user's cache folder (XDG_CACHE_HOME is honoured)."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("recode-tui")) / "textworld-logic"


def install() -> None:
    """Wrap `GameLogic.load` now if `textworld.logic` is loaded, else as soon as it is imported."""
    module = sys.modules.get(MODULE)
    if module is not None:
        _wrap(module)
    elif not any(isinstance(finder, _WrapOnImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _WrapOnImport())


class _WrapOnImport(importlib.abc.MetaPathFinder):
    """Finds `textworld.logic` as the path finder does, and wraps its `GameLogic.load` once it has run."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name != MODULE:
            return None
        sys.meta_path.remove(self)  # once is enough
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        loader = getattr(spec, "loader", None)
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        run_module = loader.exec_module

        def exec_module(module: Any) -> None:
            run_module(module)
            _wrap(module)

        loader.exec_module = exec_module
        return spec


def _wrap(module: Any) -> None:
    global _wrapped
    game_logic = getattr(module, "GameLogic", None)
    load = getattr(game_logic, "load", None)
    if _wrapped or game_logic is None or load is None:
        return
    parse = load.__func__  # a classmethod, bound to the class

    def cached_load(cls: Any, paths: Iterable[str]) -> Any:
        paths = list(paths)
        if cls is not game_logic:
            return parse(cls, paths)
        try:
            file = cache_dir() / f"{_key(module, paths)}.pickle"
        except OSError:  # a file that cannot be read: the parse says so as before
            return parse(cls, paths)
        try:
            with open(file, "rb") as f:
                logic = pickle.load(f)
            if isinstance(logic, game_logic):
                counts["read"] += 1
                return logic
        except Exception:  # noqa: BLE001 - missing, stale or damaged: parse again
            pass
        logic = parse(cls, paths)
        counts["parsed"] += 1
        _write(file, logic)
        return logic

    game_logic.load = classmethod(cached_load)
    _wrapped = True


def _key(module: Any, paths: list[str]) -> str:
    """The files' names and contents, this TextWorld (its logic module's file) and this Python."""
    digest = hashlib.sha256(sys.version.encode())
    source = os.stat(module.__file__)
    digest.update(f"{module.__file__}:{source.st_size}:{source.st_mtime_ns}".encode())
    for path in paths:
        digest.update(str(path).encode() + b"\0")
        digest.update(Path(path).read_bytes() + b"\0")
    return digest.hexdigest()[:32]


def _write(file: Path, logic: Any) -> None:
    """Write the parse for the next start; a cache that cannot be written only costs that start's time."""
    tmp = None
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=file.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            pickle.dump(logic, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, file)
    except Exception:  # noqa: BLE001
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
