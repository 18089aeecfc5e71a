"""debug.json: a breakpoint that no longer reads is left out by name; the rest come back as saved."""

from __future__ import annotations

from pathlib import Path

from agent.sessions.debug_settings import DebugSettings, read_debug_settings, write_debug_settings
from agent.runtime.breakpoints import parse_breakpoint


def test_round_trip_keeps_order_flags_and_conditions(tmp_path: Path) -> None:
    first = parse_breakpoint("stub find_.* if len(places) > 2")
    first.enabled = False
    settings = DebugSettings([first, parse_breakpoint("error")], ["len(seen)", "obs[:60]"])
    assert write_debug_settings(tmp_path, settings) == ""
    back, notes = read_debug_settings(tmp_path)
    assert notes == [] and back is not None
    assert back.fingerprint() == settings.fingerprint()


def test_a_bad_entry_is_named_and_the_others_kept() -> None:
    data = {
        "format": "recode.debug.v1",
        "breakpoints": [{"spec": "action ([", "enabled": True}, {"spec": "depth 3"}, "junk"],
        "watches": ["x", "", 7],
    }
    settings, problems = DebugSettings.from_json(data)
    assert [bp.spec() for bp in settings.breakpoints] == ["depth 3"] and settings.watches == ["x"]
    assert len(problems) == 2 and "action ([" in problems[0] and "bad regular expression" in problems[0]


def test_no_file_is_no_settings_and_no_note(tmp_path: Path) -> None:
    assert read_debug_settings(tmp_path) == (None, [])
