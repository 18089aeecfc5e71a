"""A footer that rebuilds its keys only when what it would show changes."""

from __future__ import annotations

from typing import Any

from textual.widgets import Footer


class SteadyFooter(Footer):
    """Textual's footer, minus the rebuilds that would draw the same keys again.

    Textual recomposes the footer on every focus move and bindings refresh, and a
    rebuild (a widget per key, each styled) is among the dearest things the
    console does per stop; most of them show the keys that are already there.
    """

    _shown: Any = None

    def _keys_on_show(self) -> Any:
        """Everything `Footer.compose` reads: the same value means the same footer."""
        active = self.screen.active_bindings
        keys = tuple((binding, enabled, tooltip, self.app.get_key_display(binding))
                     for _, binding, enabled, tooltip in active.values())
        return self._bindings_ready, self.compact, self.show_command_palette, keys

    async def recompose(self) -> None:
        if not self.is_attached:  # its screen already gone (a replaced run): nothing to draw
            return
        keys = self._keys_on_show()
        if keys == self._shown:
            return
        self._shown = keys
        await super().recompose()
