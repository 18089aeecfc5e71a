from agent.sandbox.checks import FORBIDDEN_BUILTINS, check_code


def test_plain_recode_code_passes():
    for code in (
        "obj, loc = find_object(instruction, observation)",
        "for loc in locations:\n    obs = run(f'go to {loc}')",
        "import re, json\nfrom collections import Counter",
        "x = '{} and {:>3}'.format(1, 2)",
        "for _ in range(3):\n    run('look')",
        "not valid python (",  # syntax errors are compile's business
    ):
        assert check_code(code) is None, code


def test_refusals_name_the_reason():
    assert check_code("import os") .startswith("forbidden: import os")
    assert check_code("x = open('f')") == "forbidden: open"
    assert check_code("x.__class__") .startswith("forbidden: attribute `.__class__`")
    assert check_code("run = 1") == "forbidden: assignment to the helper `run`"
    assert check_code("f = g.gi_frame") == "forbidden: attribute `.gi_frame`"
    assert check_code("'{0.x}'.format(1)") == "forbidden: .format with attribute access in a field"


def test_known_variables_may_shadow_forbidden_builtins():
    assert check_code("run(f'take {object}')") == "forbidden: object"
    assert check_code("run(f'take {object}')", known_names={"object"}) is None


def test_exit_and_quit_are_forbidden_even_without_site():
    assert {"exit", "quit", "open", "eval", "exec", "getattr", "globals", "input", "compile"} <= FORBIDDEN_BUILTINS


def test_expressions():
    assert check_code("n > 2", mode="eval") is None
    assert check_code("vars()", mode="eval") == "forbidden: vars"


def test_every_way_to_name_an_attribute_follows_the_same_rules():
    refused = {
        "y = x.__class__": "forbidden: attribute `.__class__`",
        "x.__dict__ = {}": "forbidden: attribute `.__dict__`",
        "del x.__doc__": "forbidden: attribute `.__doc__`",
        "s = f'{x:{x.__class__}}'": "forbidden: attribute `.__class__`",  # a nested f-string format spec
        "match x:\n    case x.__class__:\n        pass": "forbidden: attribute `.__class__`",  # a value pattern
        "match x:\n    case str(__class__=c):\n        pass": "forbidden: attribute `.__class__`",
        "match x:\n    case str(gi_frame=f):\n        pass": "forbidden: attribute `.gi_frame`",
        "match x:\n    case str(format=f):\n        pass": "forbidden: .format used other than as a direct call",
        "from re import f_back": "forbidden: attribute `.f_back`",
        "ok = hasattr(x, 'tb_frame')": "forbidden: attribute `.tb_frame`",
        "ok = hasattr(x, name)": "forbidden: hasattr with an attribute name that is not a string literal",
        "s = '{0.__class__}'.format(x)": "forbidden: .format with attribute access in a field",
        "s = '{0:{1.real}}'.format(x, 1)": "forbidden: .format with attribute access in a field",
        "class C:\n    __match_args__ = ('__class__',)": "forbidden: name `__match_args__`",
    }
    for code, reason in refused.items():
        assert (check_code(code, known_names={"x", "name"}) or "").startswith(reason), code
    for code in (
        "match x:\n    case str(upper=u):\n        y = u()",
        "ok = hasattr(x, 'append')",
        "s = f'{x:>{width}}'",
        "from collections import Counter",
    ):
        assert check_code(code, known_names={"x", "width"}) is None, code


def test_code_the_parser_gives_up_on_is_refused_not_crashed():
    assert check_code("x = " + "+".join(["1"] * 100_000)).startswith("forbidden: code that cannot be checked")
