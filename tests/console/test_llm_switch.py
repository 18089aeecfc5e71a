"""`L` switches who answers to an LLM made for the run on show: `gold` plays the run's own episode with the
run's own agent, whatever the default game is."""

from __future__ import annotations

from pathlib import Path

from .helpers import drawn
from .page import ConsolePage, toy_app


async def test_switching_to_gold_plays_the_runs_own_episode_not_the_default_games(toy_env, tmp_path: Path) -> None:
    async with ConsolePage.open(toy_app("human", breakpoints=[], sessions_dir=tmp_path)) as page:
        picker = await page.opened("L")
        picker.dismiss("gold")  # the toy world has gold paths; ALFWorld's default game is not this run's
        await drawn(page.app)  # the choice is handled: the run switched
        assert page.screen.agent.host.llm.name == "gold"
        await page.step("continue")
        assert page.state == "done" and page.screen.agent.host.finished.success
