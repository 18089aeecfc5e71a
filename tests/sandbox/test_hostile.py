"""Hostile node code: each snippet must be refused, fail cleanly or time out,
leave a live worker (the same one or its replacement), keep the canary
variables intact, and end within 1.5x the node time limit.

The cases share one runner (`runner`, module-scoped here): a case that kills its worker
leaves the runner to bring up the replacement itself, with the kept variables, which is
what each case checks after its snippet. The cases that run until the limit stops them share
`spinner`, the same with the short limit (SPIN_TIMEOUT): each costs its limit in CPU, and what they
check is that the limit stops them, not its length. Tests that need other settings make their own."""

from __future__ import annotations

import os
import time

import pytest
import pytest_asyncio

from agent.sandbox.runner import SandboxRunner

from .conftest import SPIN_TIMEOUT, started_runner

# heavy: the sandbox worker; every test on the module's event loop, where the shared runner lives
pytestmark = [pytest.mark.heavy, pytest.mark.asyncio(loop_scope="module")]


NODE_TIMEOUT = 5.0  # snippets that end on their own: the limit only bounds a hang (the worker's wall time)
GAUNTLET_TIMEOUT = 3.0  # one infinite loop among them costs this in CPU; a loaded machine still meets the rest

REFUSED = "refused"  # the static check says "forbidden: ..."
ERROR = "error"  # it ran and failed with a clean error
TIMEOUT = "timeout"
MEMORY = "memory"
HEAVY = "heavy"  # a C-level blow-up: memory limit or timeout, whichever comes first
COMPLETES = "completes"  # it runs to the end, harmlessly (e.g. output is capped)

# (id, code, expected kind, text the error must contain)
HOSTILE: list[tuple[str, str, str, str]] = [
    # imports
    ("import-os", "import os\nos.system('touch /tmp/pwned')", REFUSED, "forbidden: import os"),
    ("import-subprocess", "import subprocess\nsubprocess.run(['id'])", REFUSED, "forbidden: import subprocess"),
    ("import-socket", "import socket\ns = socket.socket()", REFUSED, "forbidden: import socket"),
    ("os-kill", "import os\nos.kill(os.getppid(), 9)", REFUSED, "forbidden: import os"),
    ("dunder-import", "m = __import__('os')", REFUSED, "forbidden: name `__import__`"),
    ("from-json-submodule", "from json import decoder\nx = decoder.re", ERROR, "ImportError"),
    ("from-collections-abc", "from collections import abc", ERROR, "ImportError"),
    ("json-codecs-walk", "import json\nf = json.codecs.open('/etc/passwd')", ERROR, "AttributeError"),
    ("re-enum-sys-walk", "m = re.enum.sys.modules['os']", ERROR, "AttributeError"),
    # dunder walks to builtins
    ("subclasses-walk", "x = ().__class__.__bases__[0].__subclasses__()", REFUSED, "forbidden: attribute `.__class__`"),
    ("globals-walk", "g = (lambda: 0).__globals__['__builtins__']", REFUSED, "forbidden: attribute `.__globals__`"),
    ("fstring-walk", "s = f'{().__class__.__base__}'", REFUSED, "forbidden: attribute"),
    ("match-class-walk", "match 1:\n    case int(__class__=c):\n        pass", REFUSED, "forbidden: attribute `.__class__`"),
    # every other way to name an attribute
    ("match-class-format", "t = '{0.__class__.__base__}'\nmatch t:\n    case str(format=f):\n        s = f(1)", REFUSED, "forbidden: .format used other than as a direct call"),
    ("match-class-format-map", "t = '{x.__class__}'\nmatch t:\n    case str(format_map=f):\n        s = f({'x': 1})", REFUSED, "forbidden: .format_map used other than"),
    ("match-class-frame", "g = (i for i in [1])\nmatch g:\n    case str(gi_frame=fr):\n        pass", REFUSED, "forbidden: attribute `.gi_frame`"),
    ("match-args-set", "class C:\n    __match_args__ = ('__class__',)", REFUSED, "forbidden: name `__match_args__`"),
    ("hasattr-dunder", "ok = hasattr(1, '__class__')", REFUSED, "forbidden: attribute `.__class__`"),
    ("hasattr-computed", "n = '__cl' + 'ass__'\nok = hasattr(1, n)", REFUSED, "forbidden: hasattr with an attribute name"),
    ("from-import-frame-name", "from re import f_globals", REFUSED, "forbidden: attribute `.f_globals`"),
    # frame walks
    ("gi-frame-walk", "g = (i for i in [1])\nf = g.gi_frame.f_back.f_globals", REFUSED, "forbidden: attribute `.gi_frame`"),
    ("f-back-walk", "def h():\n    pass\nx = h.f_back", REFUSED, "forbidden: attribute `.f_back`"),
    ("gi-code", "g = (i for i in [1])\nc = g.gi_code", REFUSED, "forbidden: attribute `.gi_code`"),
    # format-string attribute walks
    ("format-literal-walk", "s = '{0.__class__.__base__}'.format(1)", REFUSED, "forbidden: .format"),
    ("format-variable-template", "t = '{0.real}'\ns = t.format(1)", REFUSED, "forbidden: .format"),
    ("format-bound-method", "f = '{}'.format\ns = f(1)", REFUSED, "forbidden: .format"),
    ("format-map-walk", "s = '{x.__class__}'.format_map({'x': 1})", REFUSED, "forbidden: .format_map"),
    ("format-nested-spec-walk", "s = '{0:{1.imag}}'.format(1, 2)", REFUSED, "forbidden: .format"),
    ("string-formatter", "import string\ns = string.Formatter().vformat('{0.real}', [1], {})", REFUSED, "forbidden: attribute `.vformat`"),
    # forbidden builtins: refused as forbidden, never a placeholder
    ("open-write", "open('/tmp/pwned', 'w').write('x')", REFUSED, "forbidden: open"),
    ("eval", "x = eval('1 + 1')", REFUSED, "forbidden: eval"),
    ("exec", "exec('x = 1')", REFUSED, "forbidden: exec"),
    ("getattr", "c = getattr(1, '__class__')", REFUSED, "forbidden: getattr"),
    ("exit", "exit()", REFUSED, "forbidden: exit"),
    ("input", "x = input()", REFUSED, "forbidden: input"),
    ("globals", "g = globals()", REFUSED, "forbidden: globals"),
    ("compile", "c = compile('1', 'x', 'eval')", REFUSED, "forbidden: compile"),
    ("type-three-args", "T = type('T', (), {})", REFUSED, "forbidden: type"),
    ("shadow-trick", "if False:\n    open = 1\nopen('/etc/passwd')", REFUSED, "forbidden: open"),
    # reassigning the helpers
    ("reassign-run", "run = print", REFUSED, "forbidden: assignment to the helper `run`"),
    ("reassign-re", "re = None", REFUSED, "forbidden: assignment to the helper `re`"),
    ("delete-run", "del run", REFUSED, "forbidden: assignment to the helper `run`"),
    ("import-as-run", "import json as run", REFUSED, "forbidden: assignment to the helper `run`"),
    ("from-import-as-run", "from re import compile as run", REFUSED, "forbidden: assignment to the helper `run`"),
    ("walrus-run", "x = (run := 1)", REFUSED, "forbidden: assignment to the helper `run`"),
    ("poison-re-helper", "re.findall = lambda *a: []", REFUSED, "forbidden: changing `re.findall`"),
    ("poison-module-alias", "import json as j\nj.loads = None", REFUSED, "forbidden: changing `j.loads`"),
    ("poison-module-alias-late", "j = [re][0]\nj.findall = None", ERROR, "AttributeError: cannot change the sandboxed module"),
    # the static checks' layer: classes and functions reached through an allowed module
    ("poison-shared-class", "import json\njson.JSONEncoder.encode = None", REFUSED, "forbidden: changing `json.JSONEncoder.encode`"),
    ("poison-imported-class", "from json import JSONEncoder\ndel JSONEncoder.encode", REFUSED, "forbidden: changing `JSONEncoder.encode`"),
    ("poison-class-alias", "import json\nE = json.JSONEncoder\nE.encode = None", ERROR, "TypeError: cannot set 'encode' attribute of immutable type"),
    ("poison-counter-alias", "import collections\nC = [collections.Counter][0]\nC.most_common = None", ERROR, "immutable type"),
    # time
    ("infinite-loop", "while True:\n    pass", TIMEOUT, "timed out after"),
    ("loop-swallowing-interrupts", "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass", TIMEOUT, "timed out after"),
    ("huge-power", "x = 10 ** 10 ** 10", HEAVY, ""),
    ("huge-factorial", "import math\nx = math.factorial(10 ** 8)", HEAVY, ""),
    # memory
    ("big-string", "s = 'a' * (3 * 1024 ** 3)", MEMORY, "memory limit"),
    ("big-bytearray", "b = bytearray(2 * 1024 ** 3)", MEMORY, "memory limit"),
    ("memory-blowup-loop", "chunks = []\nwhile True:\n    chunks.append(bytearray(10 ** 8))", MEMORY, "memory limit"),
    ("range-to-list", "xs = list(range(10 ** 9))", MEMORY, "memory limit"),
    # recursion
    ("deep-recursion", "f = lambda n: f(n + 1)\nf(0)", ERROR, "RecursionError"),
    ("deep-recursion-def", "def g(n):\n    return g(n + 1)\ng(0)", ERROR, "RecursionError"),
    ("deep-nesting-repr", "x = []\nfor i in range(200000):\n    x = [x]\ns = str(x)", ERROR, "RecursionError"),
    # output floods
    ("print-flood", "while True:\n    print('x' * 1000)", TIMEOUT, "timed out after"),
    ("one-huge-print", "print('y' * 10 ** 7)", COMPLETES, ""),
    # process control
    ("system-exit", "raise SystemExit(3)", ERROR, "SystemExit: 3"),
    ("keyboard-interrupt", "raise KeyboardInterrupt", ERROR, "KeyboardInterrupt"),
    ("base-exception", "raise BaseException('boom')", ERROR, "BaseException: boom"),
    ("huge-error-message", "raise ValueError('z' * 10 ** 7)", ERROR, "ValueError: zzz"),
]


SPINS = {TIMEOUT, HEAVY}  # what runs until the limit stops it (or a C-level blow-up hits the memory limit)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def runner():
    """One runner for the module's cases (the package's `runner` starts one per test)."""
    async for shared in started_runner(NODE_TIMEOUT):
        yield shared


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def spinner():
    """One runner with the short limit for the module's cases that run until it."""
    async for shared in started_runner(SPIN_TIMEOUT):
        yield shared


def _check(outcome, kind: str, text: str, elapsed: float, limit: float = NODE_TIMEOUT) -> None:
    # the limit plus a worker's restart (bwrap's namespaces: a few hundred ms on a loaded machine), never a hang
    assert elapsed <= limit + 3.0, f"took {elapsed:.2f} s"
    if kind == COMPLETES:
        assert outcome.status == "completed", outcome
        return
    assert outcome.status == "error", outcome
    if kind == REFUSED:
        assert outcome.error.startswith("forbidden:"), outcome.error
    elif kind == TIMEOUT:
        assert outcome.error.startswith(f"timed out after {limit:.1f} s"), outcome.error
    elif kind == MEMORY:
        assert outcome.error == "memory limit", outcome.error
    elif kind == HEAVY:
        assert outcome.error.startswith("timed out after") or outcome.error == "memory limit", outcome.error
    assert text in outcome.error, outcome.error
    assert len(outcome.error) <= 2100


async def _canary(runner: SandboxRunner) -> None:
    await runner.set_variables({"canary": "alive-123", "counter": [1, 2, 3]})


async def _assert_canary(runner: SandboxRunner, drive) -> None:
    values = {v.name: v.summary for v in await runner.variables()}
    assert values.get("canary") == "alive-123"
    assert values.get("counter") == "[1, 2, 3]"
    outcome = await drive(runner, "canary_check = canary + '!'\ncounter_len = len(counter)")
    assert outcome.status == "completed", outcome
    assert runner.worker_pid is not None and runner.worker_pid != os.getpid()
    lines = await runner.prompt_lines(["canary", "counter_len"])
    assert lines == ["- canary (str): alive-123", "- counter_len (int): 3"]


async def _snippet(runner: SandboxRunner, drive, code: str, kind: str, text: str) -> None:
    await _canary(runner)
    began = time.monotonic()
    outcome = await drive(runner, code)
    elapsed = time.monotonic() - began
    _check(outcome, kind, text, elapsed, runner.node_timeout)
    await _assert_canary(runner, drive)


ENDING = [h for h in HOSTILE if h[2] not in SPINS]
SPINNING = [h for h in HOSTILE if h[2] in SPINS]


@pytest.mark.parametrize("code,kind,text", [h[1:] for h in ENDING], ids=[h[0] for h in ENDING])
async def test_hostile_snippet(runner, drive, code, kind, text):
    await _snippet(runner, drive, code, kind, text)


@pytest.mark.parametrize("code,kind,text", [h[1:] for h in SPINNING], ids=[h[0] for h in SPINNING])
async def test_hostile_snippet_that_runs_until_the_limit(spinner, drive, code, kind, text):
    await _snippet(spinner, drive, code, kind, text)


async def test_hostile_gauntlet_on_one_runner(drive):
    """All of them in a row through one runner: it keeps recovering."""
    runner = SandboxRunner(node_timeout=GAUNTLET_TIMEOUT, memory_mb=256, max_output_chars=10_000)
    try:
        await _canary(runner)
        skip = {"huge-factorial", "huge-power", "loop-swallowing-interrupts", "print-flood"}  # timeouts covered above
        for name, code, kind, text in HOSTILE:
            if name in skip:
                continue
            began = time.monotonic()
            outcome = await drive(runner, code)
            _check(outcome, kind, text, time.monotonic() - began, GAUNTLET_TIMEOUT)
        await _assert_canary(runner, drive)
    finally:
        await runner.close()


async def test_forbidden_builtin_is_never_a_stub(runner, drive):
    for name in ("open", "eval", "exec", "input", "exit", "globals", "getattr", "breakpoint", "vars"):
        outcome = await drive(runner, f"x = {name}('a')")
        assert outcome.status == "error" and outcome.error == f"forbidden: {name}", outcome


async def test_print_flood_output_is_capped(runner, drive):
    outcome = await drive(runner, "for i in range(100000):\n    print('line', i)")
    assert outcome.status == "completed"
    assert len(outcome.output) <= 10_000 + 100
    assert outcome.output.endswith("[output cut at 10000 chars]\n")


async def test_output_before_a_timeout_is_kept(spinner, drive, make_env):
    env = make_env(default="You see a desk.")
    outcome = await drive(spinner, "print('before')\nobs = run('look')\nwhile True:\n    pass", env)
    # "(not restored: x)" may follow: an earlier case on the shared runner can leave a variable no snapshot holds
    assert outcome.error.startswith(f"timed out after {SPIN_TIMEOUT:.1f} s"), outcome.error
    assert outcome.output == "before\nYou see a desk.\n"


async def test_nothing_escapes_to_the_filesystem(runner, drive, tmp_path):
    target = tmp_path / "pwned"
    for code in (
        f"open({str(target)!r}, 'w').write('x')",
        "import os",
        f"import json\njson.codecs.open({str(target)!r}, 'w')",
    ):
        outcome = await drive(runner, code)
        assert outcome.status == "error"
    assert not target.exists()


async def test_output_of_a_node_killed_without_ever_calling_run_is_kept(spinner, drive):
    outcome = await drive(spinner, "print('searching')\nprint('still searching')\nwhile True:\n    pass")
    assert outcome.error.startswith(f"timed out after {SPIN_TIMEOUT:.1f} s"), outcome.error  # "(not restored: x)" may follow
    assert outcome.output == "searching\nstill searching\n"
    outcome = await drive(spinner, "for i in range(10 ** 9):\n    print('line', i)")  # capped, then killed
    assert outcome.error == f"timed out after {SPIN_TIMEOUT:.1f} s"
    assert outcome.output.startswith("line 0\nline 1\n") and outcome.output.endswith("[output cut at 10000 chars]\n")


async def test_output_of_a_node_killed_after_ignoring_an_interrupt_is_kept(drive):
    import asyncio

    runner = SandboxRunner(node_timeout=30.0, memory_mb=256, interrupt_grace=0.3)
    try:
        await runner.start("print('working')\nwhile True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass")
        asyncio.get_running_loop().call_later(0.2, runner.interrupt)
        outcome = await runner.next_message()
        assert outcome.error.startswith("interrupted (killed"), outcome
        assert outcome.output == "working\n"
    finally:
        await runner.close()
