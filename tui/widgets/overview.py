"""One line for the whole trace: how busy the GPUs were, where they idled past the
threshold, and which part of the trace the timeline shows (in reverse video)."""

from __future__ import annotations

import math

from rich.style import Style
from textual import events, work
from textual.strip import Strip
from textual.widget import Widget
from textual.worker import get_current_worker

from tui.views.timeline import Bins, TimelineData, View
from tui.views.timeline.lanes import LANE_GPU
from tui.views.timeline.search import Hits
from tui.widgets import theme, viewport
from tui.widgets.lane_render import Cells, to_segments


class Overview(Widget):
    DEFAULT_CSS = "Overview { height: 1; }"

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 (Textual's name)
        super().__init__(id=id)
        self.data: TimelineData | None = None
        self.bins: Bins | None = None
        self._shown: View | None = None  # the timeline's window
        self.hits: Hits | None = None  # the timeline's search: its hits are marked

    def set_data(self, data: TimelineData) -> None:
        self.data = data
        self._refetch()

    def show(self, view: View) -> None:
        if view != self._shown:
            self._shown = view
            self.refresh()

    def show_hits(self, hits: Hits | None) -> None:
        if hits is not self.hits:
            self.hits = hits
            self.refresh()

    def on_resize(self, event: events.Resize) -> None:
        self._refetch()

    def _refetch(self) -> None:
        if self.data is None:
            return
        extent = self.data.extent
        ncols = max(1, self.size.width - theme.LABEL_WIDTH)
        view = viewport.fit(extent.gpu_start_ns, extent.gpu_end_ns, ncols,
                            self.data.bins.snap_npc)
        if self.bins is None or self.bins.view != view:
            self._fetch(view)

    @work(thread=True, exclusive=True, group="overview")
    def _fetch(self, view: View) -> None:
        assert self.data is not None
        bins = self.data.bins.fetch(view, 0, False)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._arrived, bins)

    def _arrived(self, bins: Bins) -> None:
        self.bins = bins
        self.refresh()

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        bins = self.bins
        if bins is None:
            return Strip.blank(width, self.rich_style)
        cells: Cells = [(ch, theme.DIM_STYLE) for ch in
                        "whole trace".ljust(theme.LABEL_WIDTH - 1)]
        cells.append(("│", theme.SEPARATOR_STYLE))
        cells += self._columns(bins)
        return Strip(to_segments(cells, self.rich_style)).adjust_cell_length(
            width, self.rich_style)

    def _columns(self, bins: Bins) -> Cells:
        ncols = bins.view.ncols
        busy = [0.0] * ncols
        for key, lane_cells in bins.lanes.items():
            if key[0] == LANE_GPU:
                for x, cell in enumerate(lane_cells):
                    if cell is not None and cell.busy > busy[x]:
                        busy[x] = cell.busy
        gap = [max(cover) for cover in zip(*bins.gaps.values(), strict=True)] \
            if bins.gaps else [0.0] * ncols
        lo, hi = self._viewport_columns(bins.view)
        hit = self.hits.all_columns(bins.view) if self.hits is not None else None
        out: Cells = []
        for x in range(ncols):
            if gap[x] > 0 and busy[x] < 0.5:
                ch, style = theme.GAP_GLYPH, theme.GAP_STYLE
            elif gap[x] > 0:
                ch, style = theme.BARS[min(8, max(1, math.ceil(busy[x] * 8)))], \
                    theme.GAP_TOUCH_STYLE
            else:
                level = min(8, math.ceil(busy[x] * 8))
                ch, style = theme.BARS[level], Style(color=theme.KERNEL_COLOURS[0])
            if lo <= x <= hi:
                style = style + theme.VIEWPORT_STYLE
            if hit is not None and hit[x]:
                style = style + theme.HIT_STYLE
            out.append((ch, style))
        return out

    def _viewport_columns(self, whole: View) -> tuple[int, int]:
        if self._shown is None:
            return (0, -1)
        lo = max(0, whole.x_of(self._shown.t0))
        hi = min(whole.ncols - 1, whole.x_of(self._shown.t1 - 1))
        return (lo, hi)
