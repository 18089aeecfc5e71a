"""Object graphs of named plain classes as JSON data: a cache format that cannot run code when read.

A pickle names any callable and calls it while it loads, so whoever can write the
file runs code in the process that reads it. This format holds only JSON values
and instances of the classes the caller lists: reading creates each instance with
`object.__new__` and sets its attributes, and never calls a method of the class,
a constructor, `__setstate__` or anything the file names. A file that names
another class, or does not have this shape, is refused with `ObjectDataError`.

Shared objects and cycles stay shared, and objects are filled depth-first in
the order they were written, the order `pickle` uses, so a value used as a dict
key or set member is complete before it is hashed.
"""

from __future__ import annotations

import gc
import json
from collections import defaultdict
from typing import Any

FORMAT = "recode-tui.object-data.v1"
# The only `default_factory` a defaultdict may have: plain containers.
_FACTORIES: dict[str, type] = {"list": list, "set": set, "dict": dict, "int": int}
_PLAIN = (str, int, float, bool, type(None))


class ObjectDataError(ValueError):
    """The data is not an object graph this reader accepts (another class, another shape)."""


def class_name(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def dumps(value: Any, allowed: dict[str, type]) -> str:
    """`value` as JSON text; ObjectDataError if it holds an instance of a class not in `allowed`."""
    return json.dumps({"format": FORMAT, "root": _Writer(allowed).value(value)}, separators=(",", ":"))


def loads(text: str | bytes, allowed: dict[str, type]) -> Any:
    """The object graph `dumps` wrote; ObjectDataError for anything else."""
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ObjectDataError(f"not JSON: {exc}") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT or "root" not in document:
        raise ObjectDataError(f"not a {FORMAT} document")
    collecting = gc.isenabled()
    gc.disable()  # thousands of new objects, none garbage yet: a collection pass would only cost time
    try:
        return _Reader(allowed).value(document["root"])
    except ObjectDataError:
        raise
    except (TypeError, ValueError, IndexError, KeyError, AttributeError, RecursionError) as exc:
        raise ObjectDataError(f"damaged: {type(exc).__name__}: {exc}") from None
    finally:
        if collecting:
            gc.enable()


def _slots(cls: type) -> dict[str, Any]:
    """The class's `__slots__` attributes by name, each with the descriptor that reads and sets it."""
    found: dict[str, Any] = {}
    for klass in cls.__mro__:
        slots = klass.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in ("__dict__", "__weakref__") and name not in found:
                found[name] = klass.__dict__[name]
    return found


class _Writer:
    """Depth-first, numbering every container and object at its first appearance."""

    def __init__(self, allowed: dict[str, type]) -> None:
        self.allowed = allowed
        self.numbers: dict[int, int] = {}
        self.keep: list[Any] = []  # the objects numbered, alive so their ids stay theirs
        self.open_tuples: set[int] = set()

    def _number(self, value: Any) -> None:
        self.numbers[id(value)] = len(self.numbers)
        self.keep.append(value)

    def value(self, value: Any) -> Any:
        kind = type(value)
        if kind in _PLAIN:
            return value
        seen = self.numbers.get(id(value))
        if seen is not None:
            if id(value) in self.open_tuples:
                raise ObjectDataError("a tuple that contains itself")
            return ["r", seen]
        self._number(value)
        if kind is list:
            return ["l", [self.value(item) for item in value]]
        if kind is tuple:
            self.open_tuples.add(id(value))
            items = [self.value(item) for item in value]
            self.open_tuples.discard(id(value))
            return ["t", items]
        if kind is dict:
            if all(type(key) is str for key in value):
                return ["S", {key: self.value(item) for key, item in value.items()}]
            return ["d", self._pairs(value)]
        if kind is defaultdict:
            factory = value.default_factory
            name = next((key for key, known in _FACTORIES.items() if known is factory), None)
            if factory is not None and name is None:
                raise ObjectDataError(f"a defaultdict of {factory!r}")
            return ["D", name, self._pairs(value)]
        if kind is set:
            return ["s", [self.value(item) for item in value]]
        if kind is frozenset:
            return ["f", [self.value(item) for item in value]]
        name = class_name(kind)
        if self.allowed.get(name) is not kind:
            raise ObjectDataError(f"{name} is not one of the classes this data may hold")
        try:
            state = vars(value)
        except TypeError:  # slots only
            state = {}
        slots: dict[str, Any] = {}
        for slot, descriptor in _slots(kind).items():
            try:
                slots[slot] = descriptor.__get__(value, kind)
            except AttributeError:  # never set
                continue
        if not all(type(key) is str for key in state):
            raise ObjectDataError(f"{name}: an attribute name that is not text")
        return ["o", name, {key: self.value(item) for key, item in state.items()},
                {slot: self.value(item) for slot, item in slots.items()}]

    def _pairs(self, mapping: dict[Any, Any]) -> list[Any]:
        flat: list[Any] = []
        for key, item in mapping.items():
            flat += [self.value(key), self.value(item)]
        return flat


class _Reader:
    """The inverse of `_Writer`: the same numbering, so references find what they name."""

    def __init__(self, allowed: dict[str, type]) -> None:
        self.allowed = allowed
        self.made: list[Any] = []

    def value(self, node: Any) -> Any:
        if type(node) is not list:
            if type(node) in _PLAIN:
                return node
            raise ObjectDataError(f"unexpected {type(node).__name__}")
        tag = node[0]
        if tag == "r":
            return self.made[node[1]]
        if tag == "o":
            return self._instance(node[1], node[2], node[3])
        if tag == "S":
            out: Any = {}
            self.made.append(out)
            value = self.value
            for key, item in node[1].items():
                out[key] = item if type(item) is str else value(item)
            return out
        if tag == "l":
            out = []
            self.made.append(out)
            value = self.value
            out.extend(item if type(item) is str else value(item) for item in node[1])
            return out
        if tag == "t":
            slot = len(self.made)
            self.made.append(None)
            value = self.value
            out = tuple(item if type(item) is str else value(item) for item in node[1])
            self.made[slot] = out
            return out
        if tag == "d":
            out = {}
            self.made.append(out)
            self._fill(out, node[1])
            return out
        if tag == "D":
            factory = _FACTORIES[node[1]] if node[1] is not None else None
            out = defaultdict(factory)
            self.made.append(out)
            self._fill(out, node[2])
            return out
        if tag == "s":
            out = set()
            self.made.append(out)
            out.update(self.value(item) for item in node[1])
            return out
        if tag == "f":
            slot = len(self.made)
            self.made.append(None)
            out = frozenset(self.value(item) for item in node[1])
            self.made[slot] = out
            return out
        raise ObjectDataError(f"unknown tag {tag!r}")

    def _fill(self, mapping: dict[Any, Any], flat: list[Any]) -> None:
        for at in range(0, len(flat), 2):
            key = self.value(flat[at])
            mapping[key] = self.value(flat[at + 1])

    def _instance(self, name: str, state: dict[str, Any], slots: dict[str, Any]) -> Any:
        cls = self.allowed.get(name) if isinstance(name, str) else None
        if cls is None:
            raise ObjectDataError(f"{name!r} is not one of the classes this data may hold")
        if not isinstance(state, dict) or not isinstance(slots, dict):
            raise ObjectDataError(f"{name}: its attributes and slots must be mappings")
        made: Any = object.__new__(cls)
        self.made.append(made)
        if state:  # JSON object keys are always text
            attributes = object.__getattribute__(made, "__dict__")
            value = self.value
            for key, item in state.items():
                attributes[key] = item if type(item) is str else value(item)
        if slots:
            known = _slots(cls)
            for slot, item in slots.items():
                if slot not in known:
                    raise ObjectDataError(f"{name} has no slot {slot!r}")
                known[slot].__set__(made, self.value(item))
        return made
