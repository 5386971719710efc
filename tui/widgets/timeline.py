"""The timeline: a lane per GPU stream, optional NVTX and host-thread lanes, over time.

Drawn with the line API: `render_line` draws only the lanes on screen, from the bins of
the visible window (one query, run in a worker, cached per view). What is on screen
(`frame`) trails what the keys asked for (`view`) by one query, so the screen never
shows a half-drawn window and a slow query never holds up a key.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb
from rich.style import Style
from textual import events, work
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.worker import get_current_worker

from tui.views.timeline import Bins, KernelInfo, Lane, TimelineData, View
from tui.views.timeline.distributed_lanes import PathInfo, QueueInfo
from tui.views.timeline.gpu_metrics import MetricInfo
from tui.views.timeline.lanes import (
    LANE_CRITICAL,
    LANE_GPU,
    LANE_HOST,
    LANE_MEMORY,
    LANE_METRIC,
    LANE_NVTX,
    LANE_OPENED,
    LANE_QUEUE,
    MAX_NVTX_DEPTH,
    LaneKey,
)
from tui.views.timeline.lookup import GapSpan, Info
from tui.views.timeline.memory import MemoryInfo
from tui.widgets import keymap, theme, viewport
from tui.widgets.lane_render import Cells, label_cells, lane_cells, mark_hits, to_segments
from tui.widgets.messages import ActivitySelected
from tui.widgets.timeline_actions import TimelineActions
from tui.widgets.timeline_goto import TimelineGoto
from tui.widgets.timeline_mouse import TimelineMouse
from tui.widgets.timeline_search import TimelineSearch
from tui.widgets.timeline_select import TimelineSelect

# (view, annotation depths shown, host lanes shown, critical-path and queue lanes shown,
#  the opened lane's key, GPU metric lanes shown)
BinsKey = tuple[View, int, bool, bool, LaneKey | None, bool]


class Timeline(TimelineMouse, TimelineGoto, TimelineSearch, TimelineSelect, TimelineActions,
               ScrollView, can_focus=True):
    """Keys and mouse move a cursor (a time and a lane) and the window around it."""

    BINDINGS = keymap.bindings(keymap.TIMELINE)
    DEFAULT_CSS = """
    Timeline { overflow-x: hidden; scrollbar-size-vertical: 1; }
    """

    @dataclass
    class ViewChanged(Message):
        """The window on screen, the cursor or the selection changed."""

        timeline: Timeline

    @dataclass
    class LanesChanged(Message):
        """The lanes shown changed (loaded, or a kind shown/hidden): the rows they need."""

        timeline: Timeline

    @dataclass
    class CursorInfo(Message):
        """What is under the cursor now (None: nothing)."""

        info: Info | MemoryInfo | MetricInfo | PathInfo | QueueInfo | None

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 (Textual's name)
        super().__init__(id=id)
        self.data: TimelineData | None = None
        self.lanes: list[Lane] = []
        self.show_nvtx = True
        self.show_host = False
        self.show_distributed = False  # the critical path and queue-length lanes
        self.show_metrics = True  # the GPUs' hardware counters, where the trace has them
        self.view = View(1, 0, 1)  # what the keys asked for
        self.frame: Bins | None = None  # what is on screen
        self.cursor_t = 0
        self.lane_index = 0
        self.mark_t: int | None = None
        self.info: Info | MemoryInfo | MetricInfo | PathInfo | QueueInfo | None = None
        self.current_gap: GapSpan | None = None
        self.gap_rank = -1
        self._fitted = True
        self._serial = 0  # bumps with each frame shown: the key of its cached rows
        self._base_style: Style | None = None  # rich_style is costly to work out per line
        self._bins: LRUCache[BinsKey, Bins] = LRUCache(64)
        self._in_flight: BinsKey | None = None  # the window being fetched
        self._rows: LRUCache[tuple[int, tuple[int, int, int, int]], Cells] = LRUCache(256)

    # -- data and geometry -------------------------------------------------------------

    def set_data(self, data: TimelineData) -> None:
        self.data = data
        self.cursor_t = data.extent.gpu_start_ns
        self._layout_lanes()
        self.action_fit()

    def use_gap_threshold(self, data: TimelineData) -> None:
        """The same trace with another gap threshold: keep the window, redraw its gaps."""
        self.data = data
        self._bins.clear()
        self._in_flight = None  # a window of the old data is fetched again
        self._rows.clear()
        self.frame = None
        self.current_gap = None
        self.gap_rank = -1
        self.info = None
        self.set_view(self.view, self._fitted)
        self.cursor_changed()

    @property
    def ncols(self) -> int:
        return max(1, self.scrollable_content_region.width - theme.LABEL_WIDTH)

    @property
    def lane(self) -> Lane | None:
        return self.lanes[self.lane_index] if self.lanes else None

    @property
    def pending(self) -> bool:
        """Is the window the keys asked for not on screen yet?"""
        return self.data is not None and (self.frame is None or self.frame.view != self.view)

    def _layout_lanes(self) -> None:
        assert self.data is not None
        keep = self.lane
        shown = {LANE_GPU: True, LANE_NVTX: self.show_nvtx, LANE_HOST: self.show_host,
                 LANE_MEMORY: True, LANE_QUEUE: self.show_distributed,
                 LANE_CRITICAL: self.show_distributed, LANE_METRIC: self.show_metrics}
        extra = self.data.distributed_lanes() if self.show_distributed else []
        self.lanes = self.lanes_with_opened(
            [lane for lane in self.data.lanes + extra if shown[lane.kind]])
        # the critical path on top, above the lanes its segments run on
        self.lanes.sort(key=lambda lane: lane.kind != LANE_CRITICAL)
        if keep in self.lanes:
            self.lane_index = self.lanes.index(keep)
        else:  # a lane that closed: its thread's lane above it, else the first
            above = [i for i, lane in enumerate(self.lanes) if keep is not None
                     and keep.kind == LANE_OPENED and (lane.k1, lane.k2) == (keep.k1, keep.k2)
                     and lane.kind in (LANE_NVTX, LANE_HOST)]
            self.lane_index = above[-1] if above else 0
        self.virtual_size = Size(self.scrollable_content_region.width, len(self.lanes))
        self.post_message(self.LanesChanged(self))

    def _bins_key(self) -> BinsKey:
        return (self.view, MAX_NVTX_DEPTH if self.show_nvtx else 0, self.show_host,
                self.show_distributed, self.opened.key if self.opened is not None else None,
                self.show_metrics)

    def on_resize(self, event: events.Resize) -> None:
        if self.data is None:
            return
        self.virtual_size = Size(self.scrollable_content_region.width, len(self.lanes))
        gap = self.current_gap
        old = self.view
        if self._fitted:
            self.action_fit()
        elif (gap is not None and old.t0 <= gap.start_ns and gap.end_ns <= old.t1
              and not gap.end_ns <= self._resized(old).t1):
            # the gap shown whole before stays whole: narrower, it is fitted again
            self.show_range(gap.start_ns, gap.end_ns, margin=0.25)
        else:  # the zoom, the cursor and the selection stay; the cursor stays in sight
            self.set_view(viewport.follow(self._resized(old), self.cursor_t))
            self.cursor_changed()

    def _resized(self, view: View) -> View:
        return View(view.npc, view.c0, self.ncols)

    # -- the window ----------------------------------------------------------------------

    def set_view(self, view: View, fitted: bool = False) -> None:
        """Ask for `view` (clamped to the trace); it shows once its bins are in. Callers
        follow with `cursor_changed()`, which looks up what is under the cursor."""
        if self.data is None:
            return
        extent = self.data.extent
        self.view = viewport.clamp(view, extent.start_ns, extent.end_ns)
        self._fitted = fitted
        if not self.size.width:  # not laid out yet: on_resize asks again with its columns
            return
        key = self._bins_key()
        bins = self._bins.get(key)
        if bins is not None:
            self._show(bins)
        elif key != self._in_flight:  # asked again while on its way (a resize): wait for it
            self._in_flight = key
            self._fetch(key)

    @work(thread=True, exclusive=True, group="timeline-bins")
    def _fetch(self, key: BinsKey) -> None:
        assert self.data is not None
        try:
            bins = self.data.bins.fetch(*key)
        except duckdb.Error as exc:
            self.app.call_from_thread(self._failed, key, f"timeline query failed: {exc}")
            return
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._arrived, key, bins)

    def _failed(self, key: BinsKey, message: str) -> None:
        if key == self._in_flight:
            self._in_flight = None
        self.notify(message, severity="error", markup=False)

    def _arrived(self, key: BinsKey, bins: Bins) -> None:
        if key == self._in_flight:
            self._in_flight = None
        self._bins[key] = bins
        if key == self._bins_key():
            self._show(bins)

    def _show(self, bins: Bins) -> None:
        if bins is not self.frame:
            self.frame = bins
            self._serial += 1
            self.refresh()
        self.post_message(self.ViewChanged(self))

    def cursor_changed(self) -> None:
        """Redraw for a new cursor/selection; keep the lane in sight; look up what's there."""
        self.current_gap = self.current_gap if self._in_current_gap() else None
        height = self.scrollable_content_region.height
        if self.lane_index < self.scroll_y:
            self.scroll_to(y=self.lane_index, animate=False, immediate=True)
        elif height and self.lane_index >= self.scroll_y + height:
            self.scroll_to(y=self.lane_index - height + 1, animate=False, immediate=True)
        if not self.pending:  # else the new window's arrival redraws everything once
            self.refresh()
            self.post_message(self.ViewChanged(self))
        self.locate()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        """Lanes scrolled by the scrollbar or the wheel: the cursor stays on a lane in sight,
        as a text view keeps its cursor on screen."""
        super().watch_scroll_y(old_value, new_value)
        height = self.scrollable_content_region.height
        if not height or not self.lanes:
            return
        top = round(new_value)
        lane = min(max(self.lane_index, top), top + height - 1, len(self.lanes) - 1)
        if lane != self.lane_index:
            self.lane_index = lane
            self.cursor_changed()

    def _in_current_gap(self) -> bool:
        gap = self.current_gap
        return gap is not None and gap.start_ns <= self.cursor_t < gap.end_ns

    def locate(self) -> None:
        """Find what is under the cursor (in a worker) for the details panel."""
        lane = self.lane
        if self.data is None or lane is None:
            return
        col = self.cursor_t // self.view.npc * self.view.npc
        self._locate(lane, self.cursor_t, col, col + self.view.npc, self.prefer())

    @work(thread=True, exclusive=True, group="timeline-cursor")
    def _locate(self, lane: Lane, t: int, t_lo: int, t_hi: int, prefer: int | None) -> None:
        assert self.data is not None
        info = self.data.info_at(lane, t, t_lo, t_hi, prefer)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._located, info)

    def _located(self, info: Info | MemoryInfo | MetricInfo | PathInfo | QueueInfo | None
                 ) -> None:
        # a memory or metric sample is a point; a path segment or a queue length is no event
        self.zoom_to_info(None if isinstance(info, MemoryInfo | MetricInfo | PathInfo
                                             | QueueInfo) else info)
        if info == self.info:
            return
        self.info = info
        self.post_message(self.CursorInfo(info))
        self.post_message(ActivitySelected(info.id if isinstance(info, KernelInfo) else None))

    # -- drawing -------------------------------------------------------------------------

    def notify_style_update(self) -> None:
        self._base_style = None
        super().notify_style_update()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        index = self.scroll_offset.y + y
        frame = self.frame
        if self._base_style is None:
            self._base_style = self.rich_style
        base = self._base_style
        if frame is None or index >= len(self.lanes):
            return Strip.blank(width, base)
        lane = self.lanes[index]
        selected = index == self.lane_index
        cells = label_cells(lane.label, selected) + list(self._lane_row(frame, lane))
        x = frame.view.x_of(self.cursor_t)
        if selected and self.mark_t is not None:
            lo, hi = sorted((frame.view.x_of(self.mark_t), x))
            for sx in range(max(lo, 0), min(hi + 1, frame.view.ncols)):
                ch, style = cells[theme.LABEL_WIDTH + sx]
                cells[theme.LABEL_WIDTH + sx] = (ch, (style or Style()) + theme.SELECTION_STYLE)
        if 0 <= x < frame.view.ncols:
            ch, style = cells[theme.LABEL_WIDTH + x]
            if selected:  # reverse what is there, so the cursor shows on blocks too
                flip = Style(reverse=not (style is not None and style.reverse), bold=True)
                cells[theme.LABEL_WIDTH + x] = (ch, (style or Style()) + flip)
            elif ch == " ":
                cells[theme.LABEL_WIDTH + x] = (theme.CURSOR_GLYPH, theme.CURSOR_LINE_STYLE)
        return Strip(to_segments(cells, base)).adjust_cell_length(width, base)

    def _lane_row(self, frame: Bins, lane: Lane) -> Cells:
        key = (self._serial, lane.key)
        row = self._rows.get(key)
        if row is None:
            gaps = frame.gap_cover(lane.k1) if lane.kind == LANE_GPU else None
            row = lane_cells(frame.cells(lane.key), gaps, lane.kind)
            if self.hits is not None:
                row = mark_hits(row, self.hits.lane_columns(lane.key, frame.view))
            self._rows[key] = row
        return row
