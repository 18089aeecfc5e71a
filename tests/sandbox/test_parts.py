"""The sandbox's parts that need no worker process: the parent's kept namespace, the node clock, reply
checks and the worker's snapshots and summaries."""

from __future__ import annotations

import base64
import pickle

import pytest

from agent.sandbox import clock, kept, protocol
from agent.sandbox.capture import Output, summarise, summary_changes
from agent.sandbox.snapshots import Snapshots


def test_a_reply_of_another_type_or_missing_a_field_is_a_mismatch() -> None:
    assert protocol.reply_mismatch("eval", {"t": "value", "type": "int", "summary": "1"}) is None
    assert protocol.reply_mismatch("eval", {"t": "fail", "error": "x"}) is None
    assert "'value' to a 'cond'" in (protocol.reply_mismatch("cond", {"t": "value", "type": "int"}) or "")
    assert protocol.reply_mismatch("eval", {"t": "value", "type": "int"}) is not None  # no summary


async def test_a_helper_reply_carries_plain_data_or_the_error() -> None:
    async def slow(x: int) -> int:
        return x + 1

    helpers = {"add": lambda a, b: a + b, "slow": slow, "bad": lambda: (lambda: 0)}
    assert await protocol.helper_reply(helpers, {"name": "add", "args": [1, 2]}) == {"op": "reply", "value": 3}
    assert await protocol.helper_reply(helpers, {"name": "slow", "args": [1]}) == {"op": "reply", "value": 2}
    assert "no helper 'gone'" in (await protocol.helper_reply(helpers, {"name": "gone"}))["error"]
    assert "error" in await protocol.helper_reply(helpers, {"name": "bad"})  # a function does not pickle


def test_the_node_clock_counts_only_between_resume_and_pause(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [100.0]
    monkeypatch.setattr(clock.time, "monotonic", lambda: now[0])
    node = clock.NodeClock()
    node.resume()
    now[0] += 2.0
    node.pause()
    now[0] += 50.0  # the parent's turn: not the node's time
    assert node.busy == 2.0
    assert node.remaining(5.0) == 3.0  # starts a segment
    now[0] += 1.0
    assert node.remaining(5.0) == 2.0
    node.reset()
    assert node.busy == 0.0


def _snapshot(order: list[str], blobs: dict[str, bytes], unsaved: list[str] = ()) -> dict:
    return {"order": order, "blobs": {k: base64.b64encode(v).decode() for k, v in blobs.items()},
            "unsaved": list(unsaved), "imports": [["j", "json", ""]]}


def test_the_kept_namespace_follows_changes_and_keeps_unsent_blobs() -> None:
    names = kept.KeptNamespace()
    assert names.empty
    names.apply({"changes": [["a", "int", "1", "new"], ["b", "list", "[]", "new"]],
                 "snapshot": _snapshot(["a", "b"], {"a": b"A", "b": b"B"})})
    assert list(names.summaries) == ["a", "b"] and names.imported_names == {"j"}
    # b unchanged (no blob sent): the old one is kept; c never pickled; a removed
    changes = names.apply({"changes": [["a", "int", "1", "removed"], ["c", "gen", "<g>", "new"]],
                           "snapshot": _snapshot(["b", "c"], {}, unsaved=["c"])})
    assert [c.change for c in changes] == ["removed", "new"]
    assert names.snapshot == {"b": b"B", "c": None}
    request, lost = names.restore_request()
    assert request["items"] == [("b", b"B")] and lost == ["c"]
    lost = names.restored({"items": [["b", "list", "[]"]], "lost": []}, lost)
    assert lost == ["c"] and "c" not in names.snapshot and list(names.summaries) == ["b"]


def test_the_parent_holds_at_most_max_snapshot_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kept, "MAX_SNAPSHOT_BYTES", 5)
    names = kept.KeptNamespace()
    names.apply({"changes": [], "snapshot": _snapshot(["a", "b"], {"a": b"AAAA", "b": b"BB"})})
    assert names.snapshot == {"a": b"AAAA", "b": None}


def test_worker_snapshots_send_only_what_changed() -> None:
    snaps = Snapshots()
    items = [1, 2]
    namespace = {"n": 5, "items": items}
    first = snaps.take(namespace, {})
    assert set(first["blobs"]) == {"n", "items"} and first["order"] == ["n", "items"]
    assert snaps.take(namespace, {})["blobs"] == {}  # same immutable, same pickle: nothing sent
    items.append(3)
    again = snaps.take(namespace, {"j": ("json", "")})
    assert set(again["blobs"]) == {"items"} and again["imports"] == [["j", "json", ""]]
    assert pickle.loads(base64.b64decode(again["blobs"]["items"])) == [1, 2, 3]
    namespace["gen"] = (x for x in ())
    del namespace["n"]
    last = snaps.take(namespace, {})
    assert last["unsaved"] == ["gen"] and "n" not in snaps.blobs


def test_summaries_and_output_as_replies_say_them() -> None:
    before = summarise({"a": 1, "b": "x"})
    after = summarise({"a": 2, "c": [1]})
    assert summary_changes(before, after) == [["a", "int", "2", "changed"], ["c", "list[int]", "[1]", "new"],
                                              ["b", "str", "x", "removed"]]
    out = Output(5)
    out.write("abc")
    out.write("defg")
    assert out.delta() == "abcde\n[output cut at 5 chars]\n" and out.full and out.delta() == ""
