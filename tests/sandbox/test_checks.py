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
