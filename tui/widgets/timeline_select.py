"""Selecting one interval on the timeline (a search hit, a range gone to with `@`): its
lane shown and scrolled into view, opened when no lane shows it (a Python frame, an op or
an annotation below the depths the lanes show), the cursor on it, the window zoomed so
that it is at least a column wide (a zero-length one: panned to), and the details panel
describing it, so that `y` copies its name.

A mixin of `Timeline`. One lane at most is open: it goes when another interval is
selected, when Esc clears the selection, and when its kind of lanes is hidden.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui.views.timeline import View
from tui.views.timeline.lanes import LANE_HOST, LANE_NVTX, LANE_OPENED, Lane, opened_lane
from tui.views.timeline.search import Hit
from tui.widgets import viewport

if TYPE_CHECKING:
    from tui.widgets.timeline_host import TimelineHost as _Base
else:
    _Base = object


class TimelineSelect(_Base):
    selected: Hit | None = None  # the interval selected last (its details are preferred)
    opened: Lane | None = None  # the lane opened to show it, if one was

    def select(self, hit: Hit) -> None:
        """Select `hit`: see the module's docstring."""
        self._take(hit)
        self.cursor_t = hit.start_ns
        view = reveal(self.view, hit.start_ns, hit.end_ns, self._snap)
        self.set_view(view, self._fitted and view == self.view)
        self.cursor_changed()

    def select_range(self, hit: Hit, margin: float, at: int | None = None) -> None:
        """Select `hit` zoomed to fill the screen but for `margin` of it either side, the
        cursor `at` a time in it (its start if None)."""
        self._take(hit)
        self.cursor_t = hit.start_ns if at is None else at
        self.show_range(hit.start_ns, max(hit.end_ns, hit.start_ns + 1), margin)

    def _take(self, hit: Hit) -> None:
        """`hit` is the selected interval, its lane shown (opened if need be) and current."""
        kind = hit.lane[0]
        opened = opened_lane(*hit.lane[1:]) if kind == LANE_OPENED else None
        annotation = kind == LANE_NVTX or (opened is not None and opened.opened[0] == "annotation")
        host = kind == LANE_HOST or (opened is not None and not annotation)
        if (opened != self.opened or (annotation and not self.show_nvtx)
                or (host and not self.show_host)):
            self.opened = opened
            self.show_nvtx = self.show_nvtx or annotation
            self.show_host = self.show_host or host
            self._layout_lanes()
        self.selected = hit
        for index, lane in enumerate(self.lanes):
            if lane.key == hit.lane:
                self.lane_index = index

    def unselect(self) -> None:
        """No interval is selected; an opened lane closes."""
        self.selected = None
        if self.opened is not None:
            self.opened = None
            self._layout_lanes()

    def prefer(self) -> int | None:
        """The id the cursor's lookup prefers on the current lane: the selected one's."""
        hit, lane = self.selected, self.lane
        return hit.id if hit is not None and lane is not None and lane.key == hit.lane else None

    def lanes_with_opened(self, lanes: list[Lane]) -> list[Lane]:
        """`lanes` with the opened lane put under its thread's lanes of its side (the
        annotation lanes for an annotation, else the thread's lane)."""
        opened = self.opened
        if opened is None:
            return lanes
        side = LANE_NVTX if opened.opened[0] == "annotation" else LANE_HOST
        thread = (opened.k1, opened.k2)
        after = [i for i, lane in enumerate(lanes)
                 if lane.kind == side and (lane.k1, lane.k2) == thread]
        at = after[-1] + 1 if after else len(lanes)
        return [*lanes[:at], opened, *lanes[at:]]


HIT_COLUMNS = 8  # an interval narrower than a column is zoomed to about this many


def reveal(view: View, start: int, end: int, snap: viewport.Snap) -> View:
    """The window that shows [start, end): where it is narrower than a column, zoomed in
    until it takes HIT_COLUMNS, centred; else panned the least that brings it on screen
    (its start, when it is wider than the screen). A zero-length interval is only panned
    to."""
    length = end - start
    if 0 < length < view.npc:
        npc = max(1, length // HIT_COLUMNS)
        while npc > 1 and snap(npc) > length:  # a coarse zoom snaps to the summary's bins:
            npc = npc * 7 // 8  # never so far that the interval is under a column again
        npc = snap(max(1, npc))
        return View(npc, (start + length // 2) // npc - view.ncols // 2, view.ncols)
    margin = view.ncols // 8
    shown = viewport.follow(view, start, margin)
    if length < (view.ncols - 2 * margin) * view.npc:
        shown = viewport.follow(shown, max(start, end - 1), margin)
    return shown
