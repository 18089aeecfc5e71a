"""The prompt's variable lines: `- name (type): value` with typed, bounded values."""

from agent.runtime.varlist import bounded_repr, infer_type, is_kept, prompt_line


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


def test_a_first_observation_is_shown_whole_in_the_prompt():
    observation = (
        "You are in the middle of a room. Looking quickly around you, you see "
        + ", ".join(f"a cabinet {n}" for n in range(20, 0, -1))
        + ", a coffeemachine 1, a countertop 3, a countertop 2, a countertop 1, a drawer 3, a drawer 2, "
        "a drawer 1, a fridge 1, a garbagecan 1, a microwave 1, a shelf 3, a shelf 2, a shelf 1, "
        "a sinkbasin 1, a stoveburner 4, a stoveburner 3, a stoveburner 2, a stoveburner 1, and a toaster 1."
    )
    assert 500 < len(observation) < 1000
    assert prompt_line("observation", observation) == f"- observation (str): {observation}"


def test_a_cut_prompt_value_says_the_variable_holds_all_of_it():
    line = prompt_line("obs", "a stove" * 400)
    assert line.endswith("... [display cut here, 1600 more chars; the variable holds the full value]")
    shown = prompt_line("places", [f"cabinet {n}" for n in range(500)])
    assert shown.endswith("[display cut here, 500 items in all; the variable holds the full value]")
    assert bounded_repr("x" * 1000, 100).endswith("[cut 900 more chars]")  # viewers keep the short marker


def test_empty_containers_do_not_make_a_type_label_noisy():
    contents = {"desk 1": ["book 1", "pen 1"], "bed 1": []}
    assert infer_type(contents) == "dict[str, list[str]]"
    assert prompt_line("contents", contents).startswith("- contents (dict[str, list[str]]): ")
    assert infer_type({"a": [], "b": []}) == "dict[str, list]"
    assert infer_type([{}, {"k": 1}]) == "list[dict[str, int]]"
    assert infer_type([[], "x"]) == "list[list | str]"
