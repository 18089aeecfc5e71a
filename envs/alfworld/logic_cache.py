"""TextWorld's parses that never change between runs, kept on disk: its built-in logic, ALFWorld's grammar.

Importing textworld parses its built-in logic files (`*.twl`) with TatSu while
the module loads (`textworld.generator.data` ends with `KB = KnowledgeBase.load()`):
about 0.35 s of the ~1 s the engine's import takes, at every start of the
console, although those files never change. `install()`, called before the
first `import textworld`, wraps `GameLogic.load` as soon as `textworld.logic`
is imported: a parse of the same files (same contents, same TextWorld, same
Python) is read back from the user's cache folder (a few ms). Any problem
reading or writing the cache falls back to parsing the files.

The files are JSON object data (`object_data`), never pickles: any process of
this user can write the cache folder, and a pickle runs whatever its writer
chose when it is read. A file holds only the classes its kind lists below; one
that names another class, or is damaged, is parsed again and rewritten.

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
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterable

from envs.alfworld import object_data

MODULE = "textworld.logic"
_wrapped = False
counts = {"read": 0, "parsed": 0}  # loads answered from the cache / parsed (and written): tests read them
grammar_counts = {"read": 0, "parsed": 0}  # the same for ALFWorld's game grammar (`kept_on_disk`)
translation_counts = {"read": 0, "parsed": 0}  # the same for fast_downward's PDDL translations
SUFFIX = ".json"

# The classes each kind of file may hold (module:qualified name); a name this TextWorld lacks is skipped.
LOGIC_CLASSES = tuple(f"textworld.logic:{name}" for name in (
    "GameLogic", "TypeHierarchy", "Type", "Signature", "Alias", "Predicate", "Placeholder", "Rule", "Variable",
    "Proposition", "Inform7Logic", "Inform7Type", "Inform7Predicate", "Inform7Command"))


def allowed_classes(names: Iterable[str]) -> dict[str, type]:
    """The classes named `module:qualname` (names from this file's lists, never from a cache file)."""
    import importlib

    found: dict[str, type] = {}
    for name in names:
        module_name, _, qualname = name.partition(":")
        try:
            value: Any = importlib.import_module(module_name)
        except ImportError:
            continue
        for part in qualname.split("."):
            value = vars(value).get(part) if value is not None else None
        if isinstance(value, type):
            found[name] = value
    return found


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
            file = cache_dir() / f"{_key(module, paths)}{SUFFIX}"
        except OSError:  # a file that cannot be read: the parse reports it
            return parse(cls, paths)
        allowed = allowed_classes(LOGIC_CLASSES)
        logic = _read(file, allowed)
        if isinstance(logic, game_logic):
            counts["read"] += 1
            return logic
        logic = parse(cls, paths)
        counts["parsed"] += 1
        _write(file, logic, allowed)
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


def kept_on_disk(function: Callable[..., Any], module: Any, kind: str, classes: Iterable[str],
                 tally: dict[str, int] | None = None,
                 accept: Callable[[Any, tuple[Any, ...]], bool] | None = None) -> Callable[..., Any]:
    """`function` (of `module`) whose result for the same text arguments is read back from the cache.

    Arguments that are not all strings are not cached. The result must be a fresh
    object nobody has changed yet: it is written before the caller gets it. It may
    hold only `classes` (`module:qualname`); `accept(value, args)` refuses a value
    read back that the arguments could not have given (then it is computed again).
    `tally` counts reads and computations (default: `grammar_counts`).
    """
    names = tuple(classes)
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
        file = cache_dir() / f"{kind}-{digest.hexdigest()[:32]}{SUFFIX}"
        allowed = allowed_classes(names)
        value = _read(file, allowed)
        if value is not None and (accept is None or accept(value, args)):
            tally["read"] += 1
            return value
        value = function(*args, **kwargs)
        tally["parsed"] += 1
        _write(file, value, allowed)
        return value

    return cached


def _read(file: Path, allowed: dict[str, type]) -> Any:
    """The value kept in `file`, or None when it is missing, damaged or names a class `allowed` lacks."""
    try:
        return object_data.loads(file.read_bytes(), allowed)
    except (OSError, object_data.ObjectDataError):
        return None


def _write(file: Path, value: Any, allowed: dict[str, type]) -> None:
    """Write the parse for the next start; a cache that cannot be written only costs that start's time."""
    tmp = None
    try:
        text = object_data.dumps(value, allowed)  # a class not allowed: not kept, parsed at each start
        file.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=file.parent, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, file)
        _drop_pickles(file.parent)
    except Exception:  # noqa: BLE001
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


_pickles_dropped = False


def _drop_pickles(folder: Path) -> None:
    """Delete the pickles earlier versions kept here, once per process: never read, only taking room."""
    global _pickles_dropped
    if _pickles_dropped:
        return
    _pickles_dropped = True
    for stale in folder.glob("*.pickle"):
        try:
            stale.unlink()
        except OSError:
            pass
