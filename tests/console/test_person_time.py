"""A person's typing is their time: counted from the stop that asked them, not from the submit."""

from __future__ import annotations

import json
from pathlib import Path

from .page import filled, toy_console
from .test_pilot import PUT_PLAN


async def test_the_time_a_person_spends_typing_is_their_time_not_the_models(tmp_path: Path, toy_env) -> None:
    async with toy_console(sessions_dir=tmp_path) as page:
        await page.step("continue")
        assert page.state == "awaiting expansion"
        # The person reads the prompt for 0.6 s: the stop that asked them moved 0.6 s back stands for it (none is
        # waited); counted from the submit, their time would be about nothing.
        page.screen.debugger.stopped_at -= 0.6
        await page.put_answer(filled(page.editor_text, PUT_PLAN))  # pasted: the time is checked, not the keys
        await page.command("ctrl+s")
        answer = page.agent.tree.root.llm_calls[-1]
        assert answer.accepted and answer.person_seconds >= 0.6 and answer.seconds == 0.0
        await page.step("continue")
        assert page.finished.success and page.finished.person_seconds >= 0.6
        folder = page.app.session_control.session.folder
    records = [json.loads(line) for line in (folder / "journal.jsonl").read_text().splitlines()]
    journaled = next(r for r in records if r["type"] == "answer")
    assert journaled["person_seconds"] >= 0.6 and journaled["seconds"] == 0.0
