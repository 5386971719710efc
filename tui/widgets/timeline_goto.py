"""`@` on the timeline: go to a time, a step or an annotation range by name.

A mixin of `Timeline`. A time keeps the zoom and puts the cursor there; a step or a range
is zoomed to fit, on its lane (the NVTX lanes are shown first when hidden).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui.core.units import format_offset
from tui.views.timeline.goto import Place
from tui.views.timeline.lanes import annotation_lane
from tui.views.timeline.search import Hit
from tui.widgets import viewport
from tui.widgets.timeline_search import Ask

if TYPE_CHECKING:
    from tui.widgets.timeline_host import TimelineHost as _Base
else:
    _Base = object


class TimelineGoto(_Base):
    goto_text = ""  # the last target, offered again by the next @

    def action_goto(self) -> None:
        self.post_message(Ask("goto", self.goto_text))

    def goto(self, text: str) -> None:
        text = text.strip()
        if self.data is None or not text:
            return
        self.goto_text = text
        data, cursor = self.data, self.cursor_t
        self._query(lambda: data.goto(text, cursor), lambda place: self._went(text, place))

    def _went(self, text: str, place: Place | None) -> None:
        if place is None:
            self.notify(f"@ {text}: no such time, step or range (try 1.25s, +10ms, "
                        "step 3, or part of an NVTX range's name)", markup=False)
            return
        assert self.data is not None
        origin = self.data.extent.gpu_start_ns
        if place.is_point:
            t = self._in_trace(place.start_ns)
            self.cursor_t = t
            self.set_view(viewport.follow(self.view, t, margin=self.ncols // 2))
            self.cursor_changed()
            edge = "" if t == place.start_ns else \
                f" (the trace {'ends' if t < place.start_ns else 'starts'} there)"
            self.notify(f"@ {format_offset(t - origin)}{edge}", markup=False)
            return
        if place.lane is not None and place.id is not None:
            pid, tid, depth = place.lane
            self.select_range(Hit(annotation_lane(pid, tid, depth), place.id, place.start_ns,
                                  place.end_ns), margin=0.02)
        else:
            self.cursor_t = place.start_ns
            self.show_range(place.start_ns, place.end_ns, margin=0.02)
        self.notify(f"@ {place.label} at {format_offset(place.start_ns - origin)}",
                    markup=False)
