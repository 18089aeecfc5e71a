"""Framing between the parent and the sandbox worker.

Every message is a 4-byte big-endian length followed by the payload.

- parent -> worker: a pickle of plain data (dicts, lists, strings, bytes).
  Only the worker unpickles, and only what the parent sent it.
- worker -> parent: UTF-8 JSON, checked field by field (`decode_reply`): a
  frame of the wrong shape is a broken worker, never an exception in the
  parent. The parent never unpickles anything that came from the worker;
  namespace snapshots travel as base64 text inside the JSON and are handed
  back to a fresh worker, which opens them with `load_plain` (built-in
  containers and scalars only: a snapshot is attacker data).

The worker writes its replies with the C encoder bound here at import, before
node code runs: node code can reach `json.JSONEncoder` (a shared, mutable
class) but not this.
"""

from __future__ import annotations

import collections
import inspect
import io
import os
import pickle
import struct
from typing import Any, Callable

from _json import encode_basestring_ascii as _encode_string
from _json import make_encoder as _make_encoder

HEADER = struct.Struct("!I")
# A snapshot is at most MAX_SNAPSHOT_BYTES of pickles, base64 in the frame (4/3: 171 MiB) plus the
# variables' summaries; the only frames this large are replies that carry a snapshot.
MAX_SNAPSHOT_BYTES = 128 * 1024 * 1024
MAX_FRAME = 200 * 1024 * 1024  # a larger frame from the worker is treated as a crash
# Frames that carry no snapshot (a running node's `out`, `action`, `call`, `ran`; `ready`) are smaller:
# a helper call's plain-data arguments, plus the printed output (escaped, at most 12 bytes a character).
MAX_CALL_BYTES = 16 * 1024 * 1024
MAX_READY_FRAME = 64 * 1024
# The key under which the parent notes a frame's size in the message it decoded (the worker's own is replaced).
FRAME_BYTES = "#bytes"
JSON_BYTES_PER_CHAR = 12


def encode_request(message: dict[str, Any]) -> bytes:
    payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(len(payload)) + payload


def _not_plain(value: Any) -> Any:
    raise TypeError(f"a reply holds a {type(value).__name__}, not plain data")


def _reply_encoder() -> Callable[[Any, int], Any]:
    # markers, default, encoder, indent, key separator, item separator, sort_keys, skipkeys, allow_nan
    return _make_encoder({}, _not_plain, _encode_string, None, ":", ",", False, False, True)


_ENCODE_REPLY = _reply_encoder()


def encode_reply(message: dict[str, Any]) -> bytes:
    payload = "".join(_ENCODE_REPLY(message, 0)).encode("ascii")
    return HEADER.pack(len(payload)) + payload


# -- what the parent accepts from the worker -------------------------------------

_STR, _INT, _BOOL = "str", "int", "bool"
_CHANGES, _ITEMS, _STRS, _ANY_LIST, _DICT, _SNAPSHOT = "changes", "items", "strs", "list", "dict", "snapshot"

# Per message type: its fields and their kinds. A field may be absent; a present one must fit.
_REPLY_FIELDS: dict[str, dict[str, str]] = {
    "ready": {"pid": _INT, "isolation": _STRS},
    "out": {"out": _STR},
    "ran": {"out": _STR},
    "action": {"action": _STR, "line": _INT, "out": _STR},
    "call": {"name": _STR, "args": _ANY_LIST, "kwargs": _DICT, "out": _STR},
    "outcome": {"status": _STR, "error": _STR, "stub_name": _STR, "out": _STR, "changes": _CHANGES,
                "snapshot": _SNAPSHOT},
    "done": {"changes": _CHANGES, "snapshot": _SNAPSHOT, "error": _STR},
    "restored": {"items": _ITEMS, "lost": _STRS},
    "vars": {"items": _ITEMS},
    "text": {"text": _STR},
    "lines": {"lines": _STRS},
    "bool": {"value": _BOOL},
    "value": {"type": _STR, "summary": _STR},
    "stmt": {"value": _STR, "changes": _CHANGES, "snapshot": _SNAPSHOT},
    "fail": {"error": _STR, "status": _STR},
    "pong": {},
}


# Fields a message of that type must carry (an `action` without its action is not a request).
_REQUIRED: dict[str, tuple[str, ...]] = {
    "ready": ("isolation",),
    "action": ("action",),
    "call": ("name",),
    "outcome": ("status",),
    "restored": ("items",),
}


def _strs(value: Any, length: int | None = None) -> bool:
    return (
        isinstance(value, list)
        and (length is None or len(value) == length)
        and all(isinstance(v, str) for v in value)
    )


def _fits(kind: str, value: Any) -> bool:
    if kind == _STR:
        return isinstance(value, str)
    if kind == _INT:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == _BOOL:
        return isinstance(value, bool)
    if kind == _STRS:
        return _strs(value)
    if kind == _ANY_LIST:
        return isinstance(value, list)
    if kind == _DICT:
        return isinstance(value, dict)
    if kind == _CHANGES:
        return isinstance(value, list) and all(_strs(v, 4) for v in value)
    if kind == _ITEMS:
        return isinstance(value, list) and all(_strs(v, 3) for v in value)
    if kind == _SNAPSHOT:
        return value is None or _fits_snapshot(value)
    return False


def _fits_snapshot(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    blobs = value.get("blobs", {})
    return (
        _strs(value.get("order", []))
        and _strs(value.get("unsaved", []))
        and isinstance(blobs, dict)
        and all(isinstance(v, str) for v in blobs.values())
        and isinstance(value.get("imports", []), list)
        and all(_strs(v, 3) for v in value.get("imports", []))
    )


def decode_reply(payload: bytes) -> dict[str, Any]:
    """A worker's frame as a message of a known type with fields of the right kinds; else ValueError."""
    import json

    try:
        message = json.loads(payload.decode("ascii"))
    except RecursionError:
        raise ValueError("malformed message from the worker (nested too deeply)") from None
    if not isinstance(message, dict) or not isinstance(message.get("t"), str):
        raise ValueError("malformed message from the worker")
    fields = _REPLY_FIELDS.get(message["t"])
    if fields is None:
        raise ValueError(f"unknown message {message['t']!r} from the worker")
    for name, kind in fields.items():
        if name in message and not _fits(kind, message[name]):
            raise ValueError(f"malformed field {name!r} in a {message['t']!r} message from the worker")
    for name in _REQUIRED.get(message["t"], ()):
        if name not in message:
            raise ValueError(f"a {message['t']!r} message from the worker without its {name!r}")
    return message


# The reply each parent request expects (besides "fail"), with the fields it must carry.
REQUEST_REPLIES: dict[str, tuple[str, tuple[str, ...]]] = {
    "set": ("done", ()),
    "bind": ("done", ()),
    "vars": ("vars", ("items",)),
    "full": ("text", ("text",)),
    "lines": ("lines", ("lines",)),
    "cond": ("bool", ("value",)),
    "eval": ("value", ("type", "summary")),
    "stmt": ("stmt", ()),
}


def reply_mismatch(op: str, reply: dict[str, Any]) -> str | None:
    """Why `reply` is not an answer to an `op` request (another type, a missing field), or None."""
    kind, fields = REQUEST_REPLIES[op]
    if reply["t"] == "fail" or (reply["t"] == kind and all(f in reply for f in fields)):
        return None
    return f"worker sent a malformed message ({reply['t']!r} to a {op!r} request)"


async def helper_reply(helpers: dict[str, Callable[..., Any]], message: dict[str, Any]) -> dict[str, Any]:
    """The parent's `reply` to a worker's `call` of an extra helper: its plain-data value, or the error."""
    name = str(message.get("name", ""))
    fn = helpers.get(name)
    try:
        if fn is None:
            raise KeyError(f"no helper {name!r}")
        result = fn(*message.get("args", []), **message.get("kwargs", {}))
        if inspect.isawaitable(result):
            result = await result
        reply = {"op": "reply", "value": result}
        encode_request(reply)  # the result must pickle (plain data)
    except Exception as exc:  # noqa: BLE001 - the failure goes back to the node code
        reply = {"op": "reply", "error": f"{type(exc).__name__}: {exc}"}
    return reply


# -- snapshots: plain data only ------------------------------------------------------

# The only names a snapshot may refer to: containers whose construction from plain
# arguments runs no code of anyone's choosing.
_PLAIN_GLOBALS: dict[tuple[str, str], Any] = {
    ("builtins", "complex"): complex,
    ("builtins", "set"): set,
    ("builtins", "frozenset"): frozenset,
    ("builtins", "bytearray"): bytearray,
    ("builtins", "list"): list,
    ("builtins", "dict"): dict,
    ("builtins", "tuple"): tuple,
    ("builtins", "range"): range,
    ("builtins", "slice"): slice,
    ("collections", "Counter"): collections.Counter,
    ("collections", "OrderedDict"): collections.OrderedDict,
    ("collections", "defaultdict"): collections.defaultdict,
    ("collections", "deque"): collections.deque,
}


class _PlainUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        found = _PLAIN_GLOBALS.get((module, name))
        if found is None:
            raise pickle.UnpicklingError(f"forbidden in a snapshot: {module}.{name}")
        return found

    def persistent_load(self, pid: Any) -> Any:
        raise pickle.UnpicklingError("forbidden in a snapshot: a persistent id")


def load_plain(blob: bytes) -> Any:
    """A snapshot value made only of built-in containers and scalars (and Counter, deque, ...).

    Raises pickle.UnpicklingError for anything that names another class or function.
    """
    return _PlainUnpickler(io.BytesIO(blob)).load()


# -- blocking side, used by the worker -------------------------------------------


def read_exact(fd: int, size: int) -> bytes | None:
    """`size` bytes from `fd`, or None at end of file."""
    chunks: list[bytes] = []
    remaining = size
    while remaining:
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
