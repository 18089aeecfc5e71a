"""Text summaries of namespace values: for the prompt and for viewers.

Pure standard library, because it runs wherever the values live (the agent
thread today, the sandbox worker process for untrusted code). Values are never
rendered whole: a 3 GB string must not cost 3 GB to summarise.
"""

from __future__ import annotations

import reprlib
import types
from dataclasses import dataclass
from typing import Any

PROMPT_VALUE_LIMIT = 1200  # a first observation (~400 chars) and a room's receptacle list fit whole
VIEW_VALUE_LIMIT = 120
SHELL_VALUE_LIMIT = 20_000  # a value shown for a line typed at a stop (`!`): read whole, in a scrolling box
FULL_VALUE_LIMIT = 200_000

_TYPE_SAMPLE = 20  # elements looked at to infer an element type


@dataclass(frozen=True)
class VariableSummary:
    name: str
    type: str
    summary: str


def infer_type(value: Any, _depth: int = 0) -> str:
    """A readable type like `list[str]`, `dict[str, int]`, `tuple[str, int]`."""
    name = type(value).__name__
    if _depth > 2:
        return name
    if isinstance(value, (list, set, frozenset)):
        inner = _union(value, _depth)
        return f"{name}[{inner}]" if inner else name
    if isinstance(value, tuple):
        if 0 < len(value) <= 4:
            return f"tuple[{', '.join(infer_type(v, _depth + 1) for v in value)}]"
        inner = _union(value, _depth)
        return f"tuple[{inner}, ...]" if inner else name
    if isinstance(value, dict):
        if not value:
            return name
        keys = _union(list(value.keys()), _depth)
        vals = _union(list(value.values()), _depth)
        return f"{name}[{keys}, {vals}]"
    return name


def _union(items: Any, depth: int) -> str:
    """The element types; an empty container adds nothing when a filled one of its kind says more.

    `{'a': [], 'b': ['x']}` is `dict[str, list[str]]`, not `dict[str, list | list[str]]`.
    """
    seen: list[str] = []
    for i, item in enumerate(items):
        if i >= _TYPE_SAMPLE:
            break
        t = infer_type(item, depth + 1)
        if t not in seen:
            seen.append(t)
    return " | ".join(t for t in seen if not any(other.startswith(t + "[") for other in seen))


_repr = reprlib.Repr()
_repr.maxstring = 10_000
_repr.maxother = 10_000
_repr.maxlist = _repr.maxtuple = _repr.maxset = _repr.maxfrozenset = _repr.maxdict = 2_000
_repr.maxlevel = 6


def bounded_repr(value: Any, limit: int, for_prompt: bool = False) -> str:
    """repr(value) cut to `limit` characters, with a marker saying how much was cut.

    Strings are shown as their text (the prompt reads better); anything else
    through a bounded repr, so that a huge value is never rendered whole. In a
    prompt the marker also says that only the display is cut: a model that
    cannot see the rest must know the variable still holds it.
    """
    if isinstance(value, str):
        if len(value) <= limit:
            return value
        return f"{value[:limit]}... {_cut_marker(f'{len(value) - limit} more chars', for_prompt)}"
    try:
        text = _repr.repr(value)
    except Exception as exc:  # a user object with a broken __repr__
        text = f"<unprintable {type(value).__name__}: {exc}>"
    sized = isinstance(value, (list, tuple, dict, set, frozenset))
    if len(text) <= limit:
        return text
    if sized:
        if for_prompt:
            return f"{text[:limit]}... {_cut_marker(f'{len(value)} items in all', True)}"
        return f"{text[:limit]}... [cut: {len(value)} items in all]"
    return f"{text[:limit]}... {_cut_marker(f'{len(text) - limit} more chars', for_prompt)}"


def _cut_marker(how_much: str, for_prompt: bool) -> str:
    if for_prompt:
        return f"[display cut here, {how_much}; the variable holds the full value]"
    return f"[cut {how_much}]"


def prompt_line(name: str, value: Any, limit: int = PROMPT_VALUE_LIMIT) -> str:
    """The prompt's variable line: `- name (type): value`, the value whole unless it is long."""
    return f"- {name} ({infer_type(value)}): {bounded_repr(value, limit, for_prompt=True)}"


def shell_value(value: Any) -> str:
    """An expression's value as the `!` line shows it: its lines kept, cut only past SHELL_VALUE_LIMIT."""
    try:
        return bounded_repr(value, SHELL_VALUE_LIMIT)
    except Exception as exc:  # noqa: BLE001 - a str subclass with a broken slice: shown, not raised
        return f"<unprintable {type(value).__name__}: {exc}>"


def summarise(name: str, value: Any, limit: int = VIEW_VALUE_LIMIT) -> VariableSummary:
    return VariableSummary(name, infer_type(value), bounded_repr(value, limit).replace("\n", "\\n"))


def is_kept(name: str, value: Any, helper_names: frozenset[str] | set[str]) -> bool:
    """Whether a name bound by node code is kept in the shared namespace (spec §2)."""
    if name.startswith("_") or name in helper_names:
        return False
    if isinstance(value, (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, type)):
        return False
    return True
