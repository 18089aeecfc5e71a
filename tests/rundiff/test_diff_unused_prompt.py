"""A changed prompt file that no prompt of the runs used (an example of another task type) is reported as
unused by these episodes, never as "the LLM did not react to the change".

Real parts: `recode-tui eval` and `diff`, ALFWorld in worker processes, the real openai client against the
local OpenAI-compatible server on 127.0.0.1 answering from the bundled demo script.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agent.runtime.prompts import DEFAULT_PROMPTS
from mockllm.openai_server import OpenAICompatibleServer, script_responder
from recode_tui.setup.build import DEMO_SCRIPT
from tests.eval.helpers import profiles_file, recode

pytestmark = pytest.mark.heavy  # evaluations start engines in worker processes

UNUSED = "alfworld/examples/heat.txt"  # no prompt of a put episode shows the heat example


def edited_prompts(tmp_path: Path) -> Path:
    folder = tmp_path / "edited"
    shutil.copytree(DEFAULT_PROMPTS, folder)
    path = folder / UNUSED
    path.write_text("# Heat it in the microwave, never the stove.\n" + path.read_text(encoding="utf-8"),
                    encoding="utf-8")
    return folder


def test_a_changed_file_no_prompt_used_is_unused_by_the_episodes_not_ignored_by_the_llm(tmp_path):
    before, after = tmp_path / "before", tmp_path / "after"
    with OpenAICompatibleServer(script_responder(str(DEMO_SCRIPT))) as server:
        profiles = str(profiles_file(tmp_path, server.base_url))
        for out, extra in ((before, []), (after, ["--prompts", str(edited_prompts(tmp_path))])):
            done = recode(tmp_path, "eval", "--llm", "profile:local", "--profiles", profiles, "--games", "put-01",
                          "-c", "1", "--out", str(out), "--no-progress", *extra)
            assert done.returncode == 0, done.stdout + done.stderr
    served = [c.prompt for c in server.calls if c.status == 200]
    assert len(served) % 2 == 0 and served[: len(served) // 2] == served[len(served) // 2:]  # byte-identical

    one = recode(tmp_path, "diff", str(before / "journals" / "put-01"), str(after / "journals" / "put-01"))
    assert one.returncode == 0, one.stderr
    assert f"  {UNUSED} (changed)" in one.stdout
    assert "did not react" not in one.stdout
    assert "the changed prompt files are unused by this episode" in one.stdout

    both = recode(tmp_path, "diff", str(before), str(after))
    assert "did not react" not in both.stdout
    assert "the change reached the prompts of 0 of 1 episodes: unused by these episodes" in both.stdout

    document = json.loads(recode(tmp_path, "diff", str(before), str(after), "--json").stdout)
    prompts = document["episodes"][0]["diff"]["prompts"]
    assert prompts["differ"] is True and prompts["first_call"] is None and prompts["unused"] is True
