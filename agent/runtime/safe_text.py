"""Text from a model or an environment, made safe to show on a terminal and to store.

Such text is never trusted: it may hold terminal escapes (`\\x1b]52;...` writes
the clipboard, `\\r\\x1b[2K` overwrites a line) or a lone surrogate (`\\ud800`),
which no UTF-8 stream can encode. `for_terminal` escapes what a terminal would
act on; `json_line` stores any text losslessly as one JSON line. Every printer
and writer uses these two, so there is one rule, not copies.
"""

from __future__ import annotations

import json
from typing import Any

# C0 controls (newline handled by the caller's choice), DEL, C1 controls, and lone surrogates.
_CONTROLS = [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)]
_ESCAPES: dict[int, str] = {code: f"\\x{code:02x}" for code in _CONTROLS}
_ESCAPES.update({code: f"\\u{code:04x}" for code in range(0xD800, 0xE000)})
_ONE_LINE = dict(_ESCAPES)
_KEEP_NEWLINES = {code: text for code, text in _ESCAPES.items() if code != 0x0A}


def for_terminal(text: str, *, newlines: bool = True) -> str:
    """`text` with every control character and lone surrogate shown as a visible escape (`\\x1b`, `\\ud800`).

    Newlines stay when `newlines` (a multi-line message), else they are escaped too.
    """
    return str(text).translate(_KEEP_NEWLINES if newlines else _ONE_LINE)


def json_line(record: Any) -> str:
    """`record` as one JSON line that always encodes as UTF-8 and reads back identically.

    Readable UTF-8 when the text allows it; a lone surrogate switches the line
    to ASCII escapes (`\\ud800`), which JSON round-trips exactly.
    """
    line = json.dumps(record, ensure_ascii=False)
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        line = json.dumps(record, ensure_ascii=True)
    return line
