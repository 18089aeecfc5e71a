"""The prompt's variable lines: `- name (type): value` with typed, bounded values."""

from agent.varlist import bounded_repr, infer_type, is_kept, prompt_line


def test_inferred_types_read_like_annotations():
    assert infer_type(["a", "b"]) == "list[str]"
    assert infer_type([]) == "list"
    assert infer_type({"a": 1}) == "dict[str, int]"
    assert infer_type(("a", 1)) == "tuple[str, int]"
    assert infer_type([1, "x"]) == "list[int | str]"
    assert infer_type({"k": ["a"]}) == "dict[str, list[str]]"


def test_prompt_line_shape():
    assert prompt_line("locations", ["fridge 1", "shelf 2"]) == "- locations (list[str]): ['fridge 1', 'shelf 2']"
    assert prompt_line("obj", "apple") == "- obj (str): apple"


def test_long_values_are_cut_with_a_marker_saying_how_much():
    text = bounded_repr("x" * 1000, 100)
    assert text.startswith("x" * 100) and text.endswith("[cut 900 more chars]")
    big = list(range(100_000))
    shown = bounded_repr(big, 200)
    assert len(shown) < 300 and "100000 items in all" in shown


def test_kept_names_follow_the_spec():
    import re

    helpers = frozenset({"run", "print", "re"})
    assert is_kept("obj", "apple", helpers)
    assert not is_kept("_tmp", 1, helpers)
    assert not is_kept("run", lambda a: a, helpers)
    assert not is_kept("regex", re, helpers)  # modules
    assert not is_kept("f", lambda: 1, helpers)  # functions
    assert not is_kept("C", int, helpers)  # classes
