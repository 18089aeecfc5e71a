"""A console session resumes as it ran: on its model, in review, with the answer typed before the quit.

Real parts: the command line's parser and `console_app` (what `recode-tui tui` builds), the real
`openai` client against the local OpenAI-compatible server on 127.0.0.1, the real Textual app
through Pilot, real journals.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from agent.sessions.journal import read_journal
from mockllm.openai_server import OpenAICompatibleServer
from recode_tui.commands.cli import console_app
from recode_tui.setup.usage import UsageError
from tests.test_setup import parsed

from .helpers import SIZE, started, wait_for
from .test_fork_paths import draft_saved, resumed
from .test_models_console import GOOD, answers, profiles_file, proposal_shown

MINE = GOOD.replace("The vase is on the dining table.", "My own reading: the vase waits on the dining table.")


async def test_a_review_session_on_a_named_profile_resumes_on_it_in_review_with_the_typed_answer(
        tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # no ./configs/profiles.yaml
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # no profiles file of the user's
    sessions = str(tmp_path / "sessions")
    with OpenAICompatibleServer(answers(GOOD)) as server:
        profiles = profiles_file(tmp_path, server.base_url)
        app = console_app(parsed("tui", "--game", "put-01", "--llm", "profile:local", "--profiles", profiles,
                                 "--review", "--no-break", "--sessions", sessions))
        async with app.run_test(size=SIZE) as pilot:
            await started(pilot, app)
            await pilot.press("c")
            await proposal_shown(pilot, app)
            app.debug_screen.editor.editor.load_text(MINE)  # the person edits the proposal, then quits
            folder = app.session_control.session.folder
            await draft_saved(pilot, app, folder, "My own reading")
            hint = app.resume_hint()
        assert hint == f"recode-tui tui --resume {folder} --profiles {Path(profiles).resolve()} --review"
        assert read_journal(folder).header.run.model.review

        with pytest.raises(UsageError) as refused:  # without the profiles file: one line naming it
            console_app(parsed("tui", "--resume", folder.name, "--sessions", sessions, llm_given=False))
        assert f"--profiles {Path(profiles).resolve()}" in str(refused.value) and "\n" not in str(refused.value)

        followed = [arg for arg in shlex.split(hint)[1:] if arg != "--review"]  # review goes on from the record
        app = console_app(parsed(*followed, "--sessions", sessions, llm_given=False))
        async with app.run_test(size=SIZE) as pilot:
            await resumed(pilot, app)
            await pilot.press("c")
            await proposal_shown(pilot, app)
            assert app.debug_screen.agent.llm.name.endswith("profile:local")
            assert app.debug_screen.editor.editor.text == MINE  # offered back, not replaced by the new proposal
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: app.debug_screen.agent.done, what="the end of the run")
            assert app.debug_screen.agent.finished.success
    records = read_journal(folder).records
    [answer] = [r for r in records if r["type"] == "answer"]
    assert (answer["answer"], answer["source"]) == (MINE, "model+edited")
    assert not [r for r in records if r["type"] == "llm"]  # no switch: it went on with its own model
