"""The timeline's key actions: cursor, pan, zoom, selection, gaps, lanes, drill-down.

A mixin of `Timeline`, kept apart so that the widget file holds state and drawing and
this one holds what each key does (all listed in keymap.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual import work
from textual.worker import get_current_worker

from tui.core.units import format_ns
from tui.views.timeline import KernelInfo, View
from tui.views.timeline.lanes import LANE_GPU, LANE_HOST, LANE_NVTX
from tui.views.timeline.lookup import GapSpan
from tui.views.timeline.search import Hit
from tui.widgets import viewport
from tui.widgets.messages import DrillDown

if TYPE_CHECKING:
    from tui.widgets.timeline_host import TimelineHost as _Base
else:
    _Base = object


class TimelineActions(_Base):
    def _snap(self, npc: int) -> int:
        return self.data.bins.snap_npc(npc) if self.data is not None else npc

    def _max_npc(self) -> int:
        assert self.data is not None
        extent = self.data.extent
        return 2 * viewport.fit(extent.start_ns, extent.end_ns, self.ncols, self._snap).npc

    def _column_time(self, x: int) -> int:
        """The middle of screen column x of the requested view."""
        return (self.view.c0 + x) * self.view.npc + self.view.npc // 2

    def _in_trace(self, t: int) -> int:
        """`t`, kept inside the trace: the window never pans past it, so nor may the
        cursor."""
        assert self.data is not None
        extent = self.data.extent
        return min(max(t, extent.start_ns), extent.end_ns - 1)

    # -- cursor and pan

    def action_cursor(self, columns: int) -> None:
        if self.data is None:
            return
        self.cursor_t = self._in_trace(
            self._column_time(self.view.x_of(self.cursor_t) + columns))
        self.set_view(viewport.follow(self.view, self.cursor_t))
        self.cursor_changed()

    def action_lane(self, step: int) -> None:
        if self.lanes:
            self.lane_index = max(0, min(len(self.lanes) - 1, self.lane_index + step))
            self.cursor_changed()

    def action_pan(self, screens: float) -> None:
        if self.data is None:
            return
        columns = round(screens * self.ncols) or (1 if screens > 0 else -1)
        before = self.view
        self.set_view(viewport.pan(self.view, columns))
        # the cursor keeps its place on screen as the window slides under it
        self.cursor_t += (self.view.c0 - before.c0) * self.view.npc
        self.cursor_changed()

    def action_edge(self, end: bool) -> None:
        if self.data is None:
            return
        extent = self.data.extent
        self.cursor_t = extent.gpu_end_ns - 1 if end else extent.gpu_start_ns
        self.set_view(viewport.follow(self.view, self.cursor_t, margin=self.ncols // 8))
        self.cursor_changed()

    def action_kernel(self, forward: bool) -> None:
        lane = self.lane
        if self.data is None or lane is None:
            return
        data, t = self.data, self.cursor_t
        self._query(lambda: data.step_kernel(lane, t, forward), self._to_kernel)

    def _to_kernel(self, found: tuple[int, int, int] | None) -> None:
        if found is None:
            self.notify("no more kernels on this lane" if self.lane and self.lane.is_gpu
                        else "[ and ] step through kernels on a GPU lane", timeout=2, markup=False)
            return
        _, start, _ = found
        self.cursor_t = start
        self.set_view(viewport.follow(self.view, start))
        self.cursor_changed()

    # -- zoom and selection

    def action_zoom(self, factor: float) -> None:
        if self.data is None:
            return
        self.set_view(viewport.zoom(self.view, factor, self.cursor_t, self._snap,
                                    self._max_npc()))
        self.cursor_changed()

    def action_fit(self) -> None:
        if self.data is None:
            return
        extent = self.data.extent
        self.set_view(viewport.fit(extent.gpu_start_ns, extent.gpu_end_ns, self.ncols,
                                   self._snap), fitted=True)
        # a cursor outside the GPU's span (on host work before it, say) comes to its edge
        self.cursor_t = min(max(self.cursor_t, self.view.t0), self.view.t1 - 1)
        self.cursor_changed()

    def action_mark(self) -> None:
        self.mark_t = self.cursor_t if self.mark_t is None else None
        self.cursor_changed()

    def action_clear(self) -> None:
        """Esc: the selection (marked, and of an interval) and the search go."""
        self.mark_t = None
        self.clear_search()
        self.unselect()
        self.cursor_changed()

    def action_zoom_selection(self) -> None:
        if self.mark_t is None:
            self.notify("press v to mark one end, move the cursor, then z", timeout=3, markup=False)
            return
        lo, hi = sorted((self.mark_t, self.cursor_t))
        self.mark_t = None
        self.show_range(lo, max(hi, lo + 1), margin=0.02)

    def show_range(self, start: int, end: int, margin: float = 0.25) -> None:
        """Zoom so that [start, end) fills the screen but for `margin` either side."""
        self.set_view(viewport.show_range(start, end, self.ncols, self._snap, margin))
        if not self.view.t0 <= self.cursor_t < self.view.t1:
            self.cursor_t = start + (end - start) // 2
        self.cursor_changed()

    def jump_to(self, start: int, end: int, device: int | None = None,
                stream: int | None = None, margin: float = 0.25,
                thread: tuple[int, int] | None = None, activity_id: int | None = None) -> None:
        """Show [start, end) with the cursor on it, on the lane of (device, stream), or of
        host `thread` (pid, tid): its calls' lane, else its first annotation lane. The GPU
        activity `activity_id` (on that stream) is selected."""
        if activity_id is not None and device is not None and stream is not None:
            self.select_range(Hit((LANE_GPU, device, stream, 0), activity_id, start, end),
                              margin, at=start + (end - start) // 2)
            return
        if thread is not None:
            if not self.show_host and self.data is not None and any(
                    lane.kind == LANE_HOST and (lane.k1, lane.k2) == thread
                    for lane in self.data.lanes):
                self.show_host = True  # the thread's calls are the evidence: show them
                self._layout_lanes()
            found = [i for i, lane in enumerate(self.lanes)
                     if lane.kind in (LANE_HOST, LANE_NVTX) and (lane.k1, lane.k2) == thread]
            found.sort(key=lambda i: self.lanes[i].kind != LANE_HOST)
            if found:
                self.lane_index = found[0]
        else:
            for index, lane in enumerate(self.lanes):
                if lane.is_gpu and lane.k1 == device and stream in (None, lane.k2):
                    self.lane_index = index
                    break
        self.cursor_t = start + (end - start) // 2
        self.show_range(start, max(end, start + 1), margin)

    # -- gaps

    def action_gap(self, forward: bool) -> None:
        if self.data is None:
            return
        gap = self.current_gap
        data, t = self.data, gap.start_ns if gap is not None else self.cursor_t
        self._query(lambda: data.step_gap(t, forward), self._to_gap)

    def action_biggest_gap(self) -> None:
        if self.data is None:
            return
        data, rank = self.data, self.gap_rank + 1
        self._query(lambda: data.gap_by_rank(rank) or data.gap_by_rank(0), self._to_ranked)

    def _to_ranked(self, found: tuple[GapSpan, int] | None) -> None:
        if found is None:
            self._to_gap(None)
            return
        gap, total = found
        self.gap_rank = (self.gap_rank + 1) % total
        self._to_gap(gap)
        self.notify(f"gap {self.gap_rank + 1} of {total} by length: "
                    f"{format_ns(gap.duration_ns)}", timeout=2, markup=False)

    def _to_gap(self, gap: GapSpan | None) -> None:
        if gap is None:
            assert self.data is not None
            self.notify(f"no more GPU-idle gaps over "
                        f"{format_ns(self.data.min_gap_ns)}", timeout=2, markup=False)
            return
        self.current_gap = gap  # so that g/G step on from this gap, not from the cursor
        self.jump_to(gap.start_ns, gap.end_ns, gap.device, margin=0.5)

    # -- lanes and drill-down

    def action_toggle_nvtx(self) -> None:
        self.show_nvtx = not self.show_nvtx
        self._close_hidden()
        self._relayout()

    def action_toggle_host(self) -> None:
        self.show_host = not self.show_host
        self._close_hidden()
        self._relayout()

    def action_toggle_distributed(self) -> None:
        """The critical path of each step and each stream's queue length (worked out the
        first time they are shown, in the bins worker)."""
        self.show_distributed = not self.show_distributed
        self._relayout()

    def action_toggle_metrics(self) -> None:
        """The GPUs' hardware counters under each GPU (nsys --gpu-metrics-devices, XLA's
        PM sampling)."""
        if self.data is not None and not self.data.metrics.devices:
            self.notify("this trace has no GPU metrics: record with nsys profile "
                        "--gpu-metrics-devices=all (JAX: gpu_pm_sample_counters in the "
                        "profile options)", timeout=3, markup=False)
            return
        self.show_metrics = not self.show_metrics
        self._relayout()

    def _close_hidden(self) -> None:
        """An opened lane goes with the lanes of its side (annotation or host)."""
        opened = self.opened
        if opened is not None and not (self.show_nvtx if opened.opened[0] == "annotation"
                                       else self.show_host):
            self.opened = None

    def _relayout(self) -> None:
        if self.data is not None:
            self._layout_lanes()
            self.set_view(View(self.view.npc, self.view.c0, self.view.ncols), self._fitted)
            self.cursor_changed()

    def action_drill_down(self) -> None:
        info = self.info
        if isinstance(info, KernelInfo):
            self.post_message(DrillDown(info.id, info.name))
        else:
            self.notify("put the cursor on a kernel first", timeout=2, markup=False)

    @work(thread=True, exclusive=True, group="timeline-nav")
    def _query(self, ask: Callable[[], Any], then: Callable[[Any], None]) -> None:
        """Run a small lookup off the UI thread, then act on its answer on it."""
        answer = ask()
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(then, answer)
