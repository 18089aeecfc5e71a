"""Depth-first traversal in source order (spec §1)."""

from agent.runtime.tree import CodeTree, NodeStatus


def _done(*nodes):
    for node in nodes:
        node.status = NodeStatus.COMPLETED


def test_root_first_then_children_in_source_order():
    tree = CodeTree("solve(instruction, observation)")
    assert tree.next_pending(None) is tree.root
    tree.root.status = NodeStatus.AWAITING_LLM
    a, b, c = tree.add_children(tree.root, ["a = 1", "x = f(a)", "c = 3"])
    assert [n.depth for n in (a, b, c)] == [1, 1, 1]
    assert tree.next_pending(tree.root) is a
    _done(a)
    assert tree.next_pending(a) is b


def test_after_expanding_a_stub_its_children_run_before_its_siblings():
    tree = CodeTree("solve(instruction, observation)")
    tree.root.status = NodeStatus.AWAITING_LLM
    a, b = tree.add_children(tree.root, ["x = f()", "y = 2"])
    a.status = NodeStatus.AWAITING_LLM
    a1, a2 = tree.add_children(a, ["x = 1", "run('look')"])
    assert tree.next_pending(a) is a1
    _done(a1)
    assert tree.next_pending(a1) is a2
    _done(a2)
    # a's subtree is finished: climb to the parent's next pending sibling
    assert tree.next_pending(a2) is b
    _done(b)
    assert tree.next_pending(b) is None


def test_ids_are_unique_and_walk_is_source_order():
    tree = CodeTree("solve(instruction, observation)")
    a, b = tree.add_children(tree.root, ["x = f()", "y = 2"])
    (a1,) = tree.add_children(a, ["x = 1"])
    assert [n.id for n in tree.walk()] == [tree.root.id, a.id, a1.id, b.id]
    assert len({n.id for n in tree.walk()}) == len(tree) == 4
    assert tree.path_to(a1) == [tree.root, a, a1]


def test_export_fields_name_parent_and_children():
    tree = CodeTree("solve(instruction, observation)")
    (a,) = tree.add_children(tree.root, ["x = 1"])
    data = tree.root.to_dict()
    assert data["children"] == [a.id] and data["parent_id"] is None
    assert a.to_dict()["parent_id"] == tree.root.id and a.to_dict()["status"] == "PENDING"
