"""The top line: which trace, where the timeline is looking, and short notices.

A notice ("gap 1 of 10", "copied 212 bytes") takes the place of the window's figures for a
few seconds, so it never covers the lanes or the panel it talks about.
"""

from __future__ import annotations

from rich.text import Text
from textual.timer import Timer
from textual.widgets import Static

from tui.core.safe_text import printable
from tui.core.units import format_offset
from tui.views.timeline import View

NAME_WIDTH = 32
NOTICE_SECONDS = 4.0


class StatusBar(Static):
    # one line; a notice longer than the width wraps onto a second or third for its while
    DEFAULT_CSS = "StatusBar { height: auto; max-height: 3; }"

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 (Textual's name)
        super().__init__(id=id)
        self._head = Text()
        self._where = Text()
        self._search = ""  # "/gemm 17 of 1,260" while a search is on
        self.notice = ""  # the notice shown now ("" when none)
        self.said: list[str] = []  # the latest notices, oldest first (tests read them)
        self._timer: Timer | None = None
        self._wrapped = False  # a notice is shown (which may take more than one row)

    def show_trace(self, name: str, fmt: str) -> None:
        name = printable(name)
        if len(name) > NAME_WIDTH:
            name = name[: NAME_WIDTH - 1] + "…"
        self._head = Text.assemble((name, "bold"), f" · {printable(fmt)}")
        self._draw()

    def show_view(self, view: View, origin: int, fit_npc: int, cursor_t: int) -> None:
        """The window (times since the first GPU activity), the zoom against "fit all"."""
        self._where = Text(f"{format_offset(view.t0 - origin)} → "
                           f"{format_offset(view.t1 - origin)} · ×{fit_npc / view.npc:,.3g}"
                           f" · cursor {format_offset(cursor_t - origin)}")
        self._draw()

    def show_search(self, summary: str) -> None:
        if summary != self._search:
            self._search = printable(summary)
            self._draw()

    def say(self, message: str, seconds: float | None = None) -> None:
        """Show `message` (plain text) in place of the window's figures for a while."""
        self.notice = printable(message)
        self.said = [*self.said[-49:], self.notice]
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(seconds or NOTICE_SECONDS, self._expire)
        self._draw()

    def _expire(self) -> None:
        self.notice = ""
        self._draw()

    def _draw(self) -> None:
        # what changes first, the file's name last: a narrow terminal cuts the name
        found = Text.assemble((self._search, "bold"), " │ ") if self._search else ""
        if self.notice:  # said in full: wrapped, never cut
            line = Text.assemble(found, (self.notice, "bold"), no_wrap=False,
                                 overflow="fold")
        else:
            head = Text.assemble(" │ ", self._head) if self._head else ""
            line = Text.assemble(found, self._where, head, no_wrap=True, overflow="ellipsis")
        # a notice's rows follow its length; the window's figures keep one row, no relayout
        wrapped = bool(self.notice) or self._wrapped
        self._wrapped = bool(self.notice)
        self.update(line, layout=wrapped)
