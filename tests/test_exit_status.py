"""A test run reports failure as failure: pytest runs with the project's conftest in a subprocess.

Each case is a pytest run in a fresh folder holding a copy of `tests/conftest.py`
(so its session hooks run as in `make test`) and a generated test file; the
exit status must be the one bare pytest gives. The run that plays both real
engines must also end through the interpreter's normal exit (no crash) and
leave no pytest `.lock` file or other temporary folder behind.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.heavy  # real ALFWorld games, played by the command line


ROOT = Path(__file__).resolve().parents[1]


def prepared(tmp_path: Path, files: dict[str, str], *args: str) -> tuple[Path, Path, dict[str, str], list[str]]:
    """`files` beside a copy of the project's conftest: (the folder, its temp folder, pytest's environment and
    arguments)."""
    work, temp = tmp_path / "run", tmp_path / "temp"
    work.mkdir()
    temp.mkdir()
    shutil.copy(ROOT / "tests" / "conftest.py", work / "conftest.py")
    for name, text in files.items():
        (work / name).write_text(textwrap.dedent(text))
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST_")}
    env.update(PYTHONPATH=os.pathsep.join([str(work), str(ROOT)]), TMPDIR=str(temp))
    return work, temp, env, ["-q", "-p", "no:cacheprovider", "--rootdir", str(work), *args, str(work)]


def run_pytest(tmp_path: Path, files: dict[str, str], *args: str) -> tuple[subprocess.CompletedProcess, Path]:
    """Run pytest on `files` beside a copy of the project's conftest; (the run, its temp folder)."""
    work, temp, env, arguments = prepared(tmp_path, files, *args)
    run = subprocess.run([sys.executable, "-m", "pytest", *arguments], cwd=work, env=env, capture_output=True,
                         text=True, timeout=300)
    return run, temp


# Runs each case of the JSON object on stdin in a copy (os.fork) of one interpreter that has imported pytest and
# the plug-ins every pytest start imports (most of a start's CPU: ~0.8 of 0.9 CPU-s); each copy runs pytest as
# `python -m pytest` does, in the case's folder and environment, and exits through the interpreter's normal exit
# with the status pytest gives. Prints each case's exit status as a shell would see it.
FORK_EACH = r"""
import importlib, importlib.metadata, json, os, sys
import pytest
for entry in importlib.metadata.entry_points(group="pytest11"):
    importlib.import_module(entry.value.split(":")[0])
statuses = {}
for name, case in json.loads(sys.stdin.read()).items():
    pid = os.fork()
    if pid == 0:
        import tempfile
        os.chdir(case["cwd"])
        os.environ.clear()
        os.environ.update(case["env"])
        sys.path[:0] = case["env"]["PYTHONPATH"].split(os.pathsep)  # as the interpreter's start reads it
        tempfile.tempdir = None  # TMPDIR, read again
        for fd, path in ((1, case["stdout"]), (2, case["stderr"])):
            os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
        sys.argv = ["pytest", *case["args"]]
        sys.exit(pytest.console_main())
    statuses[name] = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
print(json.dumps(statuses))
"""


BAD_PLUGIN = """
    def pytest_{hook}(**kwargs):
        raise RuntimeError("broken plugin")
"""

CASES = {
    "passing": ({"test_a.py": "def test_ok():\n    assert True\n"}, (), 0),
    "failing": ({"test_a.py": "def test_ok():\n    pass\n\ndef test_bad():\n    assert 1 == 2\n"}, (), 1),
    "collection error": ({"test_a.py": "import no_such_module_here\n\ndef test_ok():\n    pass\n"}, (), 2),
    "pytest.exit": ({"test_a.py": "import pytest\n\ndef test_out():\n    pytest.exit('leaving', returncode=7)\n"}, (), 7),
    "plugin's configure raises": ({"test_a.py": "def test_ok():\n    pass\n", "badplugin.py": BAD_PLUGIN.format(hook="configure")},
                                  ("-p", "badplugin"), 3),
    "plugin's sessionstart raises": ({"test_a.py": "def test_ok():\n    pass\n",
                                      "badplugin.py": BAD_PLUGIN.format(hook="sessionstart")}, ("-p", "badplugin"), 3),
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, tuple[int, str]]:
    """Every case's pytest run, each a process of its own forked from one that started pytest's imports once:
    its exit status and output."""
    cases, outputs = {}, {}
    for name in CASES:
        files, args, _ = CASES[name]
        folder = tmp_path_factory.mktemp("case")
        work, _, env, arguments = prepared(folder, files, *args)
        outputs[name] = (folder / "stdout", folder / "stderr")
        cases[name] = {"cwd": str(work), "env": env, "args": arguments, "stdout": str(outputs[name][0]),
                       "stderr": str(outputs[name][1])}
    base = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST_")}
    done = subprocess.run([sys.executable, "-c", FORK_EACH], input=json.dumps(cases), cwd=ROOT, env=base,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    statuses = json.loads(done.stdout.splitlines()[-1])
    return {name: (statuses[name], "".join(path.read_text()[-2000:] for path in outputs[name])) for name in CASES}


@pytest.mark.parametrize("case", list(CASES))
def test_the_exit_status_is_pytests(runs, case) -> None:
    status, output = runs[case]
    assert status == CASES[case][2], output


ENGINES = """
    import shutil

    import pytest


    def test_alfworld(tmp_path):
        import json

        from envs.alfworld.catalog import resolve_game
        from envs.alfworld.env import AlfworldEnv
        from envs.base import EnvError

        broken = tmp_path / "broken.tw-pddl"
        broken.write_text(json.dumps({"pddl_domain": "(define", "pddl_problem": "(", "grammar": "", "solvable": True}))
        games = [AlfworldEnv(resolve_game("put-01")), AlfworldEnv(resolve_game("put-02"))]
        for env in games:  # two planner copies at once, then games that fail to load on them
            env.reset()
        assert games[0].step("inventory") == "You are not carrying anything."
        for env in games:
            env.close()  # its engine goes to the shelf, which the conftest empties at the end
        for _ in games:
            with pytest.raises(EnvError):
                AlfworldEnv(broken).reset()
        AlfworldEnv(resolve_game("put-03")).reset()  # a copy built after the failures
        (tmp_path / "x").write_text("x")


    @pytest.mark.skipif(shutil.which("java") is None, reason="no Java runtime")
    def test_sciworld():
        from envs import registry

        env = registry.provider("sciworld").make_env("boil/0")
        assert env.reset().instruction.startswith("Your task is to boil water")
        env.step("look around")  # the JVM stays up: the conftest stops it at the end
"""


@pytest.mark.heavy
def test_a_run_on_both_engines_exits_normally_and_leaves_no_temp_files(tmp_path) -> None:
    run, temp = run_pytest(tmp_path, {"test_engines.py": ENGINES}, "-p", "no:faulthandler")
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "Fatal Python error" not in run.stderr and "Segmentation fault" not in run.stderr
    locks = sorted(str(path.relative_to(temp)) for path in temp.rglob(".lock"))
    assert locks == []  # pytest removes its lock in an atexit hook, which a hard exit skips
    left = sorted(path.name for path in temp.iterdir())
    assert left in ([], [f"pytest-of-{_user()}"]), left  # pytest keeps its own tmp_path folders (3 runs)


def _user() -> str:
    import getpass

    return getpass.getuser()
