"""A person's typing is their time: counted from the stop that asked them, not from the submit."""

from __future__ import annotations

import json
from pathlib import Path

from .helpers import SIZE, command, started, type_text
from .page import toy_app
from .test_pilot import PUT_PLAN


async def test_the_time_a_person_spends_typing_is_their_time_not_the_models(tmp_path: Path, toy_env) -> None:
    app = toy_app(sessions_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")
        assert app.debug_screen.run_state == "awaiting expansion"
        await pilot.pause(0.6)  # the person reads the prompt
        await pilot.press("down")
        await type_text(pilot, PUT_PLAN)
        await command(pilot, app, "ctrl+s")
        answer = app.debug_screen.agent.tree.root.llm_calls[-1]
        assert answer.accepted and answer.person_seconds >= 0.6 and answer.seconds == 0.0
        await command(pilot, app, "c")
        assert app.debug_screen.agent.host.finished.success and app.debug_screen.agent.host.finished.person_seconds >= 0.6
        folder = app.session_control.session.folder
    records = [json.loads(line) for line in (folder / "journal.jsonl").read_text().splitlines()]
    journaled = next(r for r in records if r["type"] == "answer")
    assert journaled["person_seconds"] >= 0.6 and journaled["seconds"] == 0.0
