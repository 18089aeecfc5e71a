"""`recode-tui eval` against a model whose answers are built to stall a parser: 1 MB of unclosed
```py fences and no <execute>. Such an answer is refused on its size without being parsed (the retry
prompt's view of it parses nothing either), every other answer's parse is linear, and so the episode's
wall clock ends it on time while the other episode plays on. Before, a regex over the answer took the
square of its length while holding the interpreter: the episode overran its clock by minutes and froze
every other episode. The real `recode-tui eval` process, its environment workers, the bundled
OpenAI-compatible server; the figure (how far past its clock) is `benchmarks/bench_eval.py`'s.

The model answers the stuck episode HOSTILE `HOSTILE_ANSWERS` times and then holds its next call until the
process is done: every refusal the test reads is made, and the clock ends an episode waiting on its model
instead of one asking and refusing in a loop for all of it (two processes busy for 8 s, ~7 CPU-s).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from agent.runtime.verdict import MAX_ANSWER_CHARS
from envs import registry
from mockllm.openai_server import OpenAICompatibleServer

from .helpers import HeldCalls, cli_env, profiles_file, read_report

pytestmark = pytest.mark.heavy  # starts environment workers in other processes: not in `make quick`

HOSTILE = "```py\n" * 180_000  # 1.08 MB; before, parsing 20,000 of these lines took 30 s
CLOCK = 8  # each episode's; the good one needs its sandbox worker and two calls within it on a loaded machine
HOSTILE_ANSWERS = 3  # the stuck episode's answers before its next call is held (a refusal, then two asked again)


def solved(episode_ref: str) -> str:
    code = "".join(f"run({action!r})\n" for action in registry.gold_actions(f"toy:{episode_ref}"))
    return f"<think>the known way</think><execute>\n{code}</execute>"


def test_a_megabyte_answer_built_to_stall_the_parser_is_refused_and_the_episode_ends_at_its_clock(tmp_path, toy_env):
    hostile_left, lock = [HOSTILE_ANSWERS], threading.Lock()

    def answered_now(prompt: str) -> bool:
        """key-1's calls, and coin-1's first HOSTILE_ANSWERS; coin-1's next call waits for the release."""
        if "put a key in box" in prompt:
            return True
        with lock:
            hostile_left[0] -= 1
            return hostile_left[0] >= 0

    model = HeldCalls(free=answered_now,
                      respond=lambda prompt: solved("key-1") if "put a key in box" in prompt else HOSTILE)
    with OpenAICompatibleServer(model) as server:
        out = tmp_path / "out"
        try:
            result = subprocess.run(
                [sys.executable, "-m", "recode_tui", "eval", "--env", "toy", "--games", "coin-1,key-1", "-c", "2",
                 "--llm", "profile:local", "--profiles", str(profiles_file(tmp_path, server.base_url)),
                 "--max-rewrite", "100000", "--episode-timeout", str(CLOCK), "--out", str(out), "--no-progress"],
                capture_output=True, text=True, env=cli_env(tmp_path),
                timeout=300)  # a guard, not a figure: before, the process was still parsing when this ran out
        finally:
            model.release.set()
        asked = [call.prompt for call in server.calls if call.status == 200 and "take a coin" in call.prompt]
    assert "Traceback" not in result.stderr, result.stderr
    episodes = {e["game"]: e for e in read_report(out)["episodes"]}
    assert episodes["key-1"]["success"]  # the other episode played on
    stuck = episodes["coin-1"]
    assert not stuck.get("success") and stuck["reason"] == f"episode wall clock {CLOCK} s exceeded"
    records = [json.loads(line) for line in (Path(stuck["journal"]) / "journal.jsonl").read_text().splitlines()]
    refused = [r for r in records if r.get("type") == "answer" and not r.get("accepted")]
    assert refused and all(r["answer"] == HOSTILE for r in refused)  # journaled whole
    assert not model.arrived.empty()  # the clock ended the episode while it waited on its model
    assert len(asked) >= 3  # refused and asked again within the clock, more than once, with the reason:
    assert (f"the answer is {len(HOSTILE):,} characters, over the limit of {MAX_ANSWER_CHARS:,}; "
            "answer again with only what this step needs") in asked[1]
    assert len(result.stdout) < 10_000  # the answer is not printed
