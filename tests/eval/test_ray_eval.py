"""`recode-tui eval --ray` on a local Ray cluster (this machine's CPUs, two here and in CI).

Each test runs the real command in a subprocess with Ray's files in a short temp folder
(RAY_TMPDIR: Ray's socket paths must stay short) that the test removes; `ray.shutdown()` in
the command stops the cluster it started. (A cluster the module starts once and every eval joins
was tried: a job joining a running cluster ships the project's code to it, which costs more than
the local cluster's start.) Where a test must act while an episode is in play (Ctrl-C, killing its
worker), the local model server holds the episode's calls until the test has acted: the test waits
for the call, not for a moment.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from .helpers import HOLD_LIMIT, FirstEpisodes, HeldCalls

pytest.importorskip("ray", reason="the ray extra is not installed: pip install -e '.[ray]'")
pytestmark = pytest.mark.heavy

ROOT = Path(__file__).resolve().parents[2]
GAMES = "6"  # one of each task type: enough for a Ctrl-C mid-run and a resume


@pytest.fixture
def ray_dir():
    folder = tempfile.mkdtemp(prefix="rt-ray-", dir="/tmp")
    try:
        yield folder
        deadline = time.monotonic() + 15
        while _cluster_processes(folder) and time.monotonic() < deadline:
            time.sleep(0.2)
        left = _cluster_processes(folder)
        assert not left, f"the eval left its Ray cluster running: {left}"  # ray.shutdown() stops it
    finally:
        _end_cluster(folder)


def _end_cluster(folder: str) -> None:
    for pid in _cluster_processes(folder):  # only this test's cluster: its processes carry its RAY_TMPDIR
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    shutil.rmtree(folder, ignore_errors=True)


def _cluster_processes(ray_dir: str, title: bytes = b"") -> list[int]:
    """Processes of this test's Ray cluster (they inherit its RAY_TMPDIR), whose title starts with `title`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if cmdline.startswith(title) and f"RAY_TMPDIR={ray_dir}\0".encode() in environ + b"\0":
            found.append(int(entry.name))
    return found


def eval_command(out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "recode_tui", "eval", "--llm", "demo", "--games", GAMES, "-c", "2",
            "--no-progress", "-o", str(out), *extra]


def start(command: list[str], ray_dir: str) -> subprocess.Popen:
    env = {**os.environ, "RAY_TMPDIR": ray_dir}
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)


def finish(process: subprocess.Popen, timeout: float = 240) -> tuple[int, str]:
    try:
        out, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, _ = process.communicate()
        raise AssertionError(f"eval did not end:\n{out}")
    return process.returncode, out


def per_game(report: Path) -> dict[str, tuple]:
    data = json.loads(report.read_text())
    return {e["game"]: (e["success"], e["steps"], e["llm_calls"], e["reason"]) for e in data["episodes"]}


def test_ray_gives_the_same_results_as_local_workers_through_ctrl_c_and_resume(tmp_path: Path, ray_dir: str) -> None:
    from mockllm.openai_server import OpenAICompatibleServer, write_profiles

    code, out = finish(start(eval_command(tmp_path / "local"), ray_dir))
    assert code == 0, out
    local = per_game(tmp_path / "local" / "report.json")
    assert len(local) == int(GAMES)

    on_ray = tmp_path / "ray"
    held = HeldCalls(free=FirstEpisodes(1))  # one episode can finish; the others wait in their first call
    with OpenAICompatibleServer(held) as server:
        # a held call's deadline outlasts the hold: however long the first episode takes, the others wait
        profiles = str(write_profiles(tmp_path / "profiles.yaml", server.base_url, timeout=HOLD_LIMIT))
        model = ["--llm", "profile:local", "--profiles", profiles]
        first = start(eval_command(on_ray, *model, "--ray"), ray_dir)
        lines = []
        try:
            for line in first.stdout:  # Ctrl-C once an episode has come back from the cluster
                lines.append(line)
                if line.startswith(("won ", "failed ")):
                    os.killpg(first.pid, signal.SIGINT)
                    break
            code, out = finish(first)
        finally:
            held.release.set()
        out = "".join(lines) + out
        assert code == 130, out
        assert "as Ray tasks (local)" in out and f"continue with `recode-tui eval --resume {on_ray}`" in out
        report = json.loads((on_ray / "report.json").read_text())
        assert report["status"] == "interrupted" and len(report["episodes"]) == 1

        code, out = finish(start([sys.executable, "-m", "recode_tui", "eval", "--resume", str(on_ray), "--ray",
                                  "--profiles", profiles, "--no-progress"], ray_dir))
    assert code == 0, out
    assert json.loads((on_ray / "report.json").read_text())["status"] == "complete"
    assert per_game(on_ray / "report.json") == local  # the same per-game results as without Ray
    for episode in json.loads((on_ray / "report.json").read_text())["episodes"]:  # written on the driver
        assert Path(episode["journal"]).parent == on_ray / "journals"
        assert (Path(episode["journal"]) / "journal.jsonl").is_file()


def _kill_the_caller(ray_dir: str) -> None:
    """SIGKILL the Ray worker playing the episode (the one whose model call is held)."""
    playing = _cluster_processes(ray_dir, b"ray::play_on_worker")
    assert playing, "no Ray worker is playing the episode"
    for pid in playing:
        os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("kills, won", [(1, True), (2, False)])
def test_a_killed_worker_is_retried_once_then_its_episode_is_recorded_failed(tmp_path: Path, ray_dir: str,
                                                                             kills: int, won: bool) -> None:
    from mockllm.openai_server import OpenAICompatibleServer, write_profiles

    out_dir = tmp_path / "ray"
    held = HeldCalls()
    with OpenAICompatibleServer(held) as server:
        profiles = write_profiles(tmp_path / "profiles.yaml", server.base_url)
        process = start([sys.executable, "-m", "recode_tui", "eval", "--llm", "profile:local", "--profiles",
                         str(profiles), "--games", "heat-01", "--no-progress", "-o", str(out_dir), "--ray"], ray_dir)
        try:
            for _ in range(kills):  # each try's first call: its worker is mid-episode
                held.next_call()
                _kill_the_caller(ray_dir)
        finally:
            held.release.set()
        code, out = finish(process)
    assert code == 0, out
    (episode,) = json.loads((out_dir / "report.json").read_text())["episodes"]
    assert episode["success"] is won, out
    if not won:
        assert "Ray worker died on each of 2 tries" in episode["reason"] and episode["error"]


class InFlight:
    """Wraps the local server's answers: counts the calls in flight at once (the server is threaded)."""

    def __init__(self, respond) -> None:
        self.respond, self.now, self.most, self.lock = respond, 0, 0, threading.Lock()

    def __call__(self, prompt: str) -> str:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
        try:
            time.sleep(0.3)  # long enough for two workers' calls to overlap
            return self.respond(prompt)
        finally:
            with self.lock:
                self.now -= 1


@pytest.mark.parametrize("cap, most, games", [(None, 2, "4"), (1, 1, "2")])  # capped: one game a worker is enough
def test_a_profiles_max_concurrency_holds_across_all_workers(tmp_path: Path, ray_dir: str, cap, most, games) -> None:
    from mockllm.openai_server import OpenAICompatibleServer, script_responder, write_profiles
    from recode_tui.setup.build import DEMO_SCRIPT

    counter = InFlight(script_responder(str(DEMO_SCRIPT)))
    with OpenAICompatibleServer(counter) as server:
        profiles = write_profiles(tmp_path / "profiles.yaml", server.base_url)
        if cap is not None:  # the file ends with models.local's settings: the cap goes there
            Path(profiles).write_text(Path(profiles).read_text() + f"    max_concurrency: {cap}\n")
        code, out = finish(start([sys.executable, "-m", "recode_tui", "eval", "--llm", "profile:local", "--profiles",
                                  str(profiles), "--games", games, "-c", "2", "--no-progress", "-o",
                                  str(tmp_path / "ray"), "--ray"], ray_dir))
    assert code == 0, out
    episodes = json.loads((tmp_path / "ray" / "report.json").read_text())["episodes"]
    assert len(episodes) == int(games) and all(e["success"] for e in episodes), out
    assert counter.most == most  # two workers overlap their calls unless the profile caps them
