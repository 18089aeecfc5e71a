"""The workspace plays an edited few-shot file on a bundled game and says when it no longer wins.

Real parts: ALFWorld (the bundled game the examples are played on, in the sandbox worker); the console's
own run executes its node code in-process.
"""

from __future__ import annotations

import pytest
from textual.widgets import TextArea


from .helpers import armed, published
from .page import ConsolePage, alfworld_app
from .test_workspace import PUT, open_workspace_page, scripted

pytestmark = pytest.mark.heavy  # the examples are played on ALFWorld's put-01


async def test_an_edited_example_that_no_longer_wins_is_reported() -> None:
    async with ConsolePage.open(alfworld_app(scripted())) as page:
        pilot = page.pilot
        await page.step("continue")
        ws = await open_workspace_page(page)
        assert ws.current_file == PUT and PUT not in ws.plays  # an unedited file is not played
        original = ws.draft.text(PUT)
        editor = ws.query_one("#ws-editor", TextArea)
        checks = ws.query_one("#ws-checks")

        async def load(text: str, verdict: str) -> None:
            rendered = armed(pilot.app, ws.prompt_rendered)
            editor.load_text(text)
            await published(rendered, "the re-render")
            await page.work_done("play-examples")
            assert verdict in str(checks.render())

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
