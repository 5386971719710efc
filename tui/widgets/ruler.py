"""The time ruler above the lanes: tick labels in a unit that follows the zoom."""

from __future__ import annotations

import math

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip
from textual.widget import Widget

from tui.core.units import format_ns
from tui.views.timeline import View
from tui.widgets import theme
from tui.widgets.lane_render import Cells, to_segments

TICK = "▏"
UNITS = ((1_000_000_000, "s"), (1_000_000, "ms"), (1_000, "µs"), (1, "ns"))


def unit_for(magnitude_ns: int) -> tuple[int, str]:
    """The unit in which a time of this magnitude reads best."""
    for div, unit in UNITS:
        if magnitude_ns >= div:
            return div, unit
    return 1, "ns"


def format_offset(ns: int, div: int, step_ns: int) -> str:
    """`ns` in unit `div`, with just enough decimals to tell ticks `step_ns` apart."""
    decimals = max(0, math.ceil(math.log10(div / step_ns))) if step_ns < div else 0
    return f"{ns / div:.{decimals}f}"


def nice_steps(min_ns: float) -> int:
    """The smallest 1-2-5 x 10^k ns step that is at least `min_ns`."""
    exp = 10 ** max(0, math.floor(math.log10(max(min_ns, 1))))
    for mult in (1, 2, 5, 10):
        if mult * exp >= min_ns:
            return mult * exp
    return 10 * exp


def ticks(view: View, origin: int) -> list[tuple[int, str]]:
    """(screen column, label) of each tick: times since `origin` (the trace's first GPU
    activity), in the unit that suits the largest one on screen, with as many decimals
    as the tick step needs, spaced so that labels never touch."""
    magnitude = max(abs(view.t0 - origin), abs(view.t1 - origin), 1)
    div, unit = unit_for(magnitude)
    step = nice_steps(view.npc * 6)
    while True:
        width = len(format_offset(-magnitude, div, step)) + len(unit) + 3
        if step >= view.npc * width:
            break
        step = nice_steps(step + 1)
    first = -(-(view.t0 - origin) // step)  # ceil: the first tick on screen
    out = []
    k = first
    while (t := origin + k * step) < view.t1:
        out.append((view.x_of(t), f"{format_offset(k * step, div, step)} {unit}"))
        k += 1
    return out


class Ruler(Widget):
    DEFAULT_CSS = "Ruler { height: 1; }"

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 (Textual's name)
        super().__init__(id=id)
        self._state: tuple[View, int, int, int | None] | None = None

    def show(self, view: View, origin: int, cursor_t: int, mark_t: int | None) -> None:
        state = (view, origin, cursor_t, mark_t)
        if state != self._state:
            self._state = state
            self.refresh()

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if self._state is None:
            return Strip.blank(width, self.rich_style)
        view, origin, cursor_t, mark_t = self._state
        corner = f"↔ {format_ns(view.ncols * view.npc)}"  # the window's width
        cells: Cells = [(ch, theme.DIM_STYLE) for ch in
                        corner[: theme.LABEL_WIDTH - 1].rjust(theme.LABEL_WIDTH - 1)]
        cells.append(("│", theme.SEPARATOR_STYLE))
        row: Cells = [(" ", None)] * view.ncols
        for x, label in ticks(view, origin):
            if 0 <= x and x + len(label) < view.ncols:  # whole labels only
                for i, ch in enumerate(TICK + label):
                    row[x + i] = (ch, None)
        cursor_x = view.x_of(cursor_t)
        if mark_t is not None:
            lo, hi = sorted((view.x_of(mark_t), cursor_x))
            for x in range(max(0, lo), min(view.ncols, hi + 1)):
                row[x] = (row[x][0], theme.VIEWPORT_STYLE)
        if 0 <= cursor_x < view.ncols:  # mark the cursor's column, keep what is written
            ch, style = row[cursor_x]
            row[cursor_x] = ("▼" if ch == " " else ch, (style or Style()) + theme.CURSOR_STYLE)
        segments: list[Segment] = to_segments(cells + row, self.rich_style)
        return Strip(segments).adjust_cell_length(width, self.rich_style)
