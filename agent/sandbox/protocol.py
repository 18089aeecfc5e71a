"""Framing between the engine and the sandbox worker.

Every message is a 4-byte big-endian length followed by the payload.

- engine -> worker: a pickle of plain data (dicts, lists, strings, bytes).
  Only the worker unpickles, and only what the engine sent it.
- worker -> engine: UTF-8 JSON. The engine never unpickles anything that
  came from the worker; namespace snapshots travel as base64 text inside the
  JSON and are handed back to a worker unopened.
"""

from __future__ import annotations

import json
import os
import pickle
import struct
from typing import Any

HEADER = struct.Struct("!I")
MAX_FRAME = 512 * 1024 * 1024  # a larger frame from the worker is treated as a crash


def encode_request(message: dict[str, Any]) -> bytes:
    payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(len(payload)) + payload


def encode_reply(message: dict[str, Any]) -> bytes:
    payload = json.dumps(message, ensure_ascii=True, separators=(",", ":")).encode("ascii")
    return HEADER.pack(len(payload)) + payload


def decode_reply(payload: bytes) -> dict[str, Any]:
    message = json.loads(payload.decode("ascii"))
    if not isinstance(message, dict) or not isinstance(message.get("t"), str):
        raise ValueError("malformed message from the worker")
    return message


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
