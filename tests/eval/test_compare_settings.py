"""`recode-tui compare` names every plan setting that differs, read from the plan's fields (no list to keep)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from .helpers import run_main
from .test_compare_reports import episode, report_json


def _written(folder: Path, **plan) -> Path:
    folder.mkdir()
    (folder / "report.json").write_text(json.dumps(report_json([episode("put-01", "put", True)], **plan)))
    return folder


def test_compare_names_a_setting_no_hand_list_knew(tmp_path):
    """The node time limit, the episode's wall clock and the sandbox's trust decide a run as much as its
    LLM does; a comparison of two runs that differ only there says so, field by field."""
    base = _written(tmp_path / "base", node_timeout=5.0, trusted=False)
    other = _written(tmp_path / "other", node_timeout=2.0, episode_timeout=60.0, trusted=True)
    result = run_main(["compare", str(base), str(other)], dict(os.environ))
    assert result.returncode == 0, result.stderr
    assert "settings differ:" in result.stdout
    for line in ("runner.trusted: False → True", "runner.node_timeout: 5.0 → 2.0", "episode_timeout: 1800.0 → 60.0"):
        assert f"  {line}" in result.stdout
    same = run_main(["compare", str(base), str(base)], dict(os.environ))
    assert "settings: the same (" in same.stdout and "runner.node_timeout" in same.stdout
