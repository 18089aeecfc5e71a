"""The worker's runtime guards, installed before node code runs.

- `audit_hook`: an allow-list of audit events (layer 3). Node code needs to
  compile and execute code and nothing more; every other audited operation
  (files, sockets, processes, signals, ctypes, new imports, frames, gc and
  tracing hooks, rlimits) is refused, except to the worker's own calls made
  through `HookState.own` (`run()` reading its caller's line, the CPU
  backstop). The hook binds everything it reads when it is made: node code
  that rewrites this module, `sys.modules` or builtins changes nothing it
  decides. Imports are judged against the modules loaded when the hook was
  installed, a frozen set.
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
        "time.sleep",
        "sys.excepthook", "sys.unraisablehook",  # the interpreter reporting, not node code acting
        "pickle.find_class",  # only the snapshot loader's allow-list answers it
    }
)
ATTRIBUTE_CHANGES: frozenset[str] = frozenset({"object.__setattr__", "object.__delattr__"})
# Allowed only to the worker's own calls: run() reading which line of the node called it
# (frames), its CPU backstop (setrlimit). A frame leads to the worker, so never to node code.
OWN_CALL_EVENTS: frozenset[str] = frozenset({"sys._getframe", "object.__getattr__", "resource.setrlimit"})
_IMMUTABLE_TYPE = 1 << 8  # Py_TPFLAGS_IMMUTABLETYPE (CPython 3.10+)
_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE


class HookState:
    """The worker's handle on the hook: `own(call, *args)` makes a call node code may not make.

    Until a hook is installed it just calls; `audit_hook` replaces it with one
    that lets that call's events through. Node code must never reach this
    object (the helpers lead nowhere, and the worker's signal handlers, which
    hold it, cannot be read back: see UNAUDITED_CALLS).
    """

    def own(self, call: Callable[..., Any], *args: Any) -> Any:
        return call(*args)


def audit_hook(state: HookState, shared: frozenset[int]) -> Callable[[str, tuple[Any, ...]], None]:
    """The hook, which uses only what it binds here: node code may rewrite this module, `sys.modules`, builtins.

    Every name the hook reads is a local of this call (a frozen set, a
    builtin bound now) or the flag `own` toggles; nothing is looked up in a
    module at call time.
    """
    shared = frozenset(shared)  # fixed now, like everything below: node code may rewrite sys.modules later
    allowed = frozenset(ALLOWED_EVENTS)
    attribute_changes = frozenset(ATTRIBUTE_CHANGES)
    own_call_events = frozenset(OWN_CALL_EVENTS)
    refuse, identity, exact_type, text, size = PermissionError, id, type, str, len
    collector_off, collector_on, collector_enabled = _collector_switches()
    loaded = frozenset(sys.modules)  # after the switches: `gc` stays out of it
    own_call = False

    def attribute_name(args: tuple[Any, ...]) -> str:
        """`args[1]` when it is a plain str (an attribute's name): never node code's `__str__`."""
        value = args[1] if size(args) > 1 else "?"
        return value if exact_type(value) is text else "?"

    def own(call: Callable[..., Any], *args: Any) -> Any:
        # No collection while the gate is open: a finalizer of node code's garbage would run inside it.
        nonlocal own_call
        collecting = collector_enabled()
        collector_off()
        was, own_call = own_call, True
        try:
            return call(*args)
        finally:
            own_call = was
            if collecting:
                collector_on()

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event in allowed:
            return
        if event == "import":
            name = args[0] if args else "?"
            if exact_type(name) is not text:
                raise refuse("forbidden: import")
            if name in loaded and not (size(args) > 1 and args[1]):  # a file to load is a new import
                return
            raise refuse(f"forbidden: import {name}")
        if event in attribute_changes:
            if args and identity(args[0]) not in shared:
                return  # an object node code made (its class, its function)
            raise refuse(f"forbidden: changing .{attribute_name(args)} of a shared object")
        if event in own_call_events and own_call:
            return
        if event == "object.__getattr__":  # frames, code, tracebacks, generators' internals
            raise refuse(f"forbidden: attribute .{attribute_name(args)}")
        raise refuse(f"forbidden: {event}")

    state.own = own  # type: ignore[method-assign]  # the instance's own, bound to this hook
    return hook


def _collector_switches() -> tuple[Callable[[], None], Callable[[], None], Callable[[], bool]]:
    """`gc.disable`, `gc.enable`, `gc.isenabled`, without leaving `gc` importable when it was not loaded.

    Node code must not import `gc` (`gc.set_debug(gc.DEBUG_SAVEALL)` would keep
    the worker's garbage frames for it in `gc.garbage`).
    """
    loaded_before = "gc" in sys.modules
    import gc

    if not loaded_before:
        del sys.modules["gc"]
    return gc.disable, gc.enable, gc.isenabled


# Calls without an audit event (CPython 3.11) that create files, processes,
# threads or descriptors onto other processes, or read the worker's signal handlers.
UNAUDITED_CALLS: dict[str, tuple[str, ...]] = {
    "os": ("mknod", "mkfifo", "pidfd_open", "memfd_create", "openpty", "eventfd", "splice",
           "copy_file_range", "sendfile", "register_at_fork", "setns", "unshare"),
    "posix": ("mknod", "mkfifo", "pidfd_open", "memfd_create", "openpty", "eventfd", "splice",
              "copy_file_range", "sendfile", "register_at_fork", "setns", "unshare"),
    # getsignal and signal also hand back the worker's own handlers, which hold its state.
    "signal": ("pidfd_send_signal", "setitimer", "alarm", "getsignal", "signal"),
    "_signal": ("pidfd_send_signal", "setitimer", "alarm", "getsignal", "signal"),
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
