"""The top line: which trace, and where the timeline is looking."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from tui.safe_text import printable
from tui.timeline import View
from tui.units import format_ns

NAME_WIDTH = 32


class StatusBar(Static):
    DEFAULT_CSS = "StatusBar { height: 1; }"

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 (Textual's name)
        super().__init__(id=id)
        self._head = Text()

    def show_trace(self, name: str, fmt: str) -> None:
        name = printable(name)
        if len(name) > NAME_WIDTH:
            name = name[: NAME_WIDTH - 1] + "…"
        self._head = Text.assemble((name, "bold"), f" · {fmt}")
        self.update(self._head, layout=False)

    def show_view(self, view: View, origin: int, fit_npc: int, cursor_t: int) -> None:
        """The window (times since the first GPU activity), the zoom against "fit all"."""
        where = Text(f" │ {format_ns(view.t0 - origin)} → "
                     f"{format_ns(view.t1 - origin)} · ×{fit_npc / view.npc:,.3g}"
                     f" · cursor {format_ns(cursor_t - origin)}")
        self.update(Text.assemble(self._head, where), layout=False)
