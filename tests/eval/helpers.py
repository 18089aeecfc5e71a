"""Shared by the eval tests: scripts that win chosen games, the CLI in this process or its own, a local model."""

from __future__ import annotations

import contextlib
import io
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

from envs.alfworld.catalog import list_games
from mockllm.openai_server import write_profiles

HOLD_LIMIT = 240  # seconds a held call waits for its release at most: a test that failed never hangs the suite

SOLVE = "solve(instruction, observation)"
LOSE = '<think>just look</think><execute>\nrun("look")\n</execute>'
CRASH = '<execute>\nrun("crash now")\n</execute>'


def instruction_when(task: str) -> str:
    """A `when` pattern matching the prompt whose current instruction is `task` (not a few-shot example)."""
    return r"- instruction \(str\): " + re.escape(task) + r"\n(?![\s\S]*- instruction \(str\))"


def walkthrough_answer(path: Path) -> str:
    return steps_answer(json.loads(Path(path).read_text())["walkthrough"])


def steps_answer(steps: list[str]) -> str:
    """ReCode's answer that plays `steps` one after the other."""
    return "<think>follow the plan</think><execute>\nfor action in " + json.dumps(steps) + ":\n    run(action)\n</execute>"


def chosen_script(tmp_path: Path, winners: set[str], crash: set[str] = frozenset()) -> tuple[Path, dict[str, int]]:
    """A script that wins exactly `winners` among the bundled games, and the expected wins per task type.

    Games whose task sentence is shared with another game get the losing answer for both.
    """
    games = list_games()
    tasks = [g.task for g in games]
    entries, expected = [], {}
    for game in games:
        expected.setdefault(game.task_type, 0)
        if tasks.count(game.task) > 1:
            answer = LOSE
        elif game.id in crash:
            answer = CRASH
        elif game.id in winners:
            answer = walkthrough_answer(game.path)
            expected[game.task_type] += 1
        else:
            answer = LOSE
        entries.append({"stub": SOLVE, "when": instruction_when(game.task), "answer": answer})
    path = tmp_path / "chosen.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in entries) + "\n")
    return path, expected


def toy_script(tmp_path: Path, losers: set[str] = frozenset(), nested: bool = False,
               crash: set[str] = frozenset()) -> Path:
    """A ReCode script for the toy world (`toy_env`): the gold path of every episode but `losers`, which only
    look. The toy's two coin episodes share their task sentence and their gold path. `nested`: the root's
    answer calls a function whose expansion plays the path, so every episode asks the model twice (a test that
    holds an episode's first call and then takes the model away needs its next call to find nobody).
    `crash`: episodes whose answer sends `crash now` (an environment wrapper may end its worker on it)."""
    from tests.toyenv.world import EPISODES

    entries = []
    for name, episode in EPISODES.items():
        play = LOSE if name in losers else CRASH if name in crash else steps_answer(list(episode.gold))
        if nested:
            helper = f"play_{name.replace('-', '_')}()"
            entries.append({"stub": helper, "answer": play})
            play = f"<think>one step of the plan</think><execute>\n{helper}\n</execute>"
        entries.append({"stub": SOLVE, "when": instruction_when(episode.task), "answer": play})
    path = tmp_path / "toy.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in entries) + "\n")
    return path


def odd_games() -> set[str]:
    return {g.id for g in list_games() if int(g.id.rsplit("-", 1)[1]) % 2 == 1}


def cli_env(tmp_path: Path) -> dict[str, str]:
    return dict(os.environ, RECODE_TUI_SESSIONS=str(tmp_path / "sessions"), OPENAI_API_KEY="")


def recode(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`recode-tui ARGS` with the test's sessions folder and no API key, run by `run_main`."""
    return run_main(list(args), cli_env(tmp_path))


def run_main(args: list[str], env: dict[str, str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The command line's `main` in this process, with the environment, folder and output a process would have.

    What it does is the same as in a process of its own (eval's episodes still run in worker processes);
    what it saves is an interpreter start and the package's import per command, most of a short command's time.
    Called from a running event loop (an async test, between its console's runs), the command runs in a
    thread of its own, where it starts its own loop.
    """
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _main_here(args, env, cwd)
    outcome: list[subprocess.CompletedProcess[str] | BaseException] = []

    def run() -> None:
        try:
            outcome.append(_main_here(args, env, cwd))
        except BaseException as exc:  # noqa: BLE001 - raised again in the test's thread
            outcome.append(exc)

    thread = threading.Thread(target=run, name="recode-tui main")
    thread.start()
    thread.join()
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0]


def _main_here(args: list[str], env: dict[str, str], cwd: Path | None) -> subprocess.CompletedProcess[str]:
    from recode_tui.commands.cli import main

    in_main_thread = threading.current_thread() is threading.main_thread()
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    saved_sigint = signal.getsignal(signal.SIGINT) if in_main_thread else None
    os.environ.clear()
    os.environ.update(env)
    out, err = io.StringIO(), io.StringIO()
    try:
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(args)
            except SystemExit as exit_:  # argparse's usage errors, as the interpreter would report them
                code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
                if isinstance(exit_.code, str):
                    print(exit_.code, file=sys.stderr)
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        if in_main_thread:
            signal.signal(signal.SIGINT, saved_sigint)
    return subprocess.CompletedProcess(["recode-tui", *args], code, out.getvalue(), err.getvalue())


def _as_in_a_terminal() -> None:
    """Ctrl-C reaches a command typed at a terminal. A test run started in the background of a
    script inherits SIGINT ignored (POSIX shells do that to `&` jobs), and so would the CLI."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "recode_tui", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=cli_env(tmp_path), preexec_fn=_as_in_a_terminal)


def read_report(folder: Path) -> dict:
    return json.loads((folder / "report.json").read_text())


def profiles_file(tmp_path: Path, base_url: str) -> Path:
    return write_profiles(tmp_path / "profiles.yaml", base_url, max_retries=0, timeout=20, prices=(2.0, 8.0))


class HeldCalls:
    """The local model's answers (`respond`; the demo script by default), with calls held until the test
    releases them.

    `free`: which calls pass at once (given the prompt); every other call is put on `arrived` and waits
    for `release`. The server is threaded: a held call holds only its own episode.
    """

    def __init__(self, free=lambda prompt: False, respond=None) -> None:
        from mockllm.openai_server import script_responder
        from recode_tui.setup.build import DEMO_SCRIPT

        self.respond = respond or script_responder(str(DEMO_SCRIPT))
        self.free, self.arrived, self.release = free, queue.Queue(), threading.Event()

    def __call__(self, prompt: str) -> str:
        if not self.free(prompt):
            self.arrived.put(prompt)
            self.release.wait(HOLD_LIMIT)
        return self.respond(prompt)

    def next_call(self) -> str:
        """The prompt of the next held call, once it has arrived."""
        return self.arrived.get(timeout=HOLD_LIMIT)


ROOT_CALL = re.compile(r"# Current function to expand\s*\n\s*solve\(instruction, observation\)")


class FirstEpisodes:
    """Lets through the calls of the first `n` episodes to ask; holds every later episode at its first call
    (`first_call` matches it: by default ReCode's expansion of the root, `solve(instruction, observation)`)."""

    def __init__(self, n: int = 1, first_call: re.Pattern[str] = ROOT_CALL) -> None:
        self.left, self.first_call = n, first_call
        self.lock = threading.Lock()

    def __call__(self, prompt: str) -> bool:
        if not self.first_call.search(prompt):
            return True  # a call of an episode already let through
        with self.lock:
            if self.left == 0:
                return False
            self.left -= 1
            return True
