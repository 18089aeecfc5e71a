"""`compare --json` on the evaluation recorded by the previous release gives the document that release's
compare gave on it (recorded in `fixtures/compare_previous_release/`, `{RECORDED}` standing for the folder).

The report goes through the report's typed loader now; the numbers, settings, flips and journals it
yields must not move for a report that was already on disk.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from recode_tui.commands.cli import main

ROOT = Path(__file__).resolve().parents[2]
PREVIOUS_RELEASE = ROOT / "tests" / "sessions" / "fixtures" / "previous_release"
EXPECTED = Path(__file__).parent / "fixtures" / "compare_previous_release"
RECORDED_AT = "/tmp/old_records"


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    """The recording, moved here as if recorded in this checkout."""
    target = tmp_path / "rec"
    shutil.copytree(PREVIOUS_RELEASE, target)
    for file in (p for p in target.rglob("*") if p.is_file()):
        text = file.read_text(encoding="utf-8")
        file.write_text(text.replace(f"{RECORDED_AT}/rec", str(target)).replace(RECORDED_AT, str(ROOT)),
                        encoding="utf-8")
    return target


def _compared(recorded: Path, capsys) -> dict:
    capsys.readouterr()
    assert main(["compare", str(recorded / "eval"), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _expected(name: str, recorded: Path) -> dict:
    return json.loads((EXPECTED / name).read_text(encoding="utf-8").replace("{RECORDED}", str(recorded)))


def test_the_recorded_comparison_compares_as_the_previous_release_did(recorded: Path, capsys) -> None:
    assert _compared(recorded, capsys) == _expected("as_recorded.json", recorded)


def test_a_flip_in_the_recorded_report_is_found_as_the_previous_release_found_it(recorded: Path, capsys) -> None:
    report = recorded / "eval" / "report.json"
    data = json.loads(report.read_text(encoding="utf-8"))
    for episode in data["episodes"]:
        if episode["agent"] == "react":
            episode.update(success=False, reason="step limit 80 reached", steps=80, llm_calls=80)
    report.write_text(json.dumps(data, indent=2), encoding="utf-8")
    document = _compared(recorded, capsys)
    assert document == _expected("react_lost.json", recorded)
    assert [f["episode"] for f in document["comparisons"][0]["flips"]] == ["put-01"]
