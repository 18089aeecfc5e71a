"""Reading a saved record (a journal header, ...) into its frozen dataclass, checked by the annotations.

A record on disk is data from anywhere: every field is checked against the type its dataclass
declares before anything reads it, so a reader never restates the field list, and a value of the
wrong kind is one line naming the field (`RecordFieldError`), not a KeyError or a wrong default
somewhere below. A field that is absent, or null where the type has no None, takes the dataclass
default (what a record written by an earlier version lacked); a nested dataclass is read the
same way, its unknown keys (a newer version's) left out.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping as AbcMapping
from typing import Any, Callable, Mapping, Union

Upgrade = Callable[[dict[str, Any]], dict[str, Any]]
"""One named step of a format: a record as an older version wrote it, as the next version writes it."""


class UnknownVersion(ValueError):
    """A record of a version neither current nor in its format's upgrade table (a newer recode-tui's)."""

    def __init__(self, version: Any) -> None:
        super().__init__(f"is version {version!r}")
        self.version = version


def upgraded(data: Mapping[str, Any], upgrades: Mapping[Any, Upgrade], current: str,
             key: str = "version") -> dict[str, Any]:
    """`data` brought to the `current` version of its format by the format's one table of named steps
    (`{"recode.journal.v1": journal_v1_to_v2}`), applied in turn before the typed read; a record
    without `key` is looked up as None. UnknownVersion for a version the table does not know."""
    out, seen = dict(data), set()
    while out.get(key) != current:
        version = out.get(key)
        step = upgrades.get(version) if isinstance(version, (str, type(None))) else None
        if step is None or version in seen:
            raise UnknownVersion(version)
        seen.add(version)
        out = step(out)
    return out


class RecordFieldError(ValueError):
    """A field holds a value of the wrong kind: `field` is its dotted name, `value` what it holds, `kind` what
    it must be (the caller words the one-line error)."""

    def __init__(self, field: str, value: Any, kind: str) -> None:
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
        super().__init__(f"`{field}` is {shown}, not {kind}")
        self.field, self.value, self.kind = field, value, kind


def read_fields(cls: type, data: Mapping[str, Any], skip: frozenset[str] = frozenset(), prefix: str = "", *,
                strict_none: bool = False, build: bool = True) -> dict[str, Any]:
    """The values of `cls`'s fields in `data`, each checked against its annotation (fields in `skip` are the
    caller's); the keyword arguments to build `cls` with. Absent: the field's default, left out so the
    dataclass supplies it; null where the type has no None: the same, or refused with `strict_none`.
    `build` False checks nested records without building them (a caller that builds them its own way)."""
    hints = typing.get_type_hints(cls)
    out: dict[str, Any] = {}
    for spec in dataclasses.fields(cls):
        if spec.name in skip or spec.name not in data:
            continue
        value, wanted = data[spec.name], hints[spec.name]
        if value is None:
            if _allows_none(wanted):
                out[spec.name] = None
            elif strict_none:
                raise RecordFieldError(prefix + spec.name, value, _kind(wanted))
            continue
        out[spec.name] = _read(wanted, value, prefix + spec.name, strict_none, build)
    return out


def read_record(cls: type, data: Mapping[str, Any], prefix: str = "") -> Any:
    """`cls` built from `data` (see `read_fields`); unknown keys are left out."""
    return cls(**read_fields(cls, data, prefix=prefix))


def check_record(cls: type, data: Mapping[str, Any], *, strict_none: bool = False) -> None:
    """RecordFieldError for the first field of `data` (nested records and lists of records included) that
    does not hold what `cls` declares; nothing is built."""
    read_fields(cls, data, strict_none=strict_none, build=False)


def _allows_none(wanted: Any) -> bool:
    return _is_union(wanted) and type(None) in typing.get_args(wanted)


def _is_union(wanted: Any) -> bool:
    return typing.get_origin(wanted) is Union or isinstance(wanted, types.UnionType)


def _read(wanted: Any, value: Any, name: str, strict_none: bool = False, build: bool = True) -> Any:
    """`value` as `wanted` says, or RecordFieldError."""
    if _is_union(wanted):
        choices = [arg for arg in typing.get_args(wanted) if arg is not type(None)]
        if len(choices) == 1:  # `X | None`: what is wrong inside X is the error
            return _read(choices[0], value, name, strict_none, build)
        for choice in choices:
            try:
                return _read(choice, value, name, strict_none, build)
            except RecordFieldError:
                continue
        raise RecordFieldError(name, value, " or ".join(_kind(choice) for choice in choices))
    if dataclasses.is_dataclass(wanted) and isinstance(wanted, type):
        if not isinstance(value, dict):
            raise RecordFieldError(name, value, "an object")
        fields = read_fields(wanted, value, prefix=name + ".", strict_none=strict_none, build=build)
        return wanted(**fields) if build else fields
    origin = typing.get_origin(wanted) or wanted
    if origin is Any:
        return value
    if origin is bool:
        ok = isinstance(value, bool)
    elif origin is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif origin is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        value = float(value) if ok else value
    elif origin is str:
        ok = isinstance(value, str)
    elif origin in (dict, AbcMapping):
        ok = isinstance(value, dict)
        value = dict(value) if ok else value
    elif origin in (list, tuple, frozenset):
        ok = isinstance(value, list)
        if ok:
            item = (typing.get_args(wanted) or (Any,))[0]
            if item is not Any:  # each item checked, named by its index (a set of texts holds no object)
                value = [_read(item, one, f"{name}[{index}]", strict_none, build) for index, one in enumerate(value)]
            value = origin(value)
    else:
        raise TypeError(f"{name}: a record field of type {wanted!r} cannot be read")
    if not ok:
        raise RecordFieldError(name, value, _kind(wanted))
    return value


def _kind(wanted: Any) -> str:
    """How a type is named in an error: the words a person editing the file understands."""
    origin = typing.get_origin(wanted) or wanted
    if dataclasses.is_dataclass(origin) or origin in (dict, AbcMapping):
        return "an object"
    return {bool: "true or false", int: "a whole number", float: "a number", str: "text",
            list: "a list", tuple: "a list", frozenset: "a list"}.get(origin, str(wanted))


def written(record: Any) -> dict[str, Any]:
    """A record's fields as a file holds them (`dataclasses.asdict`, every field), a set as its sorted list:
    what `read_record` reads back into the same record."""
    return _plain(dataclasses.asdict(record))


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, (set, frozenset)):
        return sorted(_plain(item) for item in value)
    return value
