"""Parsing, splitting and validating an expansion's code (spec §3)."""

import pytest

from agent.agents.recode.codeblocks import validate
from agent.runtime.code import RACY_AST_PARSE, InvalidAnswer, calls_name, parse_answer, safe_parse, split_blocks


def test_think_and_execute_are_separated():
    parsed = parse_answer("<think>go find it</think>\n<execute>\nx = 1\ny = f(x)\n</execute>")
    assert parsed.thought == "go find it"
    assert parsed.code == "x = 1\ny = f(x)"


def test_missing_execute_is_rejected_for_a_model_but_plain_code_is_fine_for_a_person():
    with pytest.raises(InvalidAnswer, match="no <execute>"):
        parse_answer("just run('look')")
    assert parse_answer("run('look')", allow_plain_code=True).code == "run('look')"
    assert parse_answer("<think>hm</think>\nrun('look')", allow_plain_code=True).code == "run('look')"


def test_code_fences_inside_execute_are_dropped():
    assert parse_answer("<execute>\n```python\nx = 1\n```\n</execute>").code == "x = 1"


def test_split_keeps_compound_statements_whole():
    code = "x = 1\nfor loc in locs:\n    obs = run(f'go to {loc}')\n    if 'apple' in obs:\n        break\ny = g(x)"
    blocks = split_blocks(code)
    assert len(blocks) == 3
    assert blocks[1].startswith("for loc in locs:") and blocks[1].endswith("break")


def test_syntax_error_names_the_line():
    with pytest.raises(InvalidAnswer, match="line 2"):
        validate("x = 1\ny = (\n")


def test_def_is_rejected():
    with pytest.raises(InvalidAnswer, match="def find"):
        validate("def find(x):\n    return x\n")
    with pytest.raises(InvalidAnswer, match="def"):
        validate("async def f():\n    pass\n")


def test_placeholder_inside_loop_or_condition_is_rejected_with_its_line():
    with pytest.raises(InvalidAnswer, match=r"line 2: placeholder `search\(...\)` is inside a loop"):
        validate("for loc in locations:\n    search(loc)\n", {"locations"})
    with pytest.raises(InvalidAnswer, match="inside a condition"):
        validate("if ok:\n    clean_it(obj)\n", {"ok", "obj"})


def test_known_calls_inside_loops_are_fine():
    code = "found = []\nfor loc in locations:\n    obs = run(f'go to {loc}')\n    found.append(len(obs))\n    print(obs)"
    assert len(validate(code, {"run", "print", "locations"})) == 2


def test_empty_code_gives_no_blocks():
    assert validate("   \n") == []


def test_calls_name_finds_only_calls():
    assert calls_name("a, b = find_obj(x)", "find_obj")
    assert not calls_name("y = find_obj + 1", "find_obj")
    assert not calls_name("y = x.find_obj()", "find_obj")


def test_every_line_number_is_a_line_of_the_whole_answer():
    text = "<think>\nplan\n</think>\n<execute>\nx = [1,\n  2)\n</execute>"
    parsed = parse_answer(text)
    assert text.splitlines()[parsed.first_line - 1] == "x = [1,"
    with pytest.raises(InvalidAnswer) as caught:
        validate(parsed.code, first_line=parsed.first_line)
    # Python's own message names a second line: both are lines of the answer
    assert str(caught.value) == (
        "syntax error on line 6: closing parenthesis ')' does not match opening parenthesis '[' on line 5"
    )
    text = "<think>hm</think>\n<execute>\n```python\n\nfor loc in locs:\n    search(loc)\n```\n</execute>"
    parsed = parse_answer(text)
    with pytest.raises(InvalidAnswer, match=r"^line 6: placeholder `search"):
        validate(parsed.code, {"locs"}, parsed.first_line)


def test_text_after_execute_is_not_dropped_silently():
    parsed = parse_answer("<think>t</think>\n<execute>\nx = 1\n</execute>\nAlso, run('look') afterwards.")
    assert parsed.code == "x = 1"
    assert parsed.ignored_tail == "Also, run('look') afterwards."
    assert parsed.notes == ("the text after </execute> was ignored: \"Also, run('look') afterwards.\"",)
    assert parse_answer("<think>t</think>\n<execute>\nx = 1\n</execute>\n\n").notes == ()


def test_a_placeholder_inside_an_expression_is_refused_with_how_to_write_it():
    with pytest.raises(InvalidAnswer) as caught:
        validate("x = helper(1) + 2")
    message = str(caught.value)
    assert message.startswith("line 1: placeholder `helper(...)` is used inside a larger statement")
    assert "`x = helper(1)`, then `x = x + 2`" in message
    with pytest.raises(InvalidAnswer, match=r"`result = find\(obj\)`, then `print\(result\)`"):
        validate("print(find(obj))", {"obj"})
    with pytest.raises(InvalidAnswer, match="placeholder `other"):
        validate("x = helper(other(1))")
    with pytest.raises(InvalidAnswer, match="inside a comprehension"):
        validate("xs = [check(i) for i in range(3)]")
    with pytest.raises(InvalidAnswer, match="inside a condition"):
        validate("match kind:\n    case 'a':\n        handle(kind)", {"kind"})
    # rule 3's own forms, and known calls anywhere, are fine
    assert validate("x = helper(1)\na, b = pair(x)\nnote(x)\ny = len(x) + 2") == [
        "x = helper(1)", "a, b = pair(x)", "note(x)", "y = len(x) + 2"
    ]


def test_code_the_parser_gives_up_on_is_an_invalid_answer():
    huge = "x = " + " + ".join(["1"] * 100_000)
    with pytest.raises(InvalidAnswer, match="nested too deeply to parse"):
        validate(huge)
    with pytest.raises(InvalidAnswer):
        validate("x = 1\0")
    assert not calls_name(huge, "x")
    with pytest.raises(SyntaxError):
        safe_parse("x = " + "-" * 100_000 + "1")  # MemoryError inside the parser


@pytest.mark.skipif(not RACY_AST_PARSE, reason="this CPython's AST converter keeps its depth per call (3.11.8+, 3.12.2+)")
def test_two_threads_parsing_while_finalizers_run_raise_nothing() -> None:
    """On CPython 3.11 before 3.11.8 a parse in one thread, interrupted by a finalizer that lets another thread
    parse, raised "SystemError: AST constructor recursion depth mismatch" (a run ended as an internal error in
    a full test run under load): every `ast.parse`, the traceback module's and pytest's included, now takes one
    lock there. Without the lock this raised in every round here (3.11.2 and 3.11.7)."""
    import ast
    import gc
    import threading
    import time

    class Waits:
        def __init__(self) -> None:
            self.me = self  # a cycle: the collector frees it, in whichever thread it runs

        def __del__(self) -> None:
            time.sleep(0.001)  # a finalizer that waits lets another thread run

    source = "\n".join(f"x{i} = [{', '.join(map(str, range(30)))}]" for i in range(300))
    stop, errors = threading.Event(), []

    def parse_beside() -> None:
        while not stop.is_set():
            try:
                ast.parse("a = (1 + (2 * (3 - (4 / (5 + 6)))))")
            except SystemError as error:
                errors.append(error)

    beside = threading.Thread(target=parse_beside, daemon=True)
    thresholds = gc.get_threshold()
    gc.freeze()  # the collections below look at this test's objects only, not the whole test process's
    beside.start()
    try:
        gc.set_threshold(50, 1, 1)
        for _ in range(3):
            for _ in range(200):
                Waits()
            try:
                ast.parse(source)
            except SystemError as error:
                errors.append(error)
    finally:
        gc.set_threshold(*thresholds)
        stop.set()
        beside.join()
        gc.unfreeze()
    assert errors == []
