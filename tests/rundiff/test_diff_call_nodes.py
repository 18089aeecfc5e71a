"""`diff` names a ReAct call by the turn it was asked on, on both sides: a refused answer (recorded on the
turn) and an accepted one (recorded on the root) of the same turn are the same call's node.

Real parts: `recode-tui eval` and `diff`, ALFWorld in worker processes, the real openai client against the
local OpenAI-compatible server on 127.0.0.1 answering ReAct's demo, its first answer refused on one side.
"""

from __future__ import annotations

import re

import pytest

from mockllm.demos.served import demo_responder
from mockllm.openai_server import OpenAICompatibleServer
from tests.eval.helpers import profiles_file, recode

pytestmark = pytest.mark.heavy  # evaluations start engines in worker processes


def test_a_react_call_is_named_by_its_turn_on_both_sides(tmp_path):
    folders = []
    for name, stumble in (("steady", False), ("stumbles", True)):
        demo = demo_responder()
        asked = []

        def respond(prompt: str, demo=demo, asked=asked, stumble=stumble):
            asked.append(prompt)
            if stumble and len(asked) == 1:
                return "Thought: I should look for the vase first."  # no Action line: refused
            return demo(prompt)

        out = tmp_path / name
        with OpenAICompatibleServer(respond) as server:
            done = recode(tmp_path, "eval", "--agent", "react", "--llm", "profile:local", "--profiles",
                          str(profiles_file(tmp_path, server.base_url)), "--games", "put-01", "-c", "1",
                          "--out", str(out), "--no-progress")
        assert done.returncode == 0, done.stdout + done.stderr
        folders.append(out / "journals" / "put-01")
    diff = recode(tmp_path, "diff", str(folders[0]), str(folders[1]))
    assert diff.returncode == 0, diff.stderr
    called = re.findall(r"^  ([AB]): call 1 \(act\) for (n\d+)", diff.stdout, re.M)
    assert len(called) == 2, diff.stdout
    assert called[0][1] == called[1][1] == "n1", called  # turn 1 on both sides, never the root n0
