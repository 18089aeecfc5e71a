"""Ordinary ReCode node code must keep working in the sandbox, with the same
semantics as the in-process runner."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.heavy  # the sandbox worker


OBSERVATION = (
    "You are in the middle of a room. Looking quickly around you, you see a cabinet 1, "
    "a cabinet 2, a countertop 1, a desk 1, a drawer 3, and a sinkbasin 1."
)
SCRIPT = {
    "go to cabinet 1": "The cabinet 1 is closed.",
    "open cabinet 1": "You open the cabinet 1. In it, you see a mug 2.",
    "go to desk 1": "On the desk 1, you see a mug 1, a pen 2, and a book 3.",
    "take mug 1 from desk 1": "You pick up the mug 1 from the desk 1.",
}

# (id, code, expected status, expected variables {name: summary}, expected actions)
ORDINARY: list[tuple[str, str, str, dict[str, str], list[str]]] = [
    (
        "regex-receptacles",
        "receptacles = re.findall(r'a ([a-z]+ \\d+)', observation)",
        "completed",
        {"receptacles": "['cabinet 1', 'cabinet 2', 'countertop 1', 'desk 1', 'drawer 3', 'sinkbasin 1']"},
        [],
    ),
    (
        "loop-with-run-and-break",
        "for loc in ['cabinet 1', 'desk 1']:\n"
        "    obs = run(f'go to {loc}')\n"
        "    if 'mug' in obs:\n"
        "        found = loc\n"
        "        break",
        "completed",
        {"found": "desk 1", "loc": "desk 1"},
        ["go to cabinet 1", "go to desk 1"],
    ),
    (
        "parse-objects-from-observation",
        "obs = run('go to desk 1')\n"
        "objects = re.findall(r'(?:a|an) ([a-z]+ \\d+)', obs)\n"
        "mugs = [o for o in objects if o.startswith('mug')]",
        "completed",
        {"objects": "['mug 1', 'pen 2', 'book 3']", "mugs": "['mug 1']"},
        ["go to desk 1"],
    ),
    (
        "dict-counting",
        "counts = {}\nfor word in observation.replace(',', '').split():\n"
        "    counts[word] = counts.get(word, 0) + 1\n"
        "top = max(counts, key=counts.get)",
        "completed",
        {"top": "a"},
        [],
    ),
    (
        "sorted-set-of-kinds",
        "kinds = sorted(set(re.findall(r'([a-z]+) \\d+', observation)))",
        "completed",
        {"kinds": "['cabinet', 'countertop', 'desk', 'drawer', 'sinkbasin']"},
        [],
    ),
    (
        "json-import",
        "import json\ndata = json.loads('{\"a\": [1, 2, 3]}')\ntotal = sum(data['a'])",
        "completed",
        {"total": "6", "data": "{'a': [1, 2, 3]}"},
        [],
    ),
    (
        "collections-counter-most-common",
        "from collections import Counter, defaultdict\n"
        "c = Counter('hello world')\ntop = c.most_common(2)\n"
        "groups = defaultdict(list)\ngroups['a'].append(1)\nplain = dict(groups)",
        "completed",
        {"top": "[('l', 3), ('o', 2)]", "plain": "{'a': [1]}"},
        [],
    ),
    (
        "math-and-itertools",
        "import math, itertools\nr = math.sqrt(16) + math.floor(2.5)\n"
        "pairs = list(itertools.product([1, 2], ['a']))",
        "completed",
        {"r": "6.0", "pairs": "[(1, 'a'), (2, 'a')]"},
        [],
    ),
    (
        "literal-format-and-fstring",
        "target = 'desk 1'\nmsg = 'go to {}'.format(target)\nobs = run(msg)\n"
        "line = '{0:>6}|{1[0]}'.format(42, ['x'])\nsaid = f'{target!r} has {len(obs)} chars'",
        "completed",
        {"msg": "go to desk 1", "line": "    42|x", "said": "'desk 1' has 54 chars"},
        ["go to desk 1"],
    ),
    (
        "while-loop-with-run",
        "i = 0\nwhile i < 3:\n    obs = run('look')\n    i += 1",
        "completed",
        {"i": "3"},
        ["look", "look", "look"],
    ),
    (
        "try-except",
        "try:\n    v = int('x')\nexcept ValueError as e:\n    v = -1\n    why = str(e)",
        "completed",
        {"v": "-1", "why": "invalid literal for int() with base 10: 'x'"},
        [],
    ),
    (
        "lambda-sort-key",
        "xs = sorted(['b 2', 'a 10', 'c 1'], key=lambda s: int(s.split()[1]))",
        "completed",
        {"xs": "['c 1', 'b 2', 'a 10']"},
        [],
    ),
    (
        "underscore-loop-variable",
        "for _ in range(2):\n    run('wait')",
        "completed",
        {},
        ["wait", "wait"],
    ),
    (
        "shadowing-a-forbidden-builtin",
        "object = 'mug 1'\nobs = run(f'take {object} from desk 1')",
        "completed",
        {"object": "mug 1"},
        ["take mug 1 from desk 1"],
    ),
    (
        "random-seeded",
        "import random\nrandom.seed(0)\npick = random.choice(['a', 'b', 'c'])\nrolls = [random.randint(1, 6) for _ in range(3)]",
        "completed",
        {},
        [],
    ),
    (
        "placeholder-stub",
        "obj, loc = find_object(instruction, observation)",
        "stub",
        {},
        [],
    ),
    (
        "placeholder-with-keywords-after-actions",
        "obs = run('go to desk 1')\nok = put_object(obj='mug 1', target='desk 1')",
        "stub",
        {"obs": "On the desk 1, you see a mug 1, a pen 2, and a book 3."},
        ["go to desk 1"],
    ),
    (
        "regex-match-kept",
        "m = re.search(r'(\\w+) (\\d+)', 'mug 12')\nname, number = m.group(1), int(m.group(2))",
        "completed",
        {"name": "mug", "number": "12"},
        [],
    ),
    (
        "class-and-instance",
        "class Box:\n    pass\nb = Box()\nb.items = [1]\nn = len(b.items)",
        "completed",
        {"n": "1"},
        [],
    ),
]


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "code,status,expected,actions", [o[1:] for o in ORDINARY], ids=[o[0] for o in ORDINARY]
)
async def test_ordinary_snippet(runner, drive, make_env, code, status, expected, actions):
    await runner.set_variables({"instruction": "put a clean mug in desk.", "observation": OBSERVATION})
    env = make_env(SCRIPT)
    outcome = await drive(runner, code, env)
    assert outcome.status == status, outcome
    assert env.actions == actions
    values = {v.name: v.summary for v in await runner.variables()}
    for name, summary in expected.items():
        assert values.get(name) == summary, (name, values.get(name))
    for name in ("re", "run", "print", "json", "math", "Box", "Counter"):
        assert name not in values


@pytest.mark.asyncio
async def test_stub_name_and_changes(runner, drive):
    await runner.set_variables({"instruction": "x", "observation": "y"})
    outcome = await drive(runner, "obj, loc = find_object(instruction, observation)")
    assert (outcome.status, outcome.stub_name, outcome.changes) == ("stub", "find_object", ())
    # a NameError for a name that is not called is a real error
    outcome = await drive(runner, "y = missing + 1")
    assert outcome.status == "error" and outcome.error == "NameError: name 'missing' is not defined"


@pytest.mark.asyncio
async def test_every_run_result_is_printed(runner, drive, make_env):
    env = make_env({"look": "A room."})
    outcome = await drive(runner, "print('start')\nobs = run('look')\nprint('got', len(obs))", env)
    assert outcome.output == "start\nA room.\ngot 7\n"


@pytest.mark.asyncio
async def test_variable_changes_new_changed_removed(runner, drive):
    outcome = await drive(runner, "items = [1]\ntmp = 'x'")
    assert [(c.name, c.change) for c in outcome.changes] == [("items", "new"), ("tmp", "new")]
    outcome = await drive(runner, "items.append(2)")  # in-place mutation counts as a change
    assert [(c.name, c.type, c.summary, c.change) for c in outcome.changes] == [
        ("items", "list[int]", "[1, 2]", "changed")
    ]
    outcome = await drive(runner, "del tmp")
    assert [(c.name, c.change) for c in outcome.changes] == [("tmp", "removed")]
    assert [v.name for v in await runner.variables()] == ["items"]
    assert await runner.names() >= {"items", "run", "print", "re"}


@pytest.mark.asyncio
async def test_stop_aborts_the_node(runner, drive, make_env):
    env = make_env()
    outcome = await drive(runner, "for i in range(10):\n    run('look')\ndone = True", env, stop_after=2)
    assert outcome.status == "aborted"
    assert env.actions == ["look", "look"]
    assert "done" not in {v.name for v in await runner.variables()}


@pytest.mark.asyncio
async def test_errors_keep_partial_changes(runner, drive):
    outcome = await drive(runner, "a = 1\nb = [1][5]")
    assert outcome.status == "error" and outcome.error == "IndexError: list index out of range"
    assert [(c.name, c.change) for c in outcome.changes] == [("a", "new")]


@pytest.mark.asyncio
async def test_bind_prompt_lines_full_value(runner):
    await runner.set_variables({"observation": "You see a mug 1 and a pen 2."})
    changes = await runner.bind_expressions({"objs": "re.findall(r'a (\\w+ \\d)', observation)"})
    assert [(c.name, c.change) for c in changes] == [("objs", "new")]
    assert await runner.prompt_lines(["objs", "nope"]) == ["- objs (list[str]): ['mug 1', 'pen 2']"]
    await runner.set_variables({"long": "x" * 1000})
    assert len(await runner.full_value("long")) == 1000
    assert await runner.full_value("nope") == "<nope is not bound>"


@pytest.mark.asyncio
async def test_bad_bindings_and_conditions_raise(runner):
    from agent.sandbox.runner import SandboxError

    with pytest.raises(SandboxError, match="forbidden: open"):
        await runner.bind_expressions({"f": "open('/etc/passwd')"})
    with pytest.raises(SandboxError, match="NameError"):
        await runner.evaluate_condition("undefined_name > 1")
    with pytest.raises(SandboxError, match="forbidden: attribute"):
        await runner.evaluate_condition("().__class__")
    await runner.set_variables({"n": 3})
    assert await runner.evaluate_condition("n > 2") is True
    assert await runner.evaluate_condition("n > 5") is False


@pytest.mark.asyncio
async def test_watch_expressions_give_type_and_value_and_are_checked_like_conditions(runner, drive):
    from agent.sandbox.runner import SandboxError

    await drive(runner, "seen = {'drawer 1': ['pen 1'], 'shelf 2': []}")
    assert await runner.evaluate("len(seen)") == ("int", "2")
    assert await runner.evaluate("sorted(seen)") == ("list[str]", "['drawer 1', 'shelf 2']")
    with pytest.raises(SandboxError, match="NameError"):
        await runner.evaluate("places[:2]")
    with pytest.raises(SandboxError, match="forbidden: open"):
        await runner.evaluate("open('/etc/passwd').read()")


@pytest.mark.asyncio
async def test_extra_helpers_are_served_by_the_parent(drive):
    from agent.sandbox.runner import SandboxRunner

    calls = []

    async def ask(question, loud=False):
        calls.append(question)
        return question.upper() if loud else question

    runner = SandboxRunner(node_timeout=1.0, memory_mb=256, extra_helpers={"ask": ask})
    try:
        outcome = await drive(runner, "a = ask('where is the mug?', loud=True)\nb = ask(['x'])")
        assert outcome.status == "completed", outcome
        values = {v.name: v.summary for v in await runner.variables()}
        assert values == {"a": "WHERE IS THE MUG?", "b": "['x']"}
        assert calls == ["where is the mug?", ["x"]]
        assert "ask" in await runner.names()
        outcome = await drive(runner, "ask = 1")
        assert outcome.error == "forbidden: assignment to the helper `ask`"
    finally:
        await runner.close()


@pytest.mark.asyncio
async def test_class_patterns_that_follow_the_rules_still_work(runner, drive):
    code = (
        "from collections import namedtuple\n"
        "Spot = namedtuple('Spot', 'name count')\n"
        "match Spot('desk 1', 2):\n"
        "    case Spot(name=where, count=n):\n"  # positional sub-patterns would name no attribute
        "        first = (where, n)\n"
        "match 'mug 1':\n"
        "    case str(upper=up):\n"
        "        loud = up()\n"
        "has = hasattr('x', 'upper')"
    )
    outcome = await drive(runner, code)
    assert outcome.status == "completed", outcome
    values = {v.name: v.summary for v in await runner.variables()}
    assert (values["first"], values["loud"], values["has"]) == ("('desk 1', 2)", "MUG 1", "True")
    outcome = await drive(runner, "match first:\n    case tuple(pair):\n        again = pair")  # matches itself
    assert outcome.status == "completed", outcome


@pytest.mark.asyncio
async def test_non_ascii_identifiers_run_as_the_check_lets_them(runner, drive):
    outcome = await drive(runner, "café = 1\nnaïve = café + 1")
    assert outcome.status == "completed", outcome
    assert {v.name: v.summary for v in await runner.variables()} == {"café": "1", "naïve": "2"}
    outcome = await drive(runner, "import unicodedata")  # loaded for the compiler, still not for node code
    assert outcome.error.startswith("forbidden: import unicodedata")


@pytest.mark.asyncio
async def test_imports_stay_for_later_nodes_and_survive_a_restart(spinning_runner, drive):
    runner = spinning_runner
    outcome = await drive(runner, "import json\nfrom collections import Counter\nfrom math import sqrt as root")
    assert outcome.status == "completed", outcome
    assert {"json", "Counter", "root"} <= await runner.names()
    assert [v.name for v in await runner.variables()] == []  # not variables: nothing to show
    outcome = await drive(runner, "data = json.loads('[4]')\nn = Counter('aab')['a'] + root(data[0])")
    assert outcome.status == "completed", outcome
    pid = runner.worker_pid
    outcome = await drive(runner, "while True:\n    pass")  # timeout: a fresh worker
    assert outcome.error.startswith("timed out") and runner.worker_pid != pid
    outcome = await drive(runner, "again = json.dumps(Counter('bb'))")
    assert outcome.status == "completed", outcome
    assert {v.name: v.summary for v in await runner.variables()}["again"] == '{"b": 2}'
    assert await runner.evaluate("root(16)") == ("float", "4.0")
