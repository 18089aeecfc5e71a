"""`recode-tui eval --ray ADDRESS` on a running two-node cluster whose worker node has the dependencies but not
the project: the code travels with the job (Ray's runtime_env), and the results are those of `-c 2`.

Both nodes run on this machine, started with `ray start` (the head with no CPUs, so every episode runs on
the worker node). The worker node's Python is a fresh venv that sees the project's dependencies through a
path file, and runs behind bubblewrap with the checkout hidden under an empty tmpfs: Ray hands workers the
driver's `sys.path`, which on one machine would otherwise reach the checkout. The episodes are the toy
world's (tests/toyenv), whose plug-in travels with the job too, played by its one-action agent and by
ReCode, whose code runs in the sandbox's worker on the node. Every process has Ray's token
authentication off (`RAY_AUTH_MODE`), whatever token another test's local cluster left in ~/.ray.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

from .helpers import run_main
from .ray_nodes import ROOT, end_cluster, finish, new_ray_dir, node_env, skip_module_without_ray, start, start_head

skip_module_without_ray()
pytestmark = pytest.mark.heavy


def worker_node_python(folder: Path) -> list[str]:
    """A Python with this venv's dependencies and without the project: a fresh venv whose path file names the
    dependencies' folder as bubblewrap binds it, run with the checkout hidden."""
    deps, node = folder / "deps", folder / "node"
    deps.mkdir()
    venv.create(node, with_pip=False)
    packages = Path(sysconfig.get_paths()["purelib"])  # this venv's site-packages
    inside = deps / packages.relative_to(sys.prefix)
    node_packages = Path(sysconfig.get_paths(vars={"base": str(node), "platbase": str(node)})["purelib"])
    (node_packages / "deps.pth").write_text(f"{inside}\n")
    hide = ["bwrap", "--dev-bind", "/", "/", "--tmpfs", str(ROOT), "--ro-bind", sys.prefix, str(deps), "--"]
    return [*hide, str(node / "bin" / "python")]


@pytest.fixture
def cluster(tmp_path: Path):
    """A head node (no CPUs) and a worker node (2 CPUs, no project): their address and Ray folder. Both are
    ended after the test."""
    if shutil.which("bwrap") is None:
        pytest.skip("the worker node hides the checkout with bubblewrap: sudo apt-get install bubblewrap")
    node, ray_dir = worker_node_python(tmp_path), new_ray_dir()
    env = node_env(ray_dir)
    try:
        assert subprocess.run([*node, "-c", "import ray, openai, yaml"], env=env, cwd=tmp_path).returncode == 0
        assert subprocess.run([*node, "-c", "import recode_tui"], env=env, cwd=tmp_path,
                              capture_output=True).returncode != 0, "the worker node must not have the project"
        address = start_head(ray_dir, tmp_path, cpus=0)
        joined = subprocess.run([*node, "-m", "ray.scripts.scripts", "start", f"--address={address}", "--num-cpus=2",
                                 "--disable-usage-stats"], env=env, cwd=tmp_path, capture_output=True, text=True,
                                timeout=180)
        assert joined.returncode == 0, joined.stdout + joined.stderr
        yield address, ray_dir
    finally:
        end_cluster(ray_dir)  # only this test's nodes: their processes carry its RAY_TMPDIR


def outcomes(folder: Path) -> list[tuple]:
    report = json.loads((folder / "report.json").read_text())
    assert report["status"] == "complete"
    return sorted((e["agent"], e["game"], e["success"], e["reason"], e["steps"], e["llm_calls"], e["input_tokens"],
                   e["output_tokens"]) for e in report["episodes"])


def test_eval_on_a_cluster_whose_worker_node_lacks_the_project_matches_two_local_workers(
        tmp_path: Path, toy_env, cluster: tuple[str, str]) -> None:
    address, ray_dir = cluster
    # coin-1 is won in 2 steps, vase-1 needs 4: the step limit fails it, for both agents
    eval_args = ["eval", "--env", "toy", "--agent", "one-action,recode", "--games", "coin-1,vase-1", "--llm", "gold",
                 "--max-steps", "2", "-c", "2", "--no-progress"]
    # --sandbox weak travels with each task: the nodes, started apart, inherit nothing from the driver
    on_ray = start([sys.executable, "-m", "recode_tui", *eval_args, "-o", str(tmp_path / "ray"), "--ray", address,
                    "--sandbox", "weak"], ray_dir, joining=True)
    code, out = finish(on_ray)
    assert code == 0, out
    local = run_main([*eval_args, "-o", str(tmp_path / "local")], dict(os.environ), cwd=ROOT)
    assert local.returncode == 0, local.stdout + local.stderr
    played = outcomes(tmp_path / "ray")
    assert played == outcomes(tmp_path / "local")
    assert [(agent, game, won) for agent, game, won, *_ in played] == [
        ("one-action", "coin-1", True), ("one-action", "vase-1", False), ("recode", "coin-1", True),
        ("recode", "vase-1", False)]
    journals = tmp_path / "ray" / "journals"
    assert all((journals / agent / game / "journal.jsonl").is_file() for agent, game, *_ in played)
    from agent.sessions.journal_read import read_journal

    assert [read_journal(journals / "recode" / game).header.run.sandbox for game in ("coin-1", "vase-1")] == \
        ["all layers; walls: namespaces, landlock, seccomp; weak"] * 2
