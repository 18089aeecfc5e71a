"""A test run reports failure as failure: pytest runs with the project's conftest in a subprocess.

Each case is a pytest run in a fresh folder holding a copy of `tests/conftest.py`
(so its session hooks run as in `make test`) and a generated test file; the
exit status must be the one bare pytest gives. The run that plays both real
engines must also end through the interpreter's normal exit (no crash) and
leave no pytest `.lock` file or other temporary folder behind.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.heavy  # real ALFWorld games, played by the command line


ROOT = Path(__file__).resolve().parents[1]


def run_pytest(tmp_path: Path, files: dict[str, str], *args: str) -> tuple[subprocess.CompletedProcess, Path]:
    """Run pytest on `files` beside a copy of the project's conftest; (the run, its temp folder)."""
    work, temp = tmp_path / "run", tmp_path / "temp"
    work.mkdir()
    temp.mkdir()
    shutil.copy(ROOT / "tests" / "conftest.py", work / "conftest.py")
    for name, text in files.items():
        (work / name).write_text(textwrap.dedent(text))
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST_")}
    env.update(PYTHONPATH=os.pathsep.join([str(work), str(ROOT)]), TMPDIR=str(temp))
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(work), *args, str(work)],
        cwd=work, env=env, capture_output=True, text=True, timeout=300,
    )
    return run, temp


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


@pytest.mark.parametrize("case", list(CASES))
def test_the_exit_status_is_pytests(tmp_path, case) -> None:
    files, args, expected = CASES[case]
    run, _ = run_pytest(tmp_path, files, *args)
    assert run.returncode == expected, run.stdout[-2000:] + run.stderr[-2000:]


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
