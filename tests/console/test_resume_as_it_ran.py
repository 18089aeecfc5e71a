"""A console session resumes as it ran: on its model, in review, with the answer typed before the quit.

Real parts: the command line's parser and the console options it gives (what `recode-tui tui` builds
from them), the real `openai` client against the local OpenAI-compatible server on 127.0.0.1, the real
Textual app through Pilot, real journals; on the toy world (tests/toyenv), played like put-01, node code
run in-process (`tui_app`): where the code runs is not what is checked here.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from agent.sessions.journal_read import read_journal
from mockllm.openai_server import OpenAICompatibleServer
from recode_tui.commands.arguments import console_options
from recode_tui.commands.cli import console_app
from recode_tui.console.app import RecodeApp, build_app
from recode_tui.setup.usage import UsageError
from tests.test_setup import parsed

from recode_tui.console.run.run_state import RunState

from .helpers import SIZE
from tests.settings import in_process

from .page import ConsolePage
from .test_fork_paths import draft_saved
from .test_models_console import GOOD, answers, profiles_file

MINE = GOOD.replace("The vase is on the dining table.", "My own reading: the vase waits on the dining table.")


def tui_app(*argv: str, llm_given: bool | None = None) -> RecodeApp:
    """What `recode-tui ARGV` (a `tui` command line) builds, as `console_app` does (its parser, its options),
    node code in-process."""
    return build_app(console_options(parsed(*argv, llm_given=llm_given)), runner_maker=in_process)


async def test_a_review_session_on_a_named_profile_resumes_on_it_in_review_with_the_typed_answer(
        tmp_path: Path, monkeypatch, toy_game: str) -> None:
    monkeypatch.chdir(tmp_path)  # no ./configs/profiles.yaml
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # no profiles file of the user's
    sessions = str(tmp_path / "sessions")
    with OpenAICompatibleServer(answers(GOOD)) as server:
        profiles = profiles_file(tmp_path, server.base_url)
        app = tui_app("tui", "--game", toy_game, "--llm", "profile:local", "--profiles", profiles,
                      "--review", "--no-break", "--sessions", sessions)
        async with ConsolePage.open(app) as page:
            await page.press("c")
            await page.reached(RunState.REVIEWING)
            page.screen.editor.editor.focus()  # the person goes into the editor (review leaves the focus on the tree)
            page.screen.editor.editor.load_text(MINE)  # the person edits the proposal, leaves the editor, then quits
            folder = app.session_control.session.folder
            await draft_saved(page, folder, "My own reading")
            hint = app.resume_hint()
        assert hint == f"recode-tui tui --resume {folder} --profiles {Path(profiles).resolve()} --review"
        assert read_journal(folder).header.run.model.review

        with pytest.raises(UsageError) as refused:  # without the profiles file: one line naming it
            console_app(parsed("tui", "--resume", folder.name, "--sessions", sessions, llm_given=False))
        assert f"--profiles {Path(profiles).resolve()}" in str(refused.value) and "\n" not in str(refused.value)

        followed = [arg for arg in shlex.split(hint)[1:] if arg != "--review"]  # review goes on from the record
        app = tui_app(*followed, "--sessions", sessions, llm_given=False)
        async with app.run_test(size=SIZE) as pilot:
            page = ConsolePage(pilot)
            await page.replaced()  # the session, replayed
            await page.press("c")
            await page.reached(RunState.REVIEWING)
            assert page.screen.agent.host.llm.name.endswith("profile:local")
            assert page.screen.editor.editor.text == MINE  # offered back, not replaced by the new proposal
            await page.command("ctrl+s")
            assert page.screen.agent.host.done and page.screen.agent.host.finished.success
    records = read_journal(folder).records
    [answer] = [r for r in records if r["type"] == "answer"]
    assert (answer["answer"], answer["source"]) == (MINE, "model+edited")
    assert not [r for r in records if r["type"] == "llm"]  # no switch: it went on with its own model
