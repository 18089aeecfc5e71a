"""The workspace plays an edited few-shot file on a bundled game and says when it no longer wins."""

from __future__ import annotations

from recode_tui.console.app import build_app
from textual.widgets import TextArea

from .helpers import SIZE, armed, command, published, started, wait_for
from .test_workspace import PUT, open_workspace, scripted
from tests.settings import console_options


async def test_an_edited_example_that_no_longer_wins_is_reported() -> None:
    app = build_app(console_options(), scripted())
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await command(pilot, app, "c")
        ws = await open_workspace(pilot, app)
        assert ws.current_file == PUT and PUT not in ws.plays  # an unedited file is not played
        original = ws.draft.text(PUT)
        editor = ws.query_one("#ws-editor", TextArea)
        checks = ws.query_one("#ws-checks")

        async def load(text: str, verdict: str) -> None:
            rendered = armed(pilot.app, ws.prompt_rendered)
            editor.load_text(text)
            await published(rendered, "the re-render")
            await wait_for(pilot, lambda: verdict in str(checks.render()), what=verdict)

        # Still valid code, so the static checks pass, but the take is never believed.
        broken = original.replace('if "You pick up" in obs:', 'if "You pick up" in obs and False:')
        await load(broken, "✗ examples do not win put-01: no pending nodes left")
        assert all(c.ok for c in ws.checks[PUT]) and not ws.plays[PUT].won
        # A harmless edit (a longer thought) still wins.
        await load(original.replace("I need a keychain", "I need one keychain"), "✓ examples win put-01 in")
        assert ws.plays[PUT].won and ws.plays[PUT].steps > 0
        # Back to the bundled text: nothing edited, nothing to report.
        rendered = armed(pilot.app, ws.prompt_rendered)
        editor.load_text(original)
        await published(rendered, "the re-render")
        assert PUT not in ws.plays and "examples win" not in str(checks.render())
