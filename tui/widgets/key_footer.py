"""The footer of keys: Textual's Footer, rebuilt only when the keys it shows change.

Textual's Footer recomposes (a widget a key, each restyled) on every change of focus or
screen, even when the keys shown stay the same: a move between the timeline and a table
then costs more than the redraw it causes."""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer


class KeyFooter(Footer):
    _shown: tuple | None = None  # the keys on show: (binding, enabled, tooltip), ...

    def bindings_changed(self, screen: Screen) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self._recompose_if_changed)

    async def _recompose_if_changed(self) -> None:
        if not self.is_attached:
            return
        shown = (self.show_command_palette, *(
            (binding, enabled, tooltip)
            for _node, binding, enabled, tooltip in self.screen.active_bindings.values()))
        if shown != self._shown:
            self._shown = shown
            await self.recompose()
