"""WebShop in the console: `tui --env webshop --game 0 --llm human`, a person types the plan and wins."""

from __future__ import annotations

from recode_tui.commands.cli import console_app
from recode_tui.commands.parser import build_parser
from recode_tui.console.widgets.status_bar import StatusBar
from tests.envs.webshop_helpers import webshop  # noqa: F401 - the fixture

import pytest

from .page import ConsolePage

pytestmark = pytest.mark.heavy  # the real WebShop behind the console (and the toy world, which has no choices)

# What a person types for goal 0 (16 fl oz color safe, paraben free shampoo under $20) after reading the results.
PLAN = "\n".join(f'run("{a}")' for a in (
    "search[color safe paraben free shampoo 16 fl oz]", "click[b01dqcju2k]", "click[16 fl oz]", "click[Buy Now]"))


async def test_a_person_buys_the_shampoo_in_the_console_and_the_status_shows_the_reward(webshop, tmp_path) -> None:
    args = build_parser().parse_args(["tui", "--env", "webshop", "--game", "0", "--llm", "human",
                                      "--sessions", str(tmp_path / "sessions")])
    async with ConsolePage.open(console_app(args)) as page:
        app = page.app
        status = app.query_one(StatusBar)
        assert "webshop 0" in status.text and "steps 0/30" in status.text
        assert "reward" not in status.text and "score" not in status.text  # no reward before the purchase
        await page.step("continue")
        assert page.state == "awaiting expansion"
        await page.answer(PLAN)
        await page.step("continue")
        assert page.state == "done" and page.screen.agent.host.finished.success
        assert "reward 1.00" in status.text and "steps 4/30" in status.text
        log = " ".join(page.log().split())  # the pane wraps it at 100x30
        assert "Thank you for shopping with us!" in log and "WON" in log


async def test_the_variables_pane_lists_what_the_page_lets_a_person_click(webshop, tmp_path) -> None:
    """A person answering as ReAct sees the page's actions beside the variables: the search bar
    first, then the results' products and paging, then the item's options and Buy Now."""
    from recode_tui.console.widgets.variables import VariablesPane
    from textual.widgets import Static

    from .test_agent_answers_console import submit_once, until_call

    args = build_parser().parse_args(["tui", "--env", "webshop", "--game", "0", "--llm", "human", "--agent", "react",
                                      "--sessions", str(tmp_path / "sessions")])
    async with ConsolePage.open(console_app(args)) as page:
        pilot, app = page.pilot, page.app
        pane = app.query_one(VariablesPane)

        def shown() -> str:
            return str(pane.query_one("#env-choices", Static).render()) if pane.has_class("-choices") else ""

        await until_call(page, "act")
        assert shown() == "search[<your query>]"
        assert pane.query_one("#env-choices").region.height > 0  # on screen, not only in the tree
        assert (await page.put_answer("Thought: search\nAction: search[color safe paraben free shampoo 16 fl oz]")).ok
        await submit_once(page)
        await until_call(page, "act")
        results = shown().splitlines()
        # a search is taken from every page (as the original), then the page's clickables
        assert results[:2] == ["search[<your query>]", "click[back to search]"]
        assert "click[next >]" in results and "click[b01dqcju2k]" in results
        assert (await page.put_answer("Thought: open it\nAction: click[b01dqcju2k]")).ok
        await submit_once(page)
        await until_call(page, "act")
        item = shown().splitlines()
        assert {"click[16 fl oz]", "click[buy now]", "click[< prev]"} <= set(item) and "click[next >]" not in item


async def test_an_environment_without_choices_shows_no_page_actions(tmp_path, toy_game) -> None:
    from recode_tui.console.widgets.variables import VariablesPane

    app = console_app(build_parser().parse_args(["tui", "--game", toy_game, "--llm", "human",
                                                 "--sessions", str(tmp_path / "sessions")]))
    async with ConsolePage.open(app) as page:
        await page.step("continue")
        assert not page.app.query_one(VariablesPane).has_class("-choices")
