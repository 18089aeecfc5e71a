"""The worker's runtime guards, installed before node code runs.

- `audit_hook`: an allow-list of audit events (layer 3). Node code needs to
  compile and execute code, read frames of its own stack for `run()`'s line
  and nothing more; every other audited operation (files, sockets,
  processes, signals, ctypes, new imports, gc and tracing hooks, rlimits) is
  refused. Imports are judged against the modules loaded when the hook was
  installed, a frozen set: `sys.modules` is node-reachable data.
- `freeze_shared_classes`: the Python classes node code reaches through the
  allowed modules (`json.JSONEncoder`, `collections.Counter`, ...) are
  marked immutable, so `json.JSONEncoder.encode = ...` raises TypeError
  however node code got hold of the class (layer 1 at run time).
- `shared_objects`: the ids of everything reachable from those modules, for
  the hook to refuse changing attributes of their functions.
- `remove_unaudited_calls`: calls CPython raises no audit event for
  (`os.mknod`, `os.mkfifo`, `os.pidfd_open`, starting a thread, ...), which a
  worker never needs, are taken out of their modules: a hook cannot refuse
  what it is never told of.

Pure standard library plus ctypes, which is used before the hook exists and
refused after.
"""

from __future__ import annotations

import sys
import types
from typing import Any, Callable, Iterable

ALLOWED_EVENTS: frozenset[str] = frozenset(
    {
        "exec", "compile",  # running node code
        "builtins.id",  # id() is an allowed builtin
        "sys._getframe",  # run() reads the node's line; namedtuple its caller's module
        "time.sleep",
        "sys.excepthook", "sys.unraisablehook",  # the interpreter reporting, not node code acting
        "pickle.find_class",  # only the snapshot loader's allow-list answers it
    }
)
_ATTRIBUTE_CHANGES = ("object.__setattr__", "object.__delattr__")
_IMMUTABLE_TYPE = 1 << 8  # Py_TPFLAGS_IMMUTABLETYPE (CPython 3.10+)
_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE


class HookState:
    """What the hook needs to know of the worker: whether it is the worker itself calling."""

    # The worker's own code is making a call node code may not: its CPU backstop
    # (setrlimit), or run() reading which line of the node called it (frames).
    own_call = False


def audit_hook(state: HookState, shared: frozenset[int]) -> Callable[[str, tuple[Any, ...]], None]:
    loaded = frozenset(sys.modules)  # fixed now: node code may rewrite sys.modules later
    allowed = ALLOWED_EVENTS

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event in allowed:
            return
        if event == "import":
            name = args[0] if args else "?"
            if name in loaded and not (len(args) > 1 and args[1]):  # a file to load is a new import
                return
            raise PermissionError(f"forbidden: import {name}")
        if event in _ATTRIBUTE_CHANGES:
            if args and id(args[0]) not in shared:
                return  # an object node code made (its class, its function)
            name = args[1] if len(args) > 1 else "?"
            raise PermissionError(f"forbidden: changing .{name} of a shared object")
        if event == "object.__getattr__":  # frames, code, tracebacks, generators' internals
            if state.own_call:
                return
            name = args[1] if len(args) > 1 else "?"
            raise PermissionError(f"forbidden: attribute .{name}")
        if event == "resource.setrlimit" and state.own_call:
            return
        raise PermissionError(f"forbidden: {event}")

    return hook


# Calls without an audit event (CPython 3.11) that create files, processes,
# threads or descriptors onto other processes.
UNAUDITED_CALLS: dict[str, tuple[str, ...]] = {
    "os": ("mknod", "mkfifo", "pidfd_open", "memfd_create", "openpty", "eventfd", "splice",
           "copy_file_range", "sendfile", "register_at_fork", "setns", "unshare"),
    "posix": ("mknod", "mkfifo", "pidfd_open", "memfd_create", "openpty", "eventfd", "splice",
              "copy_file_range", "sendfile", "register_at_fork", "setns", "unshare"),
    "signal": ("pidfd_send_signal", "setitimer", "alarm"),
    "_signal": ("pidfd_send_signal", "setitimer", "alarm"),
    "_thread": ("start_new_thread", "start_new"),
}


def remove_unaudited_calls() -> list[str]:
    """Delete UNAUDITED_CALLS from the loaded modules; returns what was removed."""
    removed: list[str] = []
    for module_name, names in UNAUDITED_CALLS.items():
        module = sys.modules.get(module_name)
        for name in names:
            if module is not None and name in vars(module):
                delattr(module, name)
                removed.append(f"{module_name}.{name}")
    return removed


def _reachable(modules: Iterable[types.ModuleType]) -> list[Any]:
    """The modules, their public values, and for classes their bases and their own attributes."""
    found: list[Any] = []
    for module in modules:
        found.append(module)
        for value in list(vars(module).values()):
            found.append(value)
            if isinstance(value, type):
                for cls in value.__mro__:
                    found.append(cls)
                    found.extend(vars(cls).values())
    return found


def shared_objects(modules: Iterable[types.ModuleType], extra: Iterable[Any] = ()) -> tuple[frozenset[int], list[Any]]:
    """Ids of what node code reaches without making it, and the objects (kept alive so ids stay theirs)."""
    objects = _reachable(modules) + list(extra)
    return frozenset(id(o) for o in objects), objects


def freeze_shared_classes(modules: Iterable[types.ModuleType]) -> list[str]:
    """Mark every Python class reachable from `modules` immutable; returns the names it could not."""
    classes = {id(c): c for c in _reachable(modules) if isinstance(c, type)}
    missed: list[str] = []
    for cls in classes.values():
        if cls.__flags__ & _IMMUTABLE_TYPE or not cls.__flags__ & _HEAP_TYPE:
            continue  # built in (static) or already immutable
        if not _set_immutable(cls):
            missed.append(cls.__qualname__)
    return missed


def _set_immutable(cls: type) -> bool:
    """Set Py_TPFLAGS_IMMUTABLETYPE in the type's tp_flags, found by matching `__flags__`."""
    if sys.implementation.name != "cpython" or sys.version_info < (3, 10):
        return False
    import ctypes

    # tp_flags follows 21 pointer-sized fields of PyTypeObject (ob_refcnt ... tp_as_buffer).
    offset = 21 * ctypes.sizeof(ctypes.c_void_p)
    cell = ctypes.c_ulong.from_address(id(cls) + offset)
    if cell.value != cls.__flags__:
        return False
    cell.value = cls.__flags__ | _IMMUTABLE_TYPE
    return bool(cls.__flags__ & _IMMUTABLE_TYPE)
