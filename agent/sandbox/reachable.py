"""What node code can reach in the sandbox worker: the allowed modules (trimmed, read-only), the builtins table, plain data.

Kept apart from the worker's request loop so that the whole surface node code
sees is in one place. Everything here is imported by the worker before the
audit hook is installed (the hook refuses imports once node code can run).
"""

from __future__ import annotations

import builtins
import sys
import types
from typing import Any, Callable

# Imported now so that no allowed module imports one lazily later (the audit
# hook refuses imports once node code can run).
import bisect  # noqa: F401
import collections  # noqa: F401
import functools  # noqa: F401
import heapq  # noqa: F401
import itertools  # noqa: F401
import json  # noqa: F401
import math  # noqa: F401
import random  # noqa: F401
import re  # noqa: F401
import string  # noqa: F401
import unicodedata  # noqa: F401 - compiling a non-ASCII identifier (`café = 1`) imports it

from agent.sandbox.checks import ALLOWED_BUILTINS, MODULE_EXCLUDED, MODULE_EXPORTS, field_refusal


class ReadOnlyModule(types.ModuleType):
    """A module whose names node code cannot rebind (`re.findall = ...` would poison later nodes)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if "__name__" in self.__dict__ and name != "__name__":
            raise AttributeError(f"cannot change the sandboxed module {self.__name__[10:]!r}")
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot change the sandboxed module {self.__name__[10:]!r}")


def trimmed_module(name: str) -> types.ModuleType:
    """A stand-in for an allowed module: its public names, without submodules.

    The name is not the real one, so `from json import decoder` cannot fall
    back to `sys.modules["json.decoder"]` (whose `re.enum.sys` leads out).
    """
    real = sys.modules.get(name) or __import__(name)
    proxy = ReadOnlyModule(f"sandboxed.{name}")
    exports = MODULE_EXPORTS.get(name)
    excluded = MODULE_EXCLUDED.get(name, frozenset())
    for attr in dir(real):
        if attr.startswith("_") or attr in excluded or (exports is not None and attr not in exports):
            continue
        value = getattr(real, attr)  # dynamic: every public name the real module lists
        if isinstance(value, types.ModuleType):
            continue
        proxy.__dict__[attr] = value
    if name == "collections":
        proxy.__dict__["namedtuple"] = checked_namedtuple(collections.namedtuple)
    return proxy


def checked_namedtuple(real: Callable[..., type]) -> Callable[..., type]:
    """`collections.namedtuple` whose field names pass the attribute rules, however the code built them.

    A field is an attribute of the class and fills its `__match_args__`; a
    field named `format` mixed with another class would hand node code that
    class's `format` through `case C(f)`. The module is given, so that
    `namedtuple` never reads its caller's frame.
    """

    def namedtuple(
        typename: str, field_names: Any, *, rename: bool = False, defaults: Any = None, module: Any = None
    ) -> type:
        made = real(typename, field_names, rename=rename, defaults=defaults,
                    module="__main__" if module is None else module)
        for field in made._fields:  # type: ignore[attr-defined]  # every named tuple has _fields
            reason = field_refusal(field)
            if reason:
                raise ValueError(f"{reason} (a named tuple field is an attribute of its class)")
        return made

    namedtuple.__doc__ = real.__doc__
    return namedtuple


def restricted_builtins(print_fn: Callable[..., None], import_fn: Callable[..., Any]) -> dict[str, Any]:
    """The `__builtins__` of untrusted node code: the allowed names, its own `print` and `__import__`."""
    available = vars(builtins)
    table = {n: available[n] for n in ALLOWED_BUILTINS if n in available}
    table["print"] = print_fn
    table["__import__"] = import_fn
    table["__build_class__"] = builtins.__build_class__
    table["__name__"] = "__node__"
    return table


def give_back_exit() -> None:
    """A worker started with -S has no `exit`/`quit` (`site` adds them): trusted code gets them back."""
    if "exit" in vars(builtins):
        return

    def _exit(code: Any = None) -> None:
        raise SystemExit(code)

    vars(builtins).update(exit=_exit, quit=_exit)


def plain(value: Any, depth: int = 0) -> Any:
    """A copy of `value` made of exact built-in types only: what node code hands the parent."""
    if depth > 50:
        raise ValueError("nested too deeply")
    kind = type(value)
    if value is None or kind in (bool, int, float, str):
        return value
    if kind in (list, tuple):
        return [plain(v, depth + 1) for v in value]
    if kind is dict:
        copied = {}
        for key, item in value.items():
            if type(key) is not str:
                raise TypeError(f"a key of type {type(key).__name__}")
            copied[key] = plain(item, depth + 1)
        return copied
    raise TypeError(f"a value of type {kind.__name__}")
