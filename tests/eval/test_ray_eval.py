"""`recode-tui eval --ray ADDRESS` on a running two-node cluster whose worker node has the dependencies but not
the project: the code travels with each job (Ray's `runtime_env`), and the results are those of `-c 2`.

The module starts one cluster that every test's eval joins, and kills it at the end: a cluster's start is most
of a short eval's cost, and a job joining a running cluster is what a researcher with a cluster does. Both
nodes run on this machine, started with `ray start`: the head with no CPUs, so every episode runs on the
worker node, whose Python is a fresh venv that sees the project's dependencies through a path file and runs
behind bubblewrap with the checkout hidden (tests/eval/ray_nodes.py). `tests/eval/test_ray_output.py` covers
`--ray` starting a local cluster of its own. The episodes are the toy world's coin episodes (tests/toyenv),
whose plug-in travels with the job too, played by its one-action agent against the local model server (and by
ReCode, whose code runs in the sandbox's worker on the node): what is tested is Ray's part (the code's
journey, tasks, retries, cancellation, the cluster-wide cap), not an engine. Where a test must act while an
episode is in play (Ctrl-C, killing its worker), the server holds the episode's calls until the test has
acted: the test waits for the call, not for a moment.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

import pytest

from .helpers import HOLD_LIMIT, FirstEpisodes, HeldCalls, run_main
from .ray_nodes import (ROOT, TOY_FIRST_CALL, cluster_processes, coin_responder, end_cluster, finish, new_ray_dir,
                        skip_module_without_ray, start, start_two_nodes)

skip_module_without_ray()
pytestmark = pytest.mark.heavy

TOY = ["--env", "toy", "--agent", "one-action", "--no-progress"]
GAMES = "coin-1,coin-2"  # two: one finishes before the Ctrl-C, the resume plays the other


class Cluster:
    """The module's running cluster: its address and its folder (RAY_TMPDIR)."""

    def __init__(self, address: str, folder: str) -> None:
        self.address, self.folder = address, folder

    def eval(self, *args: str) -> list[str]:
        """`recode-tui eval ARGS --ray ADDRESS` on the toy world."""
        return [sys.executable, "-m", "recode_tui", "eval", *TOY, *args, "--ray", self.address]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """The module's two nodes (the worker node without the project), ended after its last test: only this
    module's processes, which carry its RAY_TMPDIR."""
    folder = new_ray_dir()
    try:
        yield Cluster(start_two_nodes(folder, tmp_path_factory.mktemp("nodes")), folder)
    finally:
        end_cluster(folder)


@contextmanager
def local_model(tmp_path: Path, respond: Callable[[str], str], *settings: str) -> Iterator[list[str]]:
    """The local model server answering with `respond` while the block runs; the `--llm` arguments naming it,
    with `settings` added to its profile."""
    from mockllm.openai_server import OpenAICompatibleServer, write_profiles

    with OpenAICompatibleServer(respond) as server:
        # a held call's deadline outlasts the hold: however long another episode takes, the held ones wait
        profiles = write_profiles(tmp_path / "profiles.yaml", server.base_url, timeout=HOLD_LIMIT)
        profiles.write_text(profiles.read_text() + "".join(f"    {line}\n" for line in settings))  # models.local's
        yield ["--llm", "profile:local", "--profiles", str(profiles)]


def per_game(report: Path) -> dict[str, tuple]:
    data = json.loads(report.read_text())
    return {e["game"]: (e["success"], e["steps"], e["llm_calls"], e["reason"]) for e in data["episodes"]}


def test_ray_gives_the_same_results_as_local_workers_through_ctrl_c_and_resume(
        tmp_path: Path, toy_env, cluster: Cluster) -> None:
    local = run_main(["eval", *TOY, "--llm", "demo", "--games", GAMES, "-c", "2", "-o", str(tmp_path / "local")],
                     dict(os.environ))
    assert local.returncode == 0, local.stdout + local.stderr
    expected = per_game(tmp_path / "local" / "report.json")
    assert len(expected) == 2 and all(won for won, *_ in expected.values())

    on_ray = tmp_path / "ray"
    held = HeldCalls(free=FirstEpisodes(1, TOY_FIRST_CALL), respond=coin_responder())  # the other waits
    with local_model(tmp_path, held) as model:
        first = start(cluster.eval(*model, "--games", GAMES, "-c", "2", "-o", str(on_ray)), cluster.folder,
                      joining=True)
        lines, output = [], first.stdout
        assert output is not None
        try:
            for line in output:  # Ctrl-C once an episode has come back from the cluster
                lines.append(line)
                if line.startswith(("won ", "failed ")):
                    os.killpg(first.pid, signal.SIGINT)
                    break
            code, out = finish(first)
        finally:
            held.release.set()
        out = "".join(lines) + out
        assert code == 130, out
        assert f"as Ray tasks ({cluster.address})" in out and f"continue with `recode-tui eval --resume {on_ray}`" in out
        report = json.loads((on_ray / "report.json").read_text())
        assert report["status"] == "interrupted" and len(report["episodes"]) == 1

        code, out = finish(start([sys.executable, "-m", "recode_tui", "eval", "--resume", str(on_ray), "--ray",
                                  cluster.address, "--profiles", model[-1], "--no-progress"], cluster.folder,
                                 joining=True))
    assert code == 0, out
    assert json.loads((on_ray / "report.json").read_text())["status"] == "complete"
    assert per_game(on_ray / "report.json") == expected  # the same per-game results as without Ray
    for episode in json.loads((on_ray / "report.json").read_text())["episodes"]:  # written on the driver
        assert Path(episode["journal"]).parent == on_ray / "journals"
        assert (Path(episode["journal"]) / "journal.jsonl").is_file()


def _kill_the_caller(cluster: Cluster) -> None:
    """SIGKILL the Ray worker playing the episode (the one whose model call is held)."""
    playing = cluster_processes(cluster.folder, b"ray::play_on_worker")
    assert playing, "no Ray worker is playing the episode"
    for pid in playing:
        os.kill(pid, signal.SIGKILL)


class FirstCallsOneByOne:
    """The local model's answers, each episode's first call held until the test opens its gate (`arrived`
    gives the gates in the order the calls came): the test acts while that call's worker is mid-episode. Once
    `held` is cleared, no call waits."""

    def __init__(self, respond: Callable[[str], str]) -> None:
        self.respond, self.arrived, self.held = respond, queue.Queue(), True

    def __call__(self, prompt: str) -> str:
        if self.held and TOY_FIRST_CALL.search(prompt):
            gate = threading.Event()
            self.arrived.put(gate)
            gate.wait(HOLD_LIMIT)
        return self.respond(prompt)

    def next_call(self) -> threading.Event:
        """The gate of the next first call, once it has arrived."""
        return self.arrived.get(timeout=HOLD_LIMIT)


def test_a_killed_worker_is_retried_once_then_its_episode_is_recorded_failed(tmp_path: Path, toy_env,
                                                                              cluster: Cluster) -> None:
    """One episode at a time: coin-1's worker is killed once (the retry wins), coin-2's on both tries."""
    out_dir = tmp_path / "ray"
    calls = FirstCallsOneByOne(coin_responder())
    with local_model(tmp_path, calls) as model:
        process = start(cluster.eval(*model, "--games", GAMES, "-c", "1", "-o", str(out_dir)), cluster.folder,
                        joining=True)
        gates: list[threading.Event] = []
        try:
            for kill in (True, False, True, True):  # each try's first call: its worker is mid-episode
                gates.append(calls.next_call())
                if kill:
                    _kill_the_caller(cluster)
                gates[-1].set()
        finally:
            calls.held = False  # a try too many plays on: the report says so
            for gate in gates:
                gate.set()
        code, out = finish(process)
    assert code == 0, out
    episodes = {e["game"]: e for e in json.loads((out_dir / "report.json").read_text())["episodes"]}
    assert episodes["coin-1"]["success"] is True, out
    failed = episodes["coin-2"]
    assert failed["success"] is False and "Ray worker died on each of 2 tries" in failed["reason"] and failed["error"]


class InFlight:
    """Wraps the local server's answers: counts the calls in flight at once (the server is threaded).

    `meet`: each call waits (at most HOLD_LIMIT) until that many calls have been in flight at once, so two
    workers' calls overlap however the machine's load staggers the workers' starts. Without it, each call
    takes 0.3 s: time for a second worker's call to arrive if nothing stops it.
    """

    def __init__(self, respond: Callable[[str], str], meet: int | None) -> None:
        self.respond, self.meet, self.now, self.most = respond, meet, 0, 0
        self.changed = threading.Condition()

    def __call__(self, prompt: str) -> str:
        with self.changed:
            self.now += 1
            self.most = max(self.most, self.now)
            self.changed.notify_all()
            meet = self.meet
            if meet is not None:
                self.changed.wait_for(lambda: self.most >= meet, timeout=HOLD_LIMIT)
        try:
            if self.meet is None:
                time.sleep(0.3)
            return self.respond(prompt)
        finally:
            with self.changed:
                self.now -= 1


@pytest.mark.parametrize("cap, most", [(None, 2), (1, 1)])
def test_a_profiles_max_concurrency_holds_across_all_workers(tmp_path: Path, toy_env, cluster: Cluster,
                                                             cap: int | None, most: int) -> None:
    counter = InFlight(coin_responder(), meet=None if cap else 2)
    with local_model(tmp_path, counter, *([f"max_concurrency: {cap}"] if cap else [])) as model:
        code, out = finish(start(cluster.eval(*model, "--games", GAMES, "-c", "2", "-o", str(tmp_path / "ray")),
                                 cluster.folder, joining=True))
    assert code == 0, out
    episodes = json.loads((tmp_path / "ray" / "report.json").read_text())["episodes"]
    assert len(episodes) == 2 and all(e["success"] for e in episodes), out
    assert counter.most == most  # two workers overlap their calls unless the profile caps them


def outcomes(folder: Path) -> list[tuple]:
    report = json.loads((folder / "report.json").read_text())
    assert report["status"] == "complete"
    return sorted((e["agent"], e["game"], e["success"], e["reason"], e["steps"], e["llm_calls"], e["input_tokens"],
                   e["output_tokens"]) for e in report["episodes"])


def test_eval_on_a_cluster_whose_worker_node_lacks_the_project_matches_two_local_workers(
        tmp_path: Path, toy_env, cluster: Cluster) -> None:
    # coin-1 is won in 2 steps, vase-1 needs 4: the step limit fails it, for both agents
    eval_args = ["eval", "--env", "toy", "--agent", "one-action,recode", "--games", "coin-1,vase-1", "--llm", "gold",
                 "--max-steps", "2", "-c", "2", "--no-progress"]
    # --sandbox weak travels with each task: the nodes, started apart, inherit nothing from the driver
    on_ray = start([sys.executable, "-m", "recode_tui", *eval_args, "-o", str(tmp_path / "ray"), "--ray",
                    cluster.address, "--sandbox", "weak"], cluster.folder, joining=True)
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
