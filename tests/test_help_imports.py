"""`recode-tui --help` and `recode-tui COMMAND --help` load only the parser.

Help is printed from the parser alone, so a fresh interpreter that prints it
must not have imported the agent, the agents, the evaluation code, the
console or an environment's agent: each costs start-up time a user waits for
on every `--help` (how long it takes: benchmarks/bench_import.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# What a command imports when it runs, never to print its help.
HEAVY = (
    "asyncio", "agent.runtime.stepper", "agent.runtime.events", "agent.runtime.prompts", "agent.eval",
    "agent.sessions", "agent.llm", "agent.agents.recode", "agent.agents.react",
    "recode_tui.commands.evaluate", "recode_tui.commands.diff", "recode_tui.commands.compare",
    "recode_tui.commands.prompt", "recode_tui.setup.run_session", "recode_tui.commands.arguments",
    "recode_tui.setup.eval_plan", "recode_tui.api", "recode_tui.commands.eval_report", "recode_tui.setup.build",
    "recode_tui.setup.settings", "recode_tui.setup.sessions", "recode_tui.console", "recode_tui.plain",
    "textual", "prompt_toolkit", "rich", "openai", "httpx", "yaml", "alfworld", "textworld",
    "envs.alfworld", "envs.sciworld", "envs.webshop", "mockllm",
)

# Runs `run(argv)` for each argv of the JSON list in sys.argv[1], each in a copy (os.fork) of this interpreter as
# the program's prelude left it, and prints the results as a JSON list: one interpreter's start for all of them,
# each still on its own (a fresh interpreter per command was most of these tests' CPU).
FORK_EACH = """
results = []
for argv in json.loads(sys.argv[1]):
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        with os.fdopen(write, "w") as pipe:
            json.dump(run(argv), pipe)
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        results.append(json.load(pipe))
    os.waitpid(pid, 0)
print(json.dumps(results))
"""

# What the user runs, in an interpreter that has imported only the command line, as `recode-tui` has when it
# reads its arguments: per command, its exit status and the modules loaded.
CODE = """
import contextlib, io, json, os, sys
from recode_tui.commands.cli import main

def run(argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
    return {"code": code, "usage": out.getvalue().startswith("usage: recode-tui"), "modules": sorted(sys.modules)}
""" + FORK_EACH


def forked(program: str, runs: list[list[str]]) -> list[dict]:
    """What `program` (a prelude, `run(argv)` and FORK_EACH) gave for each of `runs`."""
    done = subprocess.run([sys.executable, "-c", program, json.dumps(runs)], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, check=True)
    return json.loads(done.stdout)


COMMANDS = [[], ["run"], ["tui"], ["eval"], ["sessions", "list"], ["export"], ["games", "list"], ["serve"],
            ["prompt", "show"], ["compare"], ["diff"]]
RUNS = [[*command, "--help"] for command in COMMANDS] + [["games", "list"]]  # the last one runs: it imports


@pytest.fixture(scope="module")
def loaded() -> dict[tuple[str, ...], dict]:
    """What each of RUNS printed and imported, each in its own copy of one fresh interpreter."""
    return {tuple(argv): result for argv, result in zip(RUNS, forked(CODE, RUNS))}


def heavy_in(modules: list[str]) -> list[str]:
    return [m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY)]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "recode-tui")
def test_help_imports_none_of_what_the_command_runs(command: list[str], loaded) -> None:
    result = loaded[(*command, "--help")]
    assert result["code"] == 0 and result["usage"]  # the help was printed, as before
    assert heavy_in(result["modules"]) == []


def test_the_check_sees_what_a_command_imports_when_it_runs(loaded) -> None:
    """The check itself: the same command without --help does load what it needs (here ALFWorld's provider)."""
    result = loaded[("games", "list")]
    assert result["code"] == 0 and not result["usage"]
    assert "envs.alfworld.provider" in heavy_in(result["modules"])


# What the console's first frame must not wait for: it is built behind the frame.
BEHIND_THE_FIRST_FRAME = (
    "agent.runtime.stepper", "agent.runtime.events", "agent.llm", "agent.sessions", "agent.agents.recode",
    "agent.agents.react", "envs.alfworld", "envs.sciworld", "mockllm", "openai", "alfworld", "textworld", "yaml",
    "recode_tui.setup.build", "recode_tui.console.screens.debug_screen", "recode_tui.console.session.session_control",
    "recode_tui.console.widgets",
)

FIRST_FRAME = """
import json, os, sys
from recode_tui.commands.cli import build_parser, command_argv, console_app, console_host

def run(argv):
    args = build_parser().parse_args(command_argv(argv))
    args.llm_given = False
    host = console_host(args)  # as the command line does on a terminal: the environment's worker first
    app = console_app(args, defer=True, host=host)
    found = {"modules": sorted(sys.modules), "loading": type(app.get_default_screen()).__name__,
             "host": host is not None and host.waiting}
    if host is not None:  # ended at once: what the worker imports is not checked here (its CPU was half the test's)
        host.worker.kill("the test has what it reads")
        host.close()
    return found
""" + FORK_EACH
FRAME_COMMANDS = {"recode-tui": [], "tui": ["tui", "--game", "pick-01", "--agent", "react"]}


@pytest.fixture(scope="module")
def first_frames() -> dict[str, dict]:
    """What each of FRAME_COMMANDS had imported when its console was built, behind its first frame."""
    return dict(zip(FRAME_COMMANDS, forked(FIRST_FRAME, list(FRAME_COMMANDS.values()))))


@pytest.mark.parametrize("command", list(FRAME_COMMANDS))
def test_the_console_draws_its_first_frame_before_importing_the_run(command: str, first_frames) -> None:
    """Everything `recode-tui` imports before its first frame: Textual and the loading screen, not the run."""
    modules = first_frames[command]["modules"]
    behind = [m for m in modules if any(m == h or m.startswith(h + ".") for h in BEHIND_THE_FIRST_FRAME)]
    assert behind == [] and "recode_tui.console.screens.loading" in modules
    assert first_frames[command]["host"]  # an ALFWorld episode: its worker is already importing the agent
