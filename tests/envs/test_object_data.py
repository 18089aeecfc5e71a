"""The cache's object data: what goes in comes back (shared, cyclic, slots), and reading runs no code."""

from __future__ import annotations

import json
from collections import defaultdict

import pytest

from envs.alfworld.object_data import ObjectDataError, class_name, dumps, loads

CALLS: list[str] = []


class Node:
    def __init__(self, name: str) -> None:
        CALLS.append("__init__")
        self.name = name
        self.children: list[Node] = []
        self.parent: Node | None = None

    def __setstate__(self, state: dict) -> None:
        CALLS.append("__setstate__")
        self.__dict__.update(state)

    def __hash__(self) -> int:
        return hash(self.name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Node) and other.name == self.name


class Slotted:
    __slots__ = ("a", "b")


ALLOWED = {class_name(Node): Node, class_name(Slotted): Slotted}


def test_a_graph_comes_back_with_its_sharing_cycles_and_slots() -> None:
    root, child = Node("root"), Node("child")
    child.parent = root
    root.children.append(child)
    slotted = Slotted()
    slotted.a = (child, frozenset({"x"}))  # `b` never set: stays unset
    value = {"tree": root, "again": child, "by_node": {child: [1, 2.5, None, True]}, "slots": slotted,
             "groups": defaultdict(list, {"k": [root]}), "set": {3, "s"}}
    back = loads(dumps(value, ALLOWED), ALLOWED)
    tree = back["tree"]
    assert tree.children[0] is back["again"] and back["again"].parent is tree  # shared and cyclic
    assert back["by_node"] == {Node("child"): [1, 2.5, None, True]}
    assert back["slots"].a[0] is back["again"] and back["slots"].a[1] == frozenset({"x"})
    with pytest.raises(AttributeError):
        back["slots"].b
    assert back["groups"]["k"][0] is tree and back["groups"].default_factory is list
    assert back["set"] == {3, "s"}


def test_reading_calls_no_constructor_or_method_of_the_class() -> None:
    text = dumps(Node("n"), ALLOWED)
    CALLS.clear()
    back = loads(text, ALLOWED)
    assert CALLS == [] and back.name == "n"


@pytest.mark.parametrize("root", [
    ["o", "os:system", [], {}],  # a class the caller did not list
    ["o", "builtins:open", [], {}],
    ["D", "os.system", []],  # a defaultdict factory other than a plain container
    ["o", class_name(Slotted), [], {"__class__": "x"}],  # a slot the class does not have
    ["o", class_name(Node), [1, "x"], {}],  # attributes that are not a mapping of names
    ["x", 1],
    {"a": 1},  # a JSON object where a value belongs
])
def test_data_naming_anything_else_is_refused(root) -> None:
    with pytest.raises(ObjectDataError):
        loads(json.dumps({"format": "recode-tui.object-data.v1", "root": root}), ALLOWED)


def test_a_pickle_or_other_bytes_are_refused() -> None:
    import pickle

    for blob in (pickle.dumps(Node("n")), b"", b"[1, 2]", b'{"format": "other", "root": 1}'):
        with pytest.raises(ObjectDataError):
            loads(blob, ALLOWED)


def test_writing_a_class_not_listed_is_refused_so_it_is_never_kept() -> None:
    with pytest.raises(ObjectDataError, match="not one of the classes"):
        dumps([Node("n")], {})
