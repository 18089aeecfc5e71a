"""`eval --ray` without the ray extra: one line naming the pip command, and nothing written."""

from __future__ import annotations

import sys
from pathlib import Path

from recode_tui.commands.cli import main


def test_without_the_ray_extra_eval_ray_names_the_pip_command(capsys, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if not installed: importing it fails
    out = tmp_path / "eval"
    assert main(["eval", "--llm", "demo", "--games", "1", "--ray", "-o", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'recode-tui[ray]'" in err
    assert not (out / "report.json").exists()
