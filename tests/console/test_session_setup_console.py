"""The console side of a session's set-up: the recorded model, a way on from a broken replay, person time.

Real parts: the real `openai` client against the local OpenAI-compatible server
on 127.0.0.1, the real Textual app through Pilot, real journals, the command line (`recode-tui run`);
on the toy world (tests/toyenv: "put a vase in sidetable.", the vase on diningtable 1), node code run
in-process in the console (tests/console/page.py).
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from agent.runtime import events as ev
from agent.sessions.header import SessionParent
from agent.sessions.journal_read import read_journal
from agent.sessions.model_record import profiles_in_use
from agent.sessions.session import start_session
from mockllm.openai_server import OpenAICompatibleServer
from recode_tui.commands.cli import nothing_opened
from recode_tui.setup.build import make_agent, make_llm
from recode_tui.console.run.run_state import RunState
from recode_tui.console.screens.llm_picker import LLMPicker
from recode_tui.console.screens.replay import ReplayScreen
from recode_tui.console.widgets.node_detail import NodeDetail

import pytest

from .helpers import SIZE, drawn, queues_drained
from .page import ConsolePage, toy_app
from .test_fork_paths import resumed
from .test_models_console import GOOD, WANDER, answers, profiles_file, rendered
from tests.settings import episode_named, in_process, run_settings
from envs.registry import EpisodeRef

TOY = "toy:vase-1"


@pytest.fixture(autouse=True)
def toy(toy_env):
    return toy_env


@pytest.fixture(scope="module")
def won_toy(tmp_path_factory, toy_module) -> Path:
    """vase-1 won by the gold model through `recode-tui run` (in-process), recorded once: its session folder."""
    from recode_tui.commands.cli import main
    from tests.settings import node_code_in_process

    sessions = tmp_path_factory.mktemp("won") / "sessions"
    with node_code_in_process():  # what the run records, not where its code ran, is what the tests read
        assert main(["run", "--game", TOY, "--llm", "gold", "--quiet", "--sessions", str(sessions)]) == 0
    (folder,) = sessions.iterdir()
    return folder


def won_copy(won_toy: Path, sessions: Path) -> Path:
    """A copy of the won session in `sessions`, for one test to change."""
    return Path(shutil.copytree(won_toy, sessions / won_toy.name))


async def profile_session(tmp_path: Path, server: OpenAICompatibleServer) -> Path:
    """A run under `profile:local` that stops after its first action, as a killed run would."""
    profiles = profiles_file(tmp_path, server.base_url)
    agent = make_agent(run_settings(max_steps=80), episode_named(TOY), make_llm("profile:local", profiles),
                       runner_maker=in_process)
    session = start_session(agent, tmp_path / "sessions", EpisodeRef.parse(TOY), "profile:local",
                            profiles=profiles_in_use("profile:local", profiles))
    while not isinstance(await agent.step(), ev.ObservationReceived):
        pass
    session.writer.close()
    await agent.close()
    return session.folder


async def test_resume_goes_on_with_the_recorded_model_lists_its_profiles_and_a_rewind_keeps_the_switch(
        tmp_path: Path) -> None:
    with OpenAICompatibleServer(answers(WANDER, GOOD)) as server:
        folder = await profile_session(tmp_path, server)
        # `recode-tui tui --resume ID --profiles FILE`: no --llm; the profile is read from the console's own file
        app = toy_app(breakpoints=[], sessions_dir=tmp_path / "sessions", resume=folder,
                      profiles=str(tmp_path / "profiles.yaml"))
        async with app.run_test(size=SIZE) as pilot:
            await resumed(pilot, app)  # at start-up: the first run's screen is replaced before the page could see it
            page = ConsolePage(pilot)
            assert page.screen.agent.host.llm.name == "profile:local"
            assert "LLM profile:local" in page.screen.query_one("#status").text
            picker = await page.opened("L")
            assert isinstance(picker, LLMPicker)
            assert "profile:local" in [o.id for o in picker.query_one("#llm-choices").options]
            await page.press("escape")
            await page.step("continue")
            assert page.screen.agent.host.done and page.state == "done" and page.screen.agent.host.finished.success
            picker = await page.opened("L")  # a switch is journaled: a resume or a fork goes on with it
            picker.dismiss("human")
            await drawn(app)  # the picker's choice is handled: the run switched
            assert page.screen.agent.host.llm.name == "human"
            # A rewind goes on with the LLM the session switched to, not the one the console started with.
            await page.select("n2")
            await page.replaced("R")
            assert app.session_control.how == "rewound"
            assert page.screen.agent.host.llm.name == "human"
        assert len(server.calls) == 2
    assert read_journal(folder).llm_setup == ("human", None)
    assert [r["spec"] for r in read_journal(folder).records if r["type"] == "llm"] == ["human"]


def corrupt(folder: Path, line: int) -> None:
    lines = (folder / "journal.jsonl").read_text().splitlines(keepends=True)
    lines[line - 1] = lines[line - 1][: len(lines[line - 1]) // 2] + "\n"
    (folder / "journal.jsonl").write_text("".join(lines))


async def test_a_corrupt_journal_line_offers_to_go_on_from_the_last_good_point(tmp_path: Path, won_toy: Path,
                                                                               node_code_in_process) -> None:
    sessions = tmp_path / "sessions"
    folder = won_copy(won_toy, sessions)
    before = (folder / "journal.jsonl").read_bytes()
    corrupt(folder, 4)
    app = toy_app("gold", breakpoints=[], sessions_dir=sessions, resume=folder)
    async with app.run_test(size=SIZE) as pilot:
        page = ConsolePage(pilot)
        control = app.session_control
        await queues_drained(app)  # the start-up's loading and replay are under way
        await app.workers.wait_for_complete()
        await drawn(app)  # what they posted is handled: the replay screen says how it failed
        screen = app.screen
        assert isinstance(screen, ReplayScreen) and screen.failed
        assert "corrupt at line 4" in screen.failed and screen.salvageable
        assert "c continue from the last point that replayed cleanly" in rendered(
            screen.query_one("#replay-detail-text").content)
        assert control.session is None  # quitting now opens nothing: the command line exits 1, naming the flag
        assert "--from-last-good" in nothing_opened(control.failure, folder.name)
        await page.replaced("c")
        branch = control.session.folder
        assert branch.name == f"{folder.name}~last-good" and branch.parent == sessions
        assert len(page.screen.agent.tree) > 1  # the replayed part is on screen
        await page.step("continue")
        assert page.screen.agent.host.done and page.screen.agent.host.finished.success
    journal = read_journal(branch)
    assert journal.header.parent == SessionParent(folder.name, 2, "last good point", str(folder))
    assert journal.finished["success"] is True
    assert (folder / "journal.jsonl").read_bytes() != before  # the old session is left as it was (still corrupt)


class ReadingClock:
    """The clock the review measures a person's time by (`mockllm.review`'s `time`): the real one, plus the
    seconds the test says the person spent reading. Time a person takes is moved on, not waited."""

    def __init__(self) -> None:
        self.read = 0.0

    def monotonic(self) -> float:
        return time.monotonic() + self.read


async def test_review_time_is_person_time_and_a_failed_call_is_journaled(tmp_path: Path, node_code_in_process,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from mockllm import review

    clock = ReadingClock()
    monkeypatch.setattr(review, "time", clock)
    with OpenAICompatibleServer(answers(GOOD), latency=0.05, retry_after=0.001) as server:
        server.inject("500")
        sessions = tmp_path / "sessions"
        app = toy_app("profile:local", profiles=profiles_file(tmp_path, server.base_url), review=True,
                      breakpoints=[], sessions_dir=sessions)
        async with ConsolePage.open(app) as page:
            await page.step("continue")  # the 500: the run pauses
            await page.press("c")
            await page.reached(RunState.REVIEWING)
            assert "tokens 0+0" not in page.screen.query_one("#status").text  # the proposal's tokens are spent already
            clock.read += 0.8  # the person reads the proposal for 0.8 s
            await page.command("ctrl+s")
            assert page.screen.agent.host.done and page.screen.agent.host.finished.success
            await page.press("home")
            root = page.screen.agent.tree.root
            assert root.llm_calls[-1].person_seconds >= 0.8 and root.llm_calls[-1].seconds < 0.8
            detail = rendered(page.screen.query_one(NodeDetail).content)
            assert "· person " in detail  # node detail: the model's time and the person's, apart
            folder = app.session_control.session.folder
    records = [json.loads(line) for line in (folder / "journal.jsonl").read_text().splitlines()]
    [failed] = [r for r in records if r["type"] == "llm_failed"]
    assert "500" in failed["error"]
    [answer] = [r for r in records if r["type"] == "answer"]
    assert answer["person_seconds"] >= 0.8 and answer["seconds"] < 0.8  # review time is not model time
    assert answer["input_tokens"] > 0
    [finished] = [r for r in records if r["type"] == "finished"]
    assert finished["person_seconds"] >= 0.8 and finished["llm_seconds"] < 0.8 and finished["llm_failures"] == 1
    # A replay shows the recorded tokens, cost and both times, not the replay's own.
    from agent.sessions.session import resume_session
    from mockllm.scripted import ScriptedLLM
    from envs.registry import make_env

    again, _ = await resume_session(folder, ScriptedLLM([]), make_env)
    shown = again.agent.tree.root.llm_calls[-1]
    await again.agent.close()
    again.writer.close()
    assert (shown.input_tokens, shown.output_tokens, shown.cost) == (
        answer["input_tokens"], answer["output_tokens"], answer["cost"])
    assert shown.person_seconds == answer["person_seconds"] and shown.seconds == answer["seconds"]


async def test_the_sessions_list_shows_last_activity_and_u_keeps_unfinished_ones(tmp_path: Path, won_toy: Path) -> None:
    from recode_tui.console.screens.sessions import SessionsScreen

    sessions = tmp_path / "sessions"
    won_copy(won_toy, sessions)
    async with ConsolePage.open(toy_app(game="toy:key-1", sessions_dir=sessions)) as page:  # this console: unfinished
        screen = await page.opened("S")
        assert isinstance(screen, SessionsScreen)
        await page.work_done("sessions-list")
        assert screen.loaded
        assert [r.result for r in screen.rows] == ["unfinished", "won"]  # latest activity first
        table = screen.query_one("#sessions-table")
        assert "last activity" in [str(c.label) for c in table.columns.values()]
        await page.press("u")
        await page.work_done("sessions-list")
        assert len(screen.rows) == 1  # unfinished only
        assert screen.rows[0].folder == page.app.session_control.session.folder and table.row_count == 1
        await page.press("u")
        await page.work_done("sessions-list")
        assert table.row_count == 2  # all sessions again
