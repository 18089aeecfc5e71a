"""The Python-level layers fixed at the cause: each holds even where another one fell.

- Layer 1 (static check): a class pattern's positional sub-patterns read the
  attributes the class's `__match_args__` names, so they are judged like
  attributes; named-tuple field names (which put names in `__match_args__`)
  are judged like attributes when the class is made; `collections.User*`
  (whose methods forward to a `.data` node code chooses) are not handed out;
  exception attributes that carry an object (`AttributeError.obj`) are refused.
- The helpers node code holds (`print`, `run`, `__import__`, the parent's
  helpers) lead to neither the worker, its state, its output nor its `send`.
- Layer 3 (audit hook): it uses only what it bound when it was made, so node
  code that rewrites the audit module cannot open a file.
"""

from __future__ import annotations

import builtins

import pytest
import pytest_asyncio

from agent.sandbox.runner import SandboxRunner
from agent.sandbox.checks import check_code

from tests.sandbox.layers_off import LayersOffRunner

pytestmark = pytest.mark.heavy  # the sandbox worker


# With the static check off, node code reaches the real builtins through a helper's globals
# (a bound method forwards `__globals__` to its function, so this also worked before).
REAL = (
    "B = print.__globals__['__builtins__']\n"
    "sys = B['__import__']('sys')\n"
    "os = B['__import__']('os')\n"
    "type = B['type']\n"
)


def _runner(**layers: bool) -> SandboxRunner:
    return LayersOffRunner(node_timeout=2.0, memory_mb=256, extra_helpers={"lookup": lambda key: key}, **layers)


@pytest_asyncio.fixture
async def checked():
    runner = _runner()
    yield runner
    await runner.close()


@pytest_asyncio.fixture
async def hook_only():
    runner = _runner(static_checks=False)
    yield runner
    await runner.close()


async def _values(runner: SandboxRunner) -> dict[str, str]:
    return {v.name: v.summary for v in await runner.variables()}


# -- layer 1: the format walk through a named tuple's `format` field ----------------------

# A named tuple field `format` puts "format" in `__match_args__`; mixed with UserString,
# `case Template(walk)` binds the string's own `format`, over a template held in a variable.
FORMAT_WALK = """
import collections
Fields = collections.namedtuple('Fields', 'format')
class Template(collections.UserString, Fields):
    pass
def reach(path):
    match Template('{0.' + path + '.nowhere}'):
        case Template(walk):
            try:
                walk(print)
            except AttributeError as exc:
                return exc.obj
real = reach('__globals__[__builtins__][__import__]')
sys = real('sys')
change = reach('__globals__[__builtins__][setattr]')
change(sys.modules['agent.sandbox.audit'], '_ATTRIBUTE_CHANGES', 'open os.listdir')
opener = reach('__globals__[__builtins__][open]')
opener('written-by-node', 'w').write('pwned')
written = 'yes'
"""


async def test_a_named_tuple_format_field_does_not_walk_to_the_real_builtins(checked, drive):
    outcome = await drive(checked, FORMAT_WALK)
    assert outcome.status == "error" and outcome.error.startswith("forbidden:"), outcome
    assert "written" not in await _values(checked)


def test_positional_class_patterns_are_judged_like_attributes():
    for cls in ("bool", "bytearray", "bytes", "dict", "float", "frozenset", "int", "list", "set", "str", "tuple"):
        assert check_code(f"match x:\n    case {cls}(y):\n        pass", {"x"}) is None, cls
    refused = {
        "match x:\n    case Point(a, b):\n        pass": "forbidden: positional sub-patterns of `Point`",
        "match x:\n    case collections.Counter(c):\n        pass": "forbidden: positional sub-patterns",
        "str = Point\nmatch x:\n    case str(f):\n        pass": "forbidden: positional sub-patterns of `str`",
    }
    for code, reason in refused.items():
        assert (check_code(code, {"x", "Point", "collections"}) or "").startswith(reason), code
    # a variable of an earlier node named like a builtin is not the builtin
    assert check_code("match x:\n    case str(f):\n        pass", {"x", "str"})
    # keywords and bare class patterns stay as they were
    assert check_code("match x:\n    case Point(x=a, y=b):\n        pass", {"x", "Point"}) is None
    assert check_code("match x:\n    case Point():\n        pass", {"x", "Point"}) is None


def test_named_tuple_fields_are_judged_like_attributes():
    for code in (
        "import collections\nN = collections.namedtuple('N', 'format')",
        "import collections\nN = collections.namedtuple('N', ['x', 'mro'])",
        "from collections import namedtuple\nN = namedtuple('N', 'x, gi_frame')",
        "from collections import namedtuple as nt\nN = nt('N', field_names='vformat')",
    ):
        assert (check_code(code) or "").startswith("forbidden:"), code
    assert check_code("import collections\nN = collections.namedtuple('N', 'name, count')") is None


async def test_computed_named_tuple_fields_are_judged_when_the_class_is_made(checked, drive):
    outcome = await drive(checked, "import collections\nN = collections.namedtuple('N', 'for' + 'mat')")
    assert outcome.status == "error" and "forbidden: attribute `.format`" in outcome.error, outcome
    outcome = await drive(checked, "import collections\nN = collections.namedtuple('N', ['x', 'obj'], rename=True)")
    assert outcome.status == "error" and "forbidden: attribute `.obj`" in outcome.error, outcome
    ok = "import collections\nP = collections.namedtuple('P', 'name ' + 'count')\np = P('mug', 2)\nn = p.count"
    outcome = await drive(checked, ok)
    assert outcome.status == "completed" and (await _values(checked))["n"] == "2", outcome


async def test_user_string_and_friends_are_not_handed_out(checked, drive):
    for name in ("UserString", "UserList", "UserDict"):
        assert check_code(f"from collections import {name}") is None  # a missing name, not a refusal
        outcome = await drive(checked, f"import collections\nC = collections.{name}")
        assert outcome.status == "error" and "AttributeError" in outcome.error, (name, outcome)


# Attributes of the built-in exceptions that carry only what node code gave them (text, numbers,
# its own values). Any other data attribute (`AttributeError.obj`: the object whose lookup
# failed, inside a format walk an object node code never held) must be refused.
PLAIN_EXCEPTION_ATTRIBUTES = {
    "args", "name", "path", "name_from", "msg", "filename", "filename2", "lineno", "offset",
    "end_lineno", "end_offset", "text", "print_file_and_line", "errno", "strerror", "characters_written",
    "code", "value", "encoding", "object", "start", "end", "reason", "message", "exceptions",
}


def test_exception_attributes_that_carry_objects_are_refused():
    checked_any = set()
    for value in vars(builtins).values():
        if not (isinstance(value, type) and issubclass(value, BaseException)):
            continue
        for cls in value.__mro__:
            for attr, member in vars(cls).items():
                if attr.startswith("_") or callable(member):
                    continue
                checked_any.add(attr)
                if attr not in PLAIN_EXCEPTION_ATTRIBUTES:
                    refusal = check_code(f"try:\n    pass\nexcept {value.__name__} as e:\n    x = e.{attr}")
                    assert (refusal or "").startswith(f"forbidden: attribute `.{attr}`"), (value, attr)
    assert "obj" in checked_any
    assert check_code("match e:\n    case AttributeError(obj=o):\n        pass", {"e"})


# -- the helpers lead nowhere, with the static check off ---------------------------------

# Follows every reference a function, method, cell, generator or instance exposes (into modules
# and classes only when `everywhere`) and names what it found of the worker.
WALK = REAL + """
getattr = B['getattr']
seen = set()
keep = []
found = []
refused = []
while todo:
    o = todo.pop()
    if id(o) in seen or isinstance(o, (str, int, float, bool, bytes, type(None))):
        continue
    seen.add(id(o))
    keep.append(o)
    kind = type(o).__name__
    if kind in ('Worker', '_State', 'HookState', 'Output', 'Snapshots', 'ImportIndex'):
        found.append(kind)
    if isinstance(o, (type, type(sys))):
        if everywhere:
            todo.extend(o.__dict__.values())
            if isinstance(o, type):
                todo.extend(type.__subclasses__(o))
        continue
    if kind in ('tuple', 'list', 'set', 'frozenset', 'deque'):
        todo.extend(o)
    elif isinstance(o, dict) or kind == 'mappingproxy':
        todo.extend(o.values())
    elif kind == 'cell' and o.cell_contents is not o:
        todo.append(o.cell_contents)
    for attr in ('__self__', '__func__', '__closure__', '__wrapped__', '__defaults__', '__kwdefaults__',
                 '__globals__', '__dict__', 'gi_frame', 'gi_yieldfrom', 'f_locals', 'f_back', 'func', 'args',
                 'keywords'):
        try:
            todo.append(getattr(o, attr))
        except (AttributeError, ValueError):
            pass
        except PermissionError as exc:
            refused.append(str(exc))
found = sorted(set(found))
refused = sorted(set(refused))
"""


async def test_the_helpers_lead_to_nothing_of_the_worker(hook_only, drive):
    start = "todo = [print, run, lookup, __builtins__['__import__']]\neverywhere = False\n"
    outcome = await drive(hook_only, start + WALK)
    assert outcome.status == "completed", outcome
    values = await _values(hook_only)
    assert values["found"] == "[]", values["found"]
    assert "gi_frame" in values["refused"]  # the frame behind a helper is the hook's to refuse


async def test_no_module_or_class_leads_to_the_worker(hook_only, drive):
    """Every module's globals, every class's attributes (through `object.__subclasses__()`), and onwards."""
    start = REAL + "todo = list(sys.modules.values()) + [B['object']]\neverywhere = True\n"
    outcome = await drive(hook_only, start + WALK + "walked = len(seen)")
    assert outcome.status == "completed", outcome
    values = await _values(hook_only)
    assert values["found"] == "[]", values["found"]
    assert int(values["walked"]) > 5000  # the walk did go everywhere


@pytest.mark.parametrize(
    "code,reason",
    [
        ("f = sys._getframe(0).f_back", "PermissionError: forbidden: sys._getframe"),
        ("h = sys.modules['signal'].getsignal(10)", "AttributeError"),
        ("h = sys.modules['_signal'].getsignal(2)", "AttributeError"),
        ("h = sys.modules['signal'].signal(10, print)", "AttributeError"),
    ],
    ids=["frame", "getsignal", "_signal-getsignal", "signal"],
)
async def test_no_frame_or_signal_handler_leads_to_the_worker(hook_only, drive, code, reason):
    outcome = await drive(hook_only, REAL + code)
    assert outcome.status == "error" and outcome.error.startswith(reason), outcome
    outcome = await drive(hook_only, "import collections\nP = collections.namedtuple('P', 'a b')\np = P(1, 2)")
    assert outcome.status == "completed", outcome  # namedtuple no longer needs a frame


async def test_the_helpers_still_work_in_every_way_node_code_uses_them(checked, drive, make_env):
    code = (
        "print('a', 2, sep='-', end='!\\n')\n"
        "obs = run('look')\n"
        "echo = lookup(['mug', 1])\n"
        "import json\n"
        "n = json.loads('[1]')[0]\n"
    )
    env = make_env(default="You see a desk.")
    outcome = await drive(checked, code, env)
    assert outcome.status == "completed", outcome
    assert env.actions == ["look"] and outcome.output == "a-2!\nYou see a desk.\n", outcome
    values = await _values(checked)
    assert values["obs"] == "You see a desk." and values["echo"] == "['mug', 1]" and values["n"] == "1"
    outcome = await drive(checked, "run('x')\nrun('y')", make_env(), stop_after=1)
    assert outcome.status == "aborted", outcome


async def test_a_helper_called_from_inside_another_still_works(hook_only, drive, make_env):
    """Node code's `__str__` runs inside `print` and `run`: it may print again."""
    code = (
        "class Loud:\n"
        "    def __init__(self, word):\n"
        "        self.word = word\n"
        "    def __str__(self):\n"
        "        print('str of', self.word)\n"
        "        return self.word\n"
        "print(Loud('hi'), 2)\n"
        "obs = run(Loud('look'))\n"
    )
    env = make_env(default="You see a desk.")
    outcome = await drive(hook_only, code, env)
    assert outcome.status == "completed", outcome
    assert env.actions == ["look"], env.actions
    assert outcome.output == "str of hi\nhi 2\nstr of look\nYou see a desk.\n", outcome.output


# -- layer 3: the hook binds what it uses when it is made --------------------------------

REWRITE_AUDIT = REAL + """
class Everything:
    def __contains__(self, item):
        return True
    def __call__(self, *args, **kwargs):
        return self
    def __getattr__(self, name):
        return self
    def __bool__(self):
        return True
audit = sys.modules['agent.sandbox.audit']
audit.HookState.own_call = True
for name in list(audit.__dict__):
    if name not in ('__name__', '__dict__'):
        B['setattr'](audit, name, Everything())
"""


@pytest.mark.parametrize(
    "code,reason",
    [
        ("B['open']('written-by-node', 'w').write('x')", "forbidden: open"),
        ("B['open']('/etc/passwd').read()", "forbidden: open"),
        ("names = os.listdir('.')", "forbidden: os.listdir"),
        ("os.kill(os.getpid(), 0)", "forbidden: os.kill"),
        ("s = B['__import__']('socket')", "forbidden: import socket"),
        ("f = (i for i in [1]).gi_frame", "forbidden: attribute .gi_frame"),
    ],
    ids=["open-write", "open-read", "listdir", "kill", "socket", "frame"],
)
async def test_rewriting_the_audit_module_opens_nothing(hook_only, drive, code, reason):
    outcome = await drive(hook_only, REWRITE_AUDIT + code + "\ndone = 'yes'")
    assert outcome.status == "error" and outcome.error == f"PermissionError: {reason}", outcome
    assert "done" not in await _values(hook_only)


def test_no_finalizer_of_node_code_runs_inside_the_workers_own_call():
    """The hook lets frames through for the worker's own call: node code's garbage may not be collected then."""
    import gc

    from agent.sandbox.audit import HookState, audit_hook

    state = HookState()
    hook = audit_hook(state, frozenset())
    verdicts: list[str] = []

    class Garbage:
        def __init__(self) -> None:
            self.me = self  # a cycle: only the collector frees it, when allocations trigger it

        def __del__(self) -> None:
            try:
                hook("sys._getframe", ())
                verdicts.append("let through")
            except PermissionError:
                verdicts.append("refused")

    def allocate() -> None:
        for _ in range(20_000):
            Garbage()

    assert gc.isenabled()
    state.own(allocate)
    assert gc.isenabled()
    gc.collect()
    assert verdicts and "let through" not in verdicts, verdicts[:3]
