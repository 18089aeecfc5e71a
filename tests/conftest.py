"""Shared fixtures: real ALFWorld games for the engine and console tests."""

from __future__ import annotations

import gc
import itertools
import keyword
import re
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "alfworld"

# Collection makes hundreds of thousands of objects that live to the end (modules, items, fixtures' records): at
# Python's default thresholds the collector walks them ~400 times per process, a sixth of collecting (0.25 of
# 1.75 CPU-s, in every xdist worker). The thresholds `pytest_collection_finish` sets for the tests, from the start.
gc.set_threshold(50_000, 20, 20)


def bundled_game(task_type: str, index: int = 0) -> str:
    """The id of a bundled game of a task type (the project ships at least 10 per type)."""
    from envs.alfworld.catalog import list_games

    games = list_games([task_type])
    assert len(games) > index, f"no bundled {task_type} game #{index}"
    return games[index].id


@pytest.fixture
def put_game() -> str:
    return bundled_game("put")


@pytest.fixture
def toy_env(monkeypatch):
    """The in-memory test environment `toy` (tests/toyenv) and its test agent, registered for one test.

    RECODE_TUI_PLUGINS and PYTHONPATH name them for the processes a test starts (the command line,
    eval's environment workers). Episodes: `toy:vase-1`, `toy:key-1` (put), `toy:coin-1`, `toy:coin-2` (take).
    """
    yield from toy_registered(monkeypatch)


@pytest.fixture(scope="module")
def toy_module():
    """`toy_env` for a whole module: for a console its tests share (a module-scoped page)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        yield from toy_registered(monkeypatch)


def toy_registered(monkeypatch: pytest.MonkeyPatch):
    """Register the toy world and agent until the generator ends; the environment names them for child processes."""
    import os

    from tests import toyenv

    root = str(Path(__file__).resolve().parents[1])
    monkeypatch.setenv("RECODE_TUI_PLUGINS", toyenv.PLUGIN)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
    toyenv.register()
    yield toyenv
    toyenv.unregister()


@pytest.fixture
def toy_game(toy_env) -> str:
    """A toy episode played like put-01: "put a vase in sidetable.", the vase on diningtable 1."""
    return "toy:vase-1"


def close_engines() -> None:
    """Close the native engines this process started: the ScienceWorld JVM and the shelved ALFWorld engines.

    Why: left to the interpreter's finalisers (py4j's threads and object
    finalisers still talking to the JVM), the JVM bridge can crash the exit
    after every test has passed. Closed here, the
    interpreter exits normally: pytest's own exit status, atexit hooks and
    temp-dir clean-up (`tests/test_exit_status.py`).
    """
    import sys

    simulator = sys.modules.get("envs.sciworld.simulator")
    if simulator is not None:
        simulator.close_shared()
    engines = sys.modules.get("envs.alfworld.engines")
    if engines is not None:
        engines.empty_shelf()


def pytest_configure(config) -> None:
    """pytest-xdist's workers set COLUMNS=80 and LINES=24; the commands a test starts would inherit
    them and print for an 80-column pipe. A test that wants a width sets it itself."""
    import os

    if os.environ.get("PYTEST_XDIST_WORKER"):
        os.environ.pop("COLUMNS", None)
        os.environ.pop("LINES", None)
    deliver_ctrl_c_to_children()


def deliver_ctrl_c_to_children() -> None:
    """A suite started in the background (`make test &`, nohup, a CI runner's job) starts with SIGINT
    and SIGQUIT ignored, and an ignored signal stays ignored in every command a test starts: a server
    or `eval` that a test stops with Ctrl-C would then never stop. Give them the default again."""
    import signal

    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if signal.getsignal(signal.SIGQUIT) == signal.SIG_IGN:
        signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def pytest_ignore_collect(collection_path: Path, config) -> bool | None:
    """A test module whose own `pytestmark = pytest.mark.NAME` the `-m` expression deselects is not imported.

    Why: every xdist worker imports and collects every module, and `make quick` (`-m "not slow and not heavy"`)
    deselects 102 whole modules (721 tests) only after importing them and making their items: ~0.5 CPU-s of
    each worker's 1.6. Anything less plain than one leading `pytest.mark.NAME` (a mark with arguments, a
    variable, a second `pytestmark`) is collected as usual, and pytest's own `-m` deselects as before.
    """
    marks = declared_module_marks(collection_path)
    if marks and deselects_every_test_marked(config.getoption("markexpr") or "", marks):
        return True
    return None


MODULE_MARK = re.compile(r"^pytestmark\s*=\s*\[?\s*pytest\.mark\.([A-Za-z_]\w*)\s*(?:[,\]#]|$)", re.MULTILINE)


def declared_module_marks(path: Path) -> set[str]:
    """The plain mark a test module's one `pytestmark` line starts with (empty when there is none or doubt)."""
    if path.suffix != ".py" or not path.name.startswith("test_"):
        return set()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return set()
    found = MODULE_MARK.findall(text)
    return set(found) if len(found) == 1 and text.count("pytestmark") == 1 else set()


def deselects_every_test_marked(expression: str, marks: set[str]) -> bool:
    """Whether a `-m` expression is false for every test carrying `marks`, whatever other marks it has.

    The expression's words (`not`, `and`, `or`, brackets, mark names) mean what they mean in Python; any other
    token (a mark with arguments, `-`, `=`) answers False: collect, and let pytest decide.
    """
    tokens = re.findall(r"[()]|[^\s()]+", expression)
    names = {token for token in tokens if token not in {"(", ")", "and", "or", "not"}}
    if not tokens or any(not name.isidentifier() or keyword.iskeyword(name) for name in names):
        return False
    free = sorted(names - marks)
    if len(free) > 8:
        return False
    code = compile(" ".join(tokens), "<-m>", "eval")
    for values in itertools.product((False, True), repeat=len(free)):
        namespace = {name: name in marks for name in names} | dict(zip(free, values))
        if eval(code, {"__builtins__": {}}, namespace):
            return False
    return True


def pytest_collection_modifyitems(config, items: list) -> None:
    """The modules with heavy tests run first, each module's tests in their own order, the rest after them in
    theirs. Why: `--dist loadfile` hands modules to the workers in this order, and the heavy ones are the long
    ones (a Ray module ~1 min, the JVM and eval ones 10-30 s): started last, one of them ran on after the other
    workers had finished; the short console modules now fill the end instead."""
    heavy = {item.path for item in items if item.get_closest_marker("heavy") is not None}
    items.sort(key=lambda item: item.path not in heavy)  # stable: each group keeps its order


def pytest_collection_finish(session) -> None:
    """Once the tests are collected, the objects alive now (imported modules, ALFWorld's tables, the collected
    items) stay alive to the end: moved out of the collector's sight, and with collections spaced wider, the
    collector stops walking them again and again. Why: it took about a fifth of a console test's CPU
    (tests/console/test_pilot.py + test_agent_views.py: 22.6 -> 17.6 CPU-s). Cycles are still freed."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)


def pytest_sessionfinish(session, exitstatus) -> None:
    close_engines()
    collect_once_then_freeze()


def collect_once_then_freeze() -> None:
    """pytest ends a session with five full garbage collections (to surface finalizers' unraisable exceptions);
    each walked every object the tests left alive (~0.9 CPU-s per xdist worker). One collection here frees the
    garbage, and its finalizers still report to pytest; the survivors are then frozen, so pytest's collections
    walk only what is new since.

    An xdist worker that is about to exit skips that collection too: it walked everything the worker's tests
    left alive (0.3-0.7 CPU-s per console-heavy worker, the largest part of a worker's fixed cost), only to free
    memory the exit frees. What it costs: an error raised by the finalizer of garbage left at the very end
    (printed to the worker's stderr) is not printed; a run without `-n` still reports it."""
    import os

    if not os.environ.get("PYTEST_XDIST_WORKER"):
        gc.collect()
    gc.freeze()


def pytest_unconfigure(config) -> None:
    close_engines()  # again: a session that failed to start never finished


@pytest.fixture
def node_code_in_process():
    """Runs a command or the API starts in this test run their node code in-process
    (`tests.settings.node_code_in_process`)."""
    from tests.settings import node_code_in_process

    with node_code_in_process():
        yield


TEST_JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def pytest_sessionstart(session) -> None:
    """ScienceWorld's JVMs in tests (this process's and those of the commands and eval workers it starts) compile
    with the quick JIT only and collect garbage on one thread. Why: a test's JVM lives for a few episodes, where
    the optimising compiler's and the parallel collector's threads cost more than they save: ~1.2 of a JVM's
    ~6 CPU-s (start, then boil/0's gold path). Java options a person set are kept; the product adds its heap cap.

    They share one ScienceWorld class archive (each start ~0.5 CPU-s cheaper, `envs/sciworld/class_archive.py`):
    on a machine (a fresh clone's new jar) that has none yet, the session's first process writes it at once, in a
    thread while the workers start, instead of every JVM started before the first normal exit running without it
    and writing one at its own exit. Not for a run that rules heavy tests out (`make quick`): it starts no JVM."""
    import os
    import shutil
    import threading

    os.environ.setdefault("JAVA_TOOL_OPTIONS", TEST_JVM_OPTIONS)
    heavy_ruled_out = "not heavy" in (session.config.getoption("markexpr", "") or "")
    if not os.environ.get("PYTEST_XDIST_WORKER") and not heavy_ruled_out and shutil.which("java"):
        from envs.sciworld.simulator import write_class_archive

        threading.Thread(target=write_class_archive, args=(os.environ["JAVA_TOOL_OPTIONS"],),
                         name="sciworld-class-archive").start()
