"""The mouse on the timeline: the wheel zooms around the pointer (over the labels it
scrolls the lanes), shift+wheel or a drag pans, a click moves the cursor there, a double
click zooms to what is under it. A mixin of `Timeline`; tmux passes all of it through
with `set -g mouse on`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events

from tui.views.timeline import GapInfo
from tui.views.timeline.lookup import Info
from tui.widgets import theme, viewport

if TYPE_CHECKING:
    from tui.widgets.timeline_host import TimelineHost as _Base
else:
    _Base = object

WHEEL_ZOOM = 0.8  # one wheel notch in; its inverse out
WHEEL_PAN = 0.1  # one shift+wheel notch: a tenth of the screen


class TimelineMouse(_Base):
    _drag_x: int | None = None  # the column a drag started from (None: no button held)
    _dragged = False  # the press became a drag: its click is no click
    _zoom_to_info = False  # a double click: zoom to what the cursor lands on

    def _wheel(self, event: events.MouseScrollDown | events.MouseScrollUp, out: bool) -> None:
        if self.data is None or event.x < theme.LABEL_WIDTH:
            return  # over the labels: the lanes scroll as usual
        event.prevent_default()
        event.stop()
        if event.shift:
            self.action_pan(WHEEL_PAN if out else -WHEEL_PAN)
            return
        anchor = self._column_time(event.x - theme.LABEL_WIDTH)
        factor = 1 / WHEEL_ZOOM if out else WHEEL_ZOOM
        self.set_view(viewport.zoom(self.view, factor, anchor, self._snap, self._max_npc()))
        self.cursor_changed()

    def _on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self._wheel(event, out=True)

    def _on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self._wheel(event, out=False)

    def _on_mouse_scroll_right(self, event: events.MouseScrollRight) -> None:
        event.prevent_default()
        self.action_pan(WHEEL_PAN)

    def _on_mouse_scroll_left(self, event: events.MouseScrollLeft) -> None:
        event.prevent_default()
        self.action_pan(-WHEEL_PAN)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        if event.button == 1 and event.x >= theme.LABEL_WIDTH:
            self._drag_x, self._dragged = event.x, False
            self.capture_mouse()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        if self._drag_x is None or self.data is None:
            return
        columns = self._drag_x - event.x  # the trace follows the pointer
        if columns:
            self._dragged = True
            self._drag_x = event.x
            before = self.view
            self.set_view(viewport.pan(self.view, columns))
            self.cursor_t += (self.view.c0 - before.c0) * self.view.npc
            self.cursor_changed()

    def on_mouse_up(self, event: events.MouseUp) -> None:
        if self._drag_x is not None:
            self._drag_x = None
            self.release_mouse()

    def on_click(self, event: events.Click) -> None:
        if self._dragged:
            self._dragged = False
            return
        if self.frame is None or not self.lanes:
            return
        index = self.scroll_offset.y + event.y
        if index < len(self.lanes):
            self.lane_index = index
        if event.x >= theme.LABEL_WIDTH:
            self.cursor_t = self._column_time(event.x - theme.LABEL_WIDTH)
        self._zoom_to_info = event.chain >= 2
        self.cursor_changed()

    def zoom_to_info(self, info: Info | None) -> None:
        """After a double click: the item under the cursor fills the screen."""
        wanted, self._zoom_to_info = self._zoom_to_info, False
        if not wanted or info is None:  # None: nothing there, or a memory sample (a point)
            return
        if isinstance(info, GapInfo):
            start, end = info.start_ns, info.end_ns
        else:
            start, end = info.start_ns, info.start_ns + info.duration_ns
        self.show_range(start, max(end, start + 1), margin=0.05)
