"""WebShop in the console: `tui --env webshop --game 0 --llm human`, a person types the plan and wins."""

from __future__ import annotations

from recode_tui.commands.cli import build_parser, console_app
from recode_tui.console.widgets.status_bar import StatusBar
from tests.envs.webshop_helpers import webshop  # noqa: F401 - the fixture

from .helpers import SIZE, command, started, type_text

# What a person types for goal 0 (16 fl oz color safe, paraben free shampoo under $20) after reading the results.
PLAN = "\n".join(f'run("{a}")' for a in (
    "search[color safe paraben free shampoo 16 fl oz]", "click[b01dqcju2k]", "click[16 fl oz]", "click[Buy Now]"))


async def test_a_person_buys_the_shampoo_in_the_console_and_the_status_shows_the_reward(webshop, tmp_path) -> None:
    args = build_parser().parse_args(["tui", "--env", "webshop", "--game", "0", "--llm", "human",
                                      "--sessions", str(tmp_path / "sessions")])
    app = console_app(args)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        status = app.query_one(StatusBar)
        assert "webshop 0" in status.text and "steps 0/30" in status.text
        assert "reward" not in status.text and "score" not in status.text  # no reward before the purchase
        await command(pilot, app, "c")
        assert app.run_state == "awaiting expansion"
        await type_text(pilot, PLAN)
        await command(pilot, app, "ctrl+s")
        await command(pilot, app, "c")
        assert app.run_state == "done" and app.engine.finished.success
        assert "reward 1.00" in status.text and "steps 4/30" in status.text
        log = "\n".join(app.env_log.lines)
        assert "Thank you for shopping with us!" in log and "WON" in log
