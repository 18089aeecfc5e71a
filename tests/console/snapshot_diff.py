"""The rows of a failed SVG snapshot that differ from the accepted one, as text.

pytest-textual-snapshot writes an HTML report beside the run; a CI log has only the test output.
"""

from __future__ import annotations

import difflib
import html
import pickle
import re

ROW = re.compile(r'<text class="([^"]*)" x="([\d.]+)" y="[\d.]+" textLength="[\d.]+" '
                 r'clip-path="url\(#[^)]*-line-(\d+)\)">([^<]*)</text>')


def screen_rows(svg: str) -> list[str]:
    """Each screen row's text, in column order."""
    rows: dict[int, list[tuple[float, str]]] = {}
    for style, x, line, text in ROW.findall(svg):
        rows.setdefault(int(line), []).append((float(x), html.unescape(text).replace("\xa0", " ")))
    return ["".join(t for _, t in sorted(rows[k])) for k in sorted(rows)]


def styled_rows(svg: str) -> list[str]:
    """Each row as its runs of text with their style classes: what a colour-only change changes."""
    rows: dict[int, list[tuple[float, str]]] = {}
    for style, x, line, text in ROW.findall(svg):
        rows.setdefault(int(line), []).append((float(x), f"[{style}]{html.unescape(text)}"))
    return ["".join(t for _, t in sorted(rows[k])) for k in sorted(rows)]


def describe_mismatch(item) -> str:
    try:
        from pytest_textual_snapshot import node_to_report_path

        # pytest-textual-snapshot's own report of this test run, in pytest's private temporary folder
        data = pickle.loads(node_to_report_path(item).read_bytes())
        expected, actual = data[1], data[2]
    except Exception as exc:  # noqa: BLE001 - a diagnosis must never hide the failure itself
        return f"(no row diff: {type(exc).__name__}: {exc})"
    return row_diff(expected, actual)


def row_diff(expected: str, actual: str) -> str:
    """The screen rows that differ, as text; the styles' runs when only a colour changed."""
    diff = list(difflib.unified_diff(screen_rows(expected), screen_rows(actual), "accepted", "now", lineterm="", n=1))
    if not diff:
        diff = ["the text is the same; the styles differ:"]
        diff += list(difflib.unified_diff(styled_rows(expected), styled_rows(actual), "accepted", "now", lineterm="",
                                          n=0))[:40]
    return "\n".join(diff)
