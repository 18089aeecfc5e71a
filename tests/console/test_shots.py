"""A mismatched screenshot says which screen rows differ (tests/console/shots.py, snapshot_diff.py)."""

from __future__ import annotations

from pathlib import Path

from .snapshot_diff import row_diff

ACCEPTED = Path(__file__).parent / "__snapshots__" / "test_models_snapshots" / "test_review_proposal[proposal].svg"


def changed_rows(diff: str) -> list[str]:
    return [line.strip() for line in diff.splitlines() if line[:1] in ("-", "+") and line[:3] not in ("---", "+++")]


def test_a_changed_row_is_named_with_its_text_before_and_after() -> None:
    accepted = ACCEPTED.read_text()
    now = accepted.replace("reviewing", "revisiting", 1)
    assert now != accepted
    rows = changed_rows(row_diff(accepted, now))
    assert len(rows) == 2 and rows[0].startswith("-") and rows[1].startswith("+"), rows
    assert "reviewing" in rows[0] and "revisiting" in rows[1]


def test_a_colour_only_change_says_so() -> None:
    accepted = ACCEPTED.read_text()
    now = accepted.replace('class="terminal-r1"', 'class="terminal-r2"', 1)
    assert now != accepted
    assert row_diff(accepted, now).startswith("the text is the same; the styles differ:")
