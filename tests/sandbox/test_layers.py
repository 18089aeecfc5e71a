"""The chain from an LLM answer to a root shell, stopped at every layer.

Each test takes one layer's own attack with the other layers switched off
where the code allows (`LayersOffRunner`, a test-only runner), so that each
layer is shown to hold alone.
Node code with the static checks off reaches the real modules the way an
escape would: `print.__globals__['__builtins__']` holds the real `__import__`
(`os`, `sys`, `builtins` are loaded); with the audit hook off too, a frame
leads to the worker object itself.
"""

from __future__ import annotations

import base64
import json
import os
import pickle
import pickletools

import pytest
import pytest_asyncio

from agent.sandbox.runner import SandboxRunner
from agent.sandbox.checks import check_code
from agent.sandbox.protocol import encode_reply, load_plain

from tests.sandbox.conftest import SPIN_TIMEOUT
from tests.sandbox.layers_off import LayersOffRunner

pytestmark = pytest.mark.heavy  # the sandbox worker


REAL = "g = {m: print.__globals__['__builtins__']['__import__'](m) for m in ('os', 'sys', 'builtins')}\n"
WORKER = REAL
# With the audit hook off too, a frame leads to the worker object (`exec_node`'s `self`).
WORKER_OBJECT = REAL + "w = g['sys']._getframe(0).f_back.f_locals['self']\n"


def _runner(node_timeout: float = 2.0, **layers: bool) -> SandboxRunner:
    return LayersOffRunner(node_timeout=node_timeout, memory_mb=256, **layers)


@pytest_asyncio.fixture
async def hook_only():
    runner = _runner(static_checks=False)
    yield runner
    await runner.close()


@pytest_asyncio.fixture
async def bare():
    """Static checks and audit hook both off: what is left is the protocol, the restore and the isolation."""
    runner = _runner(static_checks=False, audit_hook=False)
    yield runner
    await runner.close()


async def _value(runner: SandboxRunner, name: str) -> str:
    return {v.name: v.summary for v in await runner.variables()}[name]


# -- layer 1: node code cannot change what it did not make -------------------------


def test_static_check_refuses_changing_shared_classes():
    assert check_code("import json\njson.JSONEncoder.encode = lambda self, o: ''")
    assert check_code("from json import JSONEncoder\nJSONEncoder.iterencode = None")
    assert check_code("import collections as c\ndel c.Counter.most_common")
    # imported by an earlier node
    assert check_code("JSONEncoder.encode = None", {"JSONEncoder"}, imported_names={"JSONEncoder"})
    # what the code made stays changeable
    assert check_code("class Holder:\n    pass\nh = Holder()\nh.item = 'mug 1'\nh.item = None") is None


async def test_shared_classes_are_immutable_without_the_static_check(hook_only, drive):
    outcome = await drive(hook_only, "import json\nE = json.JSONEncoder\nE.encode = lambda self, o: 'forged'")
    assert outcome.status == "error" and "immutable type" in outcome.error, outcome
    outcome = await drive(hook_only, "import json\nok = json.dumps({'a': 1})")
    assert outcome.status == "completed" and await _value(hook_only, "ok") == '{"a": 1}'


def test_the_workers_replies_use_nothing_node_code_can_reach(monkeypatch):
    """Were json.JSONEncoder (or json.dumps) rewritten, the worker's frames stay its own."""
    honest = encode_reply({"t": "outcome", "status": "completed", "out": "é"})
    forged = '{"t":"outcome","status":"completed","out":"FORGED"}'
    monkeypatch.setattr(json.JSONEncoder, "encode", lambda self, o: forged)
    monkeypatch.setattr(json.JSONEncoder, "iterencode", lambda self, o, _one_shot=False: iter([forged]))
    monkeypatch.setattr(json, "dumps", lambda *a, **k: forged)
    assert encode_reply({"t": "outcome", "status": "completed", "out": "é"}) == honest
    assert b"FORGED" not in honest


# -- layer 2: a snapshot is plain data --------------------------------------------


@pytest.mark.parametrize("protocol", [0, 2, pickle.HIGHEST_PROTOCOL])
def test_a_snapshot_naming_a_function_is_refused(tmp_path, protocol):
    marker = tmp_path / "pwned"
    blob = pickle.dumps(_PickledCall(str(marker)), protocol=protocol)
    opcodes = {op.name for op, _, _ in pickletools.genops(blob)}
    assert opcodes & {"GLOBAL", "STACK_GLOBAL"} and "REDUCE" in opcodes
    with pytest.raises(pickle.UnpicklingError, match="forbidden in a snapshot"):
        load_plain(blob)
    assert not marker.exists()


class _PickledCall:
    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_plain_snapshots_still_load():
    import collections

    value = {"seen": ["mug 1", ("desk", 1)], "c": collections.Counter("aab"), "s": {1, 2}, "z": 1j}
    assert load_plain(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)) == value


async def test_a_worker_made_snapshot_does_not_run_in_the_next_worker(drive, tmp_path):
    """The old worker pickles a value whose __reduce__ runs a command; a timeout restarts the worker."""
    bare = _runner(SPIN_TIMEOUT, static_checks=False, audit_hook=False)  # the timeout's length is not checked
    marker = tmp_path / "pwned"
    code = (
        "class Evil:\n"
        "    def __reduce__(self):\n"
        f"        return (print.__globals__['__builtins__']['__import__']('os').system, ('touch {marker}',))\n"
        "x = Evil()\nkept = 'plain'\n"
    )
    try:
        outcome = await drive(bare, code)
        assert outcome.status == "completed", outcome
        outcome = await drive(bare, "while True:\n    pass")  # the worker is killed and replaced
        assert outcome.error.startswith("timed out") and "not restored: x" in outcome.error, outcome
        assert not marker.exists()
        assert await _value(bare, "kept") == "plain"
    finally:
        await bare.close()


# -- layer 3: the audit hook allows only what node code needs ---------------------------


async def test_a_rewritten_sys_modules_does_not_open_imports(hook_only, drive):
    code = WORKER + (
        "sys = g['sys']\n"
        "sys.modules['_posixsubprocess'] = None\n"
        "imp = sys.modules['_imp']\n"
        "class Spec:\n"
        "    name = '_posixsubprocess'\n"
        f"    origin = {_extension_path()!r}\n"
        "m = imp.create_dynamic(Spec())\n"
    )
    outcome = await drive(hook_only, code)
    assert outcome.error == "PermissionError: forbidden: import _posixsubprocess", outcome


def _extension_path() -> str:
    import _posixsubprocess

    return getattr(_posixsubprocess, "__file__", "/nonexistent.so")


@pytest.mark.parametrize(
    "code,reason",
    [
        ("g['os'].mknod('node')", "AttributeError"),
        ("g['os'].mkfifo('fifo')", "AttributeError"),
        ("g['sys'].modules['posix'].mkfifo('fifo')", "AttributeError"),
        ("fd = g['os'].pidfd_open(g['os'].getppid())", "AttributeError"),
        ("g['sys'].modules['_thread'].start_new_thread(print, ())", "AttributeError"),
        # `resource` is reached through sys: the worker's own globals no longer hold it (its limits module does)
        ("r = g['sys'].modules['resource']\nr.setrlimit(r.RLIMIT_CPU, (1000, 1000))", "forbidden: resource.setrlimit"),
        ("r = g['sys'].modules['resource']\nr.prlimit(0, r.RLIMIT_AS)", "forbidden: resource.prlimit"),
        ("gc = g['builtins'].__import__('gc')", "forbidden: import gc"),
        ("g['sys'].settrace(None)", "forbidden: sys.settrace"),
        ("f = (i for i in [1]).gi_frame", "forbidden: attribute .gi_frame"),
        ("g['builtins'].open('out.txt', 'w')", "forbidden: open"),
        ("s = g['builtins'].__import__('socket')", "forbidden: import socket"),
        ("g['os'].kill(g['os'].getppid(), 0)", "forbidden: os.kill"),
    ],
    ids=["mknod", "mkfifo", "posix-mkfifo", "pidfd", "thread", "setrlimit", "prlimit", "gc",
         "settrace", "frame", "open-write", "socket", "kill"],
)
async def test_the_hook_refuses_what_node_code_does_not_need(hook_only, drive, code, reason):
    outcome = await drive(hook_only, WORKER + code)
    assert outcome.status == "error" and reason in outcome.error, outcome
    outcome = await drive(hook_only, "after = 1")
    assert outcome.status == "completed"


@pytest.mark.parametrize(
    "event,args",
    [
        ("gc.get_objects", (0,)), ("gc.get_referrers", ()), ("gc.get_referents", ()),
        ("resource.setrlimit", (0, (1, 1))), ("resource.prlimit", (0, 0, None)),
        ("sys.settrace", ()), ("sys.setprofile", ()), ("sys.addaudithook", ()),
        ("os.system", (b"id",)), ("os.exec", ("/bin/sh", ["sh"], None)), ("os.posix_spawn", ()),
        ("os.fork", ()), ("os.kill", (1, 9)), ("subprocess.Popen", ()), ("socket.connect", ()),
        ("ctypes.dlopen", ("libc.so.6",)), ("open", ("/etc/passwd", "r", 0)), ("os.listdir", (".",)),
        ("import", ("_posixsubprocess", "/x.so", None, None, None)), ("import", ("sys", "/x.so", None, None, None)),
        ("code.__new__", ()), ("function.__new__", ()), ("marshal.loads", ()),
    ],
)
def test_every_event_outside_the_allow_list_is_refused(event, args):
    """The hook itself, event by event: whatever node code reaches, these stay refused."""
    from agent.sandbox.audit import HookState, audit_hook

    hook = audit_hook(HookState(), frozenset())
    with pytest.raises(PermissionError, match="forbidden"):
        hook(event, args)


def test_the_workers_own_calls_and_node_basics_pass_the_hook():
    from agent.sandbox.audit import HookState, audit_hook

    state = HookState()
    shared = object()
    hook = audit_hook(state, frozenset({id(shared)}))
    for event in ("exec", "compile", "builtins.id"):
        hook(event, ())
    hook("import", ("sys", None, None, None, None))  # loaded when the hook was installed
    hook("object.__setattr__", (object(), "x", 1))  # an object node code made
    with pytest.raises(PermissionError):
        hook("object.__setattr__", (shared, "__defaults__", ()))
    with pytest.raises(PermissionError):
        hook("resource.setrlimit", (0, (1, 1)))
    state.own(hook, "resource.setrlimit", (0, (1, 1)))  # the worker's CPU backstop
    with pytest.raises(PermissionError):
        hook("sys._getframe", ())  # the worker's own calls only


# -- layer 4: the worker has less than the parent ---------------------------------------


async def test_the_worker_cannot_read_the_parents_environment(bare, drive, monkeypatch):
    monkeypatch.setenv("RECODE_TEST_SECRET", "sk-do-not-leak")
    code = WORKER + (
        "try:\n"
        f"    leaked = g['builtins'].open('/proc/{os.getpid()}/environ', 'rb').read()[:40]\n"
        "except OSError as exc:\n"
        "    leaked = exc.__class__.__name__\n"
        "mine = dict(g['os'].environ)\n"
    )
    outcome = await drive(bare, code)
    assert outcome.status == "completed", outcome
    # no such file inside the worker's own pid namespace; refused outside one (weak mode)
    assert await _value(bare, "leaked") in ("FileNotFoundError", "PermissionError")
    assert "sk-do-not-leak" not in await bare.full_value("mine")


async def test_the_worker_cannot_start_processes_or_reach_the_network(bare, drive):
    code = WORKER + (
        "os = g['os']\n"
        "try:\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        "        os._exit(0)\n"
        "    forked = 'yes'\n"
        "except OSError as exc:\n"
        "    forked = exc.__class__.__name__\n"
        "uid = os.getuid()\n"
        "cwd = os.getcwd()\n"
    )
    outcome = await drive(bare, code)
    assert outcome.status == "completed", outcome
    assert await _value(bare, "forked") in ("PermissionError", "BlockingIOError")  # seccomp, else RLIMIT_NPROC
    assert "no new processes" in bare.isolation and "no new privileges" in bare.isolation
    assert await _value(bare, "cwd") in ("/work", "recode-worker-") or "recode-worker-" in await _value(bare, "cwd")
    if os.geteuid() == 0:
        assert int(await _value(bare, "uid")) != 0
        assert any(item.startswith(("user ", "namespaces")) for item in bare.isolation)  # nobody, or uid 65534 inside


# -- the protocol reader: a forged frame restarts the worker, never the runner -------------


@pytest.mark.parametrize(
    "forgery",
    [
        "w.send({'t': 'outcome', 'status': 'completed', 'changes': [[1]]})",
        "w.send({'t': 'outcome', 'status': 'completed', 'snapshot': {'order': ['x'], 'blobs': {'x': '@@'}}})",
        "w.send({'t': 'vars'})",
        "g['os'].write(w.wfd, b'\\x00\\x00\\x00\\x05hello')",
        "g['os'].write(w.wfd, b'\\x00\\x00\\x00\\x02[]')",
        "g['os'].write(w.wfd, b'\\x00\\x00\\x27\\x10' + b'[' * 10000)",
    ],
    ids=["bad-changes", "bad-blob", "wrong-type", "not-json", "not-an-object", "deep-json"],
)
async def test_a_forged_frame_restarts_the_worker_and_later_nodes_run(bare, drive, forgery):
    await bare.set_variables({"canary": "alive"})
    outcome = await drive(bare, WORKER_OBJECT + forgery + "\nwhile True:\n    pass")
    assert outcome.status == "error" and "malformed" in outcome.error, outcome
    outcome = await drive(bare, "later = canary + '!'")
    assert outcome.status == "completed", outcome
    assert await _value(bare, "later") == "alive!"


def test_the_parent_is_not_dumpable_once_a_worker_ran():
    from agent.sandbox.isolation import parent_guard, parent_is_dumpable

    if parent_is_dumpable() is None:
        pytest.skip("no prctl on this platform")
    assert parent_guard() is True
    assert parent_is_dumpable() is False
