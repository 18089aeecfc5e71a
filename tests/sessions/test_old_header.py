"""Journals written before the environment seam (header: game, game_path, game_hash; no episode or
fingerprint) still open and resume. The fixture was recorded on main before the seam, cut after
the first action."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.runtime.prompts import DEFAULT_PROMPTS, PromptSet
from agent.sessions.journal_read import JOURNAL_FILE, read_journal
from envs.alfworld.catalog import resolve_game
from recode_tui.commands.cli import main

pytestmark = pytest.mark.usefixtures("node_code_in_process")  # in-process: old journals' reading is the subject

FIXTURE = Path(__file__).parent / "fixtures" / "old_header_put-01.jsonl"


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_a_journal_with_the_pre_seam_header_resumes_to_the_same_win(tmp_path, capsys) -> None:
    header, *records = _records(FIXTURE)
    assert {"game", "game_path", "game_hash"} <= set(header) and "fingerprint" not in header and "episode" not in header
    # Where the recording was made its game file and prompt set were elsewhere: point them at this checkout's.
    header["game_path"] = str(resolve_game("put-01"))
    prompts = PromptSet(DEFAULT_PROMPTS)
    header["prompt_set"], header["prompt_hash"] = str(prompts.root), prompts.content_hash()
    # The prompt text may have changed since; take it from a fresh recording of the same demo run, so this
    # test is about the header, not the prompt wording.
    fresh_dir = tmp_path / "fresh"
    assert main(["run", "--game", "put-01", "--llm", "demo", "--quiet", "--sessions", str(fresh_dir)]) == 0
    fresh = [r for r in _records(next(fresh_dir.iterdir()) / JOURNAL_FILE) if r.get("type") == "answer"]
    for record, now in zip([r for r in records if r.get("type") == "answer"], fresh):
        assert record["stub"] == now["stub"]
        record["prompt"] = now["prompt"]
    folder = tmp_path / "sessions" / "20261123-160335-put-01-8562"
    folder.mkdir(parents=True)
    (folder / JOURNAL_FILE).write_text("".join(json.dumps(r) + "\n" for r in [header, *records]), encoding="utf-8")
    capsys.readouterr()

    assert main(["run", "--resume", str(folder), "--llm", "demo", "--quiet", "--sessions", str(tmp_path / "sessions")]) == 0
    assert capsys.readouterr().out.startswith("SUCCESS: won — 7 steps, 4 LLM calls")
    journal = read_journal(folder)
    assert journal.header.game_hash == header["game_hash"] and journal.header.fingerprint is None
    actions = [r["action"] for r in journal.records if r.get("type") == "action"]
    assert actions[0] == "go to armchair 1" and actions[-1] == "move vase 1 to sidetable 1" and len(actions) == 7
    assert journal.finished is not None and journal.finished["success"]
