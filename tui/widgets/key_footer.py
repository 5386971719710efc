"""The footer of keys: Textual's Footer, made to fit the width, its keys drawn as one line.

It shows what fits of the focused widget's keys, in their order, and always `Esc` (back to
the timeline, where that is elsewhere), `?` (every key) and `q`: an 80-column terminal
would otherwise cut the line before the keys that lead to the rest. The command palette's
key comes last, where room is left.

Textual's Footer is a widget a key, all of them recomposed (removed, made, styled, laid
out again) on every change of focus: in an app taken through eight focus changes that was a
third of its CPU time. Here the keys are one widget, `KeyLine`, drawn as one line the way
Textual's FooterKey draws each (the same styles, a cell between keys) and redrawn when the
keys shown change; a click or hover finds the key under the mouse. Only the palette's key
is a FooterKey of its own, docked right as in Textual's Footer."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import ActiveBinding, Binding
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

ALWAYS = ("to_timeline", "help", "quit")  # actions shown whatever the width
Shown = tuple[Binding, bool, str]  # (binding, enabled, tooltip)


class KeyLine(Widget):
    """The footer's keys, `key description` each, a cell between them: what Textual's
    compact FooterKeys draw, in one widget."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {"footer-key--key", "footer-key--description", "footer-key--hover"}
    DEFAULT_CSS = """
    KeyLine {
        width: 1fr;
        height: 1;
        text-wrap: nowrap;
        background: $footer-item-background;
        pointer: pointer;
        .footer-key--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        .footer-key--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        .footer-key--hover {
            background: $block-hover-background;
        }
    }
    """

    def __init__(self) -> None:
        super().__init__()
        self.keys: list[Shown] = []
        self._hover: int | None = None  # the index of the key under the mouse

    def show(self, keys: list[Shown]) -> None:
        self.keys = keys
        self._hover = None
        self.refresh()

    def _spans(self) -> list[tuple[int, int]]:
        """Each key's cells, [start, end), as render() draws them."""
        spans, x = [], 0
        for binding, _enabled, _tooltip in self.keys:
            width = len(self.app.get_key_display(binding)) + 1 + len(binding.description)
            spans.append((x, x + width))
            x += width + 1
        return spans

    def render(self) -> Text:
        key_style = self.get_component_rich_style("footer-key--key")
        description_style = self.get_component_rich_style("footer-key--description")
        base = self.rich_style
        gap = self.parent.rich_style if isinstance(self.parent, Widget) else base
        text = Text(no_wrap=True, overflow="crop", end="")
        for index, (binding, enabled, _tooltip) in enumerate(self.keys):
            # a FooterKey's `-disabled`: dim
            under = base + Style(dim=True) if not enabled else base
            key = Text.assemble((self.app.get_key_display(binding), key_style),
                                (" " + binding.description, description_style))
            key.stylize_before(under)
            if index == self._hover:  # a hovered FooterKey's background, under its text
                hover = self.get_component_rich_style("footer-key--hover")
                key.stylize(Style(bgcolor=hover.bgcolor))
            if index:
                text.append(" ", gap)  # the compact FooterKey's right margin
            text.append_text(key)
        return text  # the rest of the line (the last key's margin too) is the background

    def _key_at(self, x: int) -> int | None:
        return next((i for i, (start, end) in enumerate(self._spans()) if start <= x < end),
                    None)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        index = self._key_at(event.x)
        if index != self._hover:
            self._hover = index
            self.tooltip = (self.keys[index][2] or None) if index is not None else None
            self.refresh()

    def on_leave(self) -> None:
        if self._hover is not None:
            self._hover = None
            self.refresh()

    def on_mouse_down(self, event: events.MouseDown) -> None:
        index = self._key_at(event.x)
        if index is None:
            return
        binding, enabled, _tooltip = self.keys[index]
        if enabled:
            self.app.simulate_key(binding.key)
        else:
            self.app.bell()


class KeyFooter(Footer):
    _shown: tuple | None = None  # what is drawn: (width, palette, keys ...)
    _palette: tuple | None = None  # the palette's key as composed: (binding, enabled, tip)
    _pending = False  # an update is asked for after the next refresh

    def __init__(self) -> None:
        super().__init__(compact=True)
        self.line = KeyLine()

    def bindings_changed(self, screen: Screen) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self._update_later()

    def on_resize(self) -> None:
        self._update_later()

    def _update_later(self) -> None:
        """One update after the next refresh, however many changes ask for it before."""
        if not self._pending:
            self._pending = True
            self.call_after_refresh(self._update_if_changed)

    def _width(self) -> int:
        return self.size.width or self.app.size.width

    async def _update_if_changed(self) -> None:
        self._pending = False
        if not self.is_attached:
            return
        active = self.screen.active_bindings  # worked out at each call: once here
        shown = (self._width(), self.show_command_palette, *(
            (binding, enabled, tooltip) for _node, binding, enabled, tooltip in active.values()))
        if shown == self._shown:
            return
        self._shown = shown
        keys = self.fitting(active)
        if not self.line.is_attached or self._palette_key(keys, active) != self._palette:
            await self.recompose()  # the first keys; the palette's key came, went or changed
        else:
            self.line.show(keys)

    def fitting(self, active: dict[str, ActiveBinding]) -> list[Shown]:
        """The keys to show, in order: those in ALWAYS last, the others while they fit."""
        keys: dict[str, Shown] = {}  # one key an action, as Textual's Footer shows them
        for _node, binding, enabled, tooltip in active.values():
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

    def _palette_key(self, keys: list[Shown], active: dict[str, ActiveBinding]
                     ) -> tuple | None:
        """The command palette's key where it is shown (room left after the keys)."""
        palette = active.get(self.app.COMMAND_PALETTE_BINDING)
        room = self._width() - sum(self._cost(one[0]) for one in keys)
        if (self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE
                and palette is not None and self._cost(palette[1]) + 2 <= room):
            _node, binding, enabled, tooltip = palette
            return binding, enabled, tooltip
        return None

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        active = self.screen.active_bindings
        keys = self.fitting(active)
        self.line = KeyLine()
        self.line.keys = keys
        yield self.line
        self._palette = self._palette_key(keys, active)
        if self._palette is not None:
            binding, enabled, _tooltip = self._palette
            yield FooterKey(binding.key, self.app.get_key_display(binding),
                            binding.description, binding.action, classes="-command-palette",
                            disabled=not enabled,
                            tooltip=binding.tooltip or binding.description)

    def keys_shown(self) -> list[str]:
        """The keys as shown, left to right (the palette's last): their key_display."""
        shown = [self.app.get_key_display(binding) for binding, _e, _t in self.line.keys]
        return shown + [key.key_display for key in self.query(FooterKey)]
