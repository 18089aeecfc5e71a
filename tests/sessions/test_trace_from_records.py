"""`export --trace` without `--exec` has the documented recode.trace.v1 shape, read from the journal alone:
meta's token totals, seconds and roles; each call's reason, attempt and cut_at; each action's done and won.
The journal's answer records keep a refusal's reason (no replay needed to recover it).

Real parts: `recode-tui run` and `export`, ALFWorld, the real openai client against the local
OpenAI-compatible server on 127.0.0.1 answering from the bundled demo script, an empty and a cut answer first.
"""

from __future__ import annotations

import json

import pytest

from mockllm.openai_server import OpenAICompatibleServer, Reply, script_responder
from recode_tui.setup.build import DEMO_SCRIPT
from tests.eval.helpers import profiles_file, recode

pytestmark = pytest.mark.usefixtures("node_code_in_process")  # in-process: the trace's shape is the subject


def test_the_default_trace_export_carries_totals_reasons_attempts_cuts_and_the_winning_action(tmp_path):
    demo = script_responder(str(DEMO_SCRIPT))
    answered = []

    def respond(prompt: str):
        answered.append(prompt)
        if len(answered) == 1:  # the second answer (the empty one never reaches here) rambles past max_tokens
            return Reply("<think>" + "let me think " * 40, "length")
        return demo(prompt)

    with OpenAICompatibleServer(respond) as server:
        server.inject("empty")  # the first answer: empty
        ran = recode(tmp_path, "run", "--game", "heat-02", "--llm", "profile:local",
                     "--profiles", str(profiles_file(tmp_path, server.base_url)), "--quiet")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    served = [c for c in server.calls if c.status == 200]
    [folder] = (tmp_path / "sessions").iterdir()
    exported = recode(tmp_path, "export", str(folder), "--trace")
    assert exported.returncode == 0, exported.stderr
    document = json.loads(exported.stdout)
    meta, items = document["meta"], document["trace"]
    assert meta["no_exec"] is True
    assert (meta["input_tokens"], meta["output_tokens"]) == (sum(c.prompt_tokens for c in served),
                                                             sum(c.completion_tokens for c in served))
    assert meta["llm_calls"] == len(served) and meta["roles"]["main"]["calls"] == len(served)
    calls = [i for i in items if i["type"] == "llm_call"]
    empty, cut, taken = calls[:3]
    assert not empty["accepted"] and "the answer was empty" in empty["reason"] and empty["attempt"] == 1
    assert not cut["accepted"] and cut["reason"].startswith("the answer was cut at max_tokens=") and cut["attempt"] == 2
    assert cut["cut_at"] > 0 and "cut_at" not in taken
    assert taken["accepted"] and taken["reason"] == "" and taken["attempt"] == 3
    assert all("seconds" in c for c in calls)
    actions = [i for i in items if i["type"] == "action"]
    assert actions[-1]["done"] is True and actions[-1]["won"] is True
    assert not any(a["done"] for a in actions[:-1])
    journal = [json.loads(line) for line in (folder / "journal.jsonl").read_text().splitlines()]
    refused = [r for r in journal if r.get("type") == "answer" and not r["accepted"]]
    assert [r["reason"] == c["reason"] for r, c in zip(refused, (empty, cut))] == [True, True]
