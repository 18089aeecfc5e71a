"""`recode-tui eval --ray` with no address starts a local cluster and says only what concerns the researcher:
Ray's own notices (its token-authentication banner for a local cluster) stay out of eval's output, and the
cluster ends with the eval. The episode is the toy world's (tests/toyenv): the cluster is what is tested."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from .ray_nodes import finish, ray_dir, skip_module_without_ray, start  # noqa: F401 - ray_dir is the fixture

skip_module_without_ray()
pytestmark = pytest.mark.heavy


def test_a_local_cluster_starts_without_rays_authentication_banner(tmp_path: Path, toy_env, ray_dir: str,  # noqa: F811
                                                                   monkeypatch) -> None:
    monkeypatch.delenv("RAY_AUTH_MODE", raising=False)  # Ray's default: it turns token authentication on and says so
    out_dir = tmp_path / "ray"
    code, out = finish(start([sys.executable, "-m", "recode_tui", "eval", "--env", "toy", "--agent", "one-action",
                              "--llm", "gold", "--games", "coin-1", "--no-progress", "-o", str(out_dir), "--ray"],
                             ray_dir))
    assert code == 0, out
    assert "as Ray tasks (local)" in out and re.search(r"^won +coin-1 ", out, re.M), out
    assert "authentication" not in out.lower() and "RAY_AUTH_MODE" not in out, out
    assert json.loads((out_dir / "report.json").read_text())["status"] == "complete"
