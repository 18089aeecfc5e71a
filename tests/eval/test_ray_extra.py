"""`eval --ray` refused in one line before anything is written: without the ray extra, or at an address nobody answers at."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from recode_tui.commands.cli import main


def test_without_the_ray_extra_eval_ray_names_the_pip_command(capsys, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if not installed: importing it fails
    out = tmp_path / "eval"
    assert main(["eval", "--llm", "demo", "--games", "1", "--ray", "-o", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'recode-tui[ray]'" in err
    assert not (out / "report.json").exists()


def test_a_cluster_address_nobody_answers_at_is_refused_at_once(capsys, tmp_path: Path) -> None:
    import socket

    pytest.importorskip("ray")
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    out = tmp_path / "eval"
    assert main(["eval", "--llm", "demo", "--games", "1", "--ray", f"127.0.0.1:{port}", "-o", str(out),
                 "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nothing answers there" in err and "ray start --head" in err
    assert not (out / "report.json").exists()
