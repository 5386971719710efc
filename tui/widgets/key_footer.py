"""The footer of keys: Textual's Footer, made to fit the width and rebuilt only when the
keys it shows change.

It shows what fits of the focused widget's keys, in their order, and always `Esc` (back to
the timeline, where that is elsewhere), `?` (every key) and `q`: an 80-column terminal
would otherwise cut the line before the keys that lead to the rest. The command palette's
key comes last, where room is left.

Textual's Footer recomposes (a widget a key, each restyled) on every change of focus or
screen, even when the keys shown stay the same: a move between the timeline and a table
then costs more than the redraw it causes."""

from __future__ import annotations

from collections.abc import Iterator

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

ALWAYS = ("to_timeline", "help", "quit")  # actions shown whatever the width
Shown = tuple[Binding, bool, str]  # (binding, enabled, tooltip)


class KeyFooter(Footer):
    _shown: tuple | None = None  # what was composed: (width, palette, keys ...)

    def __init__(self) -> None:
        super().__init__(compact=True)

    def bindings_changed(self, screen: Screen) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self._recompose_if_changed)

    def on_resize(self) -> None:
        self.call_after_refresh(self._recompose_if_changed)

    def _width(self) -> int:
        return self.size.width or self.app.size.width

    async def _recompose_if_changed(self) -> None:
        if not self.is_attached:
            return
        shown = (self._width(), self.show_command_palette, *(
            (binding, enabled, tooltip)
            for _node, binding, enabled, tooltip in self.screen.active_bindings.values()))
        if shown != self._shown:
            self._shown = shown
            await self.recompose()

    def fitting(self) -> list[Shown]:
        """The keys to show, in order: those in ALWAYS last, the others while they fit."""
        keys: dict[str, Shown] = {}  # one key an action, as Textual's Footer shows them
        for _node, binding, enabled, tooltip in self.screen.active_bindings.values():
            if binding.show and binding.action not in keys:
                keys[binding.action] = (binding, enabled, tooltip)
        always = [keys[action] for action in ALWAYS if action in keys]
        room = self._width() - sum(self._cost(one[0]) for one in always)
        out = []
        for action, one in keys.items():
            if action in ALWAYS:
                continue
            cost = self._cost(one[0])
            if cost <= room:
                out.append(one)
                room -= cost
        return out + always

    def _cost(self, binding: Binding) -> int:
        """Cells a key takes in the compact footer: `key description` and a space."""
        return len(self.app.get_key_display(binding)) + 1 + len(binding.description) + 1

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        keys = self.fitting()
        yield from self._keys(keys)
        palette = self.screen.active_bindings.get(self.app.COMMAND_PALETTE_BINDING)
        room = self._width() - sum(self._cost(one[0]) for one in keys)
        if (self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE
                and palette is not None and self._cost(palette[1]) + 2 <= room):
            _node, binding, enabled, tooltip = palette
            yield FooterKey(binding.key, self.app.get_key_display(binding),
                            binding.description, binding.action, classes="-command-palette",
                            disabled=not enabled,
                            tooltip=binding.tooltip or binding.description)

    def _keys(self, keys: list[Shown]) -> Iterator[FooterKey]:
        for binding, enabled, tooltip in keys:
            yield FooterKey(binding.key, self.app.get_key_display(binding),
                            binding.description, binding.action, disabled=not enabled,
                            tooltip=tooltip).data_bind(compact=Footer.compact)
