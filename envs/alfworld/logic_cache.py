"""TextWorld's parses that never change between runs, kept on disk: its built-in logic, ALFWorld's grammar.

Importing textworld parses its built-in logic files (`*.twl`) with TatSu while
the module loads (`textworld.generator.data` ends with `KB = KnowledgeBase.load()`):
about 0.35 s of the ~1 s the engine's import takes, at every start of the
console, although those files never change. `install()`, called before the
first `import textworld`, wraps `GameLogic.load` as soon as `textworld.logic`
is imported: a parse of the same files (same contents, same TextWorld, same
Python) is read back from a pickle in the user's cache folder (a few ms). Any
problem reading or writing the cache falls back to parsing, as before.

`kept_on_disk` does the same for one function of a loaded module: the speedups
use it for ALFWorld's game grammar (the same for every game once its task
sentence is masked; ~0.2 s of TatSu at the first game of each process).
`RECODE_ALFWORLD_SPEEDUPS=0` turns both off with the other engine speedups.
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
from typing import Any, Callable, Iterable

MODULE = "textworld.logic"
_wrapped = False
counts = {"read": 0, "parsed": 0}  # loads answered from the cache / parsed (and written): tests read them
grammar_counts = {"read": 0, "parsed": 0}  # the same for ALFWorld's game grammar (`kept_on_disk`)
translation_counts = {"read": 0, "parsed": 0}  # the same for fast_downward's PDDL translations


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
        loader = spec.loader if spec is not None else None
        if not isinstance(loader, importlib.abc.InspectLoader):  # the path finder's loaders all are
            return spec
        run_module = loader.exec_module

        def exec_module(module: Any) -> None:
            run_module(module)
            _wrap(module)

        patched: Any = loader  # this one loader object's method is replaced
        patched.exec_module = exec_module
        return spec


def _wrap(module: Any) -> None:
    global _wrapped
    if _wrapped:
        return
    try:
        game_logic = module.GameLogic
        parse = game_logic.load.__func__  # a classmethod, bound to the class
    except AttributeError:  # another TextWorld than the one this cache was written for: left untouched
        return

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
    digest = _version_digest(module)
    for path in paths:
        digest.update(str(path).encode() + b"\0")
        digest.update(Path(path).read_bytes() + b"\0")
    return digest.hexdigest()[:32]


def _version_digest(module: Any) -> Any:
    """A hash that changes with this Python and with the module's source file (a new TextWorld)."""
    digest = hashlib.sha256(sys.version.encode())
    source = os.stat(module.__file__)
    digest.update(f"{module.__file__}:{source.st_size}:{source.st_mtime_ns}".encode())
    return digest


def kept_on_disk(function: Callable[..., Any], module: Any, kind: str,
                 tally: dict[str, int] | None = None) -> Callable[..., Any]:
    """`function` (of `module`) whose result for the same text arguments is read back from the cache.

    Arguments that are not all strings are not cached. The result must be a fresh
    object nobody has changed yet: it is written before the caller gets it.
    `tally` counts reads and computations (default: `grammar_counts`).
    """
    tally = grammar_counts if tally is None else tally
    try:
        base = _version_digest(module)
    except (OSError, TypeError):
        return function

    def cached(*args: Any, **kwargs: Any) -> Any:
        parts = [*args, *(f"{k}={v}" for k, v in sorted(kwargs.items()) if isinstance(v, str))]
        if not all(isinstance(part, str) for part in parts) or len(parts) != len(args) + len(kwargs):
            return function(*args, **kwargs)
        digest = base.copy()
        for part in (kind, *parts):
            digest.update(part.encode() + b"\0")
        file = cache_dir() / f"{kind}-{digest.hexdigest()[:32]}.pickle"
        try:
            with open(file, "rb") as f:
                value = pickle.load(f)
            tally["read"] += 1
            return value
        except Exception:  # noqa: BLE001 - missing, stale or damaged: compute it again
            pass
        value = function(*args, **kwargs)
        tally["parsed"] += 1
        _write(file, value)
        return value

    return cached


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
