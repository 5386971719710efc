"""The timeline's distributed lanes: each step's critical path (one lane, its segments
coloured by kind: CPU, launch delay, kernel, communication, waiting), and each stream's
queue length over time (outstanding launches, HTA's definition), as a bar scaled to the
stream's deepest queue. Both are worked out once, on the first window drawn (a bins
worker), from tui/analysis/distributed, and kept in memory: the path's segments, and the
queue's changes as arrays."""

from __future__ import annotations

import threading
from dataclasses import dataclass

import duckdb
import numpy as np

from tui.analysis.distributed import critical_paths, queue_series
from tui.analysis.distributed.critical_path import Segment
from tui.core.queries import load_query
from tui.core.steps import step_patterns
from tui.views.timeline.bins import Cell, View
from tui.views.timeline.lanes import LANE_CRITICAL, LANE_QUEUE, Lane, LaneKey

QUEUE_KIND = "memory"  # drawn as the memory lanes' step line (theme.colour_for)
KIND_LABELS = {"cpu": "CPU", "launch_delay": "launch delay", "kernel": "kernel",
               "communication": "communication", "waiting": "waiting"}


@dataclass(frozen=True)
class PathInfo:
    """The critical path's segment under the cursor."""

    segment: Segment


@dataclass(frozen=True)
class QueueInfo:
    """A stream's queue under the cursor: the most launches outstanding in the column
    (as drawn), and the stream's deepest over the trace."""

    device: int
    stream: int
    queue: int
    deepest: int


class DistributedLanes:
    """Lanes, and their cells per window; thread-safe (the bins workers call cells()).
    Nothing is read until they are first shown (`discover`): ~50 ms on a 700 MB trace."""

    def __init__(self) -> None:
        self.streams: list[tuple[int, int, int]] = []
        self.has_steps = False
        self.discovered = False
        self._lock = threading.Lock()
        self._segments: list[Segment] | None = None
        self._starts: np.ndarray | None = None
        self._queues: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, int]] | None = None

    def discover(self, cur: duckdb.DuckDBPyConnection) -> None:
        """Which lanes there are: the streams with launches to follow, and whether the
        trace has steps (once)."""
        with self._lock:
            if self.discovered:
                return
            self.streams = cur.execute(load_query("timeline_queue_lanes")).fetchall()
            self.has_steps = bool(cur.execute(load_query("dist_steps"),
                                              {"cutoff_ns": None, **step_patterns()}
                                              ).fetchone())
            self.discovered = True

    def lanes(self) -> list[Lane]:
        """The queue lanes, then the critical path's (the timeline shows it on top); none
        before `discover`."""
        out = [Lane(LANE_QUEUE, device, stream, 0, f"q GPU{device} s{stream}", launches)
               for device, stream, launches in self.streams]
        return out + ([Lane(LANE_CRITICAL, 0, 0, 0, "crit. path", 0)] if self.has_steps
                      else [])

    def cells(self, cur: duckdb.DuckDBPyConnection,
              view: View) -> dict[LaneKey, list[Cell | None]]:
        self.discover(cur)
        if not self.streams and not self.has_steps:
            return {}
        self._load(cur)
        out: dict[LaneKey, list[Cell | None]] = {}
        if self.has_steps:
            out[(LANE_CRITICAL, 0, 0, 0)] = self._path_cells(view)
        assert self._queues is not None
        for (device, stream), (t, q, deepest) in self._queues.items():
            out[(LANE_QUEUE, device, stream, 0)] = _queue_cells(view, t, q, deepest)
        return out

    def segment_at(self, t: int) -> Segment | None:
        """The critical path's segment at time `t` (once the lane has been drawn)."""
        if self._segments is None or self._starts is None or not self._segments:
            return None
        i = int(np.searchsorted(self._starts, t, side="right")) - 1
        if i >= 0 and self._segments[i].start_ns <= t < self._segments[i].end_ns:
            return self._segments[i]
        return None

    def info_at(self, lane: Lane, t: int, t_lo: int, t_hi: int) -> PathInfo | QueueInfo | None:
        """What the lane draws in the column [t_lo, t_hi) around `t` (once it is drawn):
        the path's segment covering most of it, or the queue's deepest length in it."""
        if lane.kind == LANE_CRITICAL:
            segment = self.segment_at(t)
            if segment is None and self._segments and self._starts is not None:
                first = max(int(np.searchsorted(self._starts, t_lo, side="right")) - 1, 0)
                near = [s for s in self._segments[first:first + 64]
                        if s.start_ns < t_hi and s.end_ns > t_lo]
                segment = max(near, key=lambda s: min(s.end_ns, t_hi) - max(s.start_ns, t_lo),
                              default=None)
            return PathInfo(segment) if segment is not None else None
        found = (self._queues or {}).get((lane.k1, lane.k2))
        if found is None:
            return None
        times, queue, deepest = found
        lo, hi = np.searchsorted(times, [t_lo, t_hi], side="left")
        n = int(queue[lo - 1]) if lo else 0  # the length carried into the column
        if hi > lo:
            n = max(n, int(queue[lo:hi].max()))
        return QueueInfo(lane.k1, lane.k2, n, deepest) if n > 0 else None

    def _load(self, cur: duckdb.DuckDBPyConnection) -> None:
        with self._lock:
            if self._queues is not None:
                return
            segments = ([s for p in critical_paths(cur) for s in p.segments]
                        if self.has_steps else [])
            self._starts = np.array([s.start_ns for s in segments], dtype=np.int64)
            self._segments = segments
            queue_series(cur, whole_trace=True)
            data = cur.execute("SELECT device, stream, t_ns, queue FROM dist_queue_series "
                               "ORDER BY device, stream, t_ns").fetchnumpy()
            queues = {}
            keys = np.stack([data["device"], data["stream"]], axis=1) if len(
                data["t_ns"]) else np.empty((0, 2))
            for device, stream, _n in self.streams:
                mask = (keys[:, 0] == device) & (keys[:, 1] == stream) if len(keys) else None
                if mask is None or not mask.any():
                    continue
                t = np.asarray(data["t_ns"][mask], dtype=np.int64)
                q = np.asarray(data["queue"][mask], dtype=np.int64)
                queues[(device, stream)] = (t, q, max(int(q.max()), 1))
            self._queues = queues

    def _path_cells(self, view: View) -> list[Cell | None]:
        cells: list[Cell | None] = [None] * view.ncols
        assert self._segments is not None and self._starts is not None
        if not self._segments:
            return cells
        first = max(int(np.searchsorted(self._starts, view.t0, side="right")) - 1, 0)
        best: list[tuple[int, int]] = [(0, -1)] * view.ncols  # (ns covered, segment index)
        covered = [0] * view.ncols
        for i in range(first, len(self._segments)):
            s = self._segments[i]
            if s.start_ns >= view.t1:
                break
            if s.end_ns <= view.t0:
                continue
            x0 = max(view.x_of(s.start_ns), 0)
            x1 = min(view.x_of(s.end_ns - 1), view.ncols - 1)
            for x in range(x0, x1 + 1):
                lo = max(s.start_ns, view.t0 + x * view.npc)
                hi = min(s.end_ns, view.t0 + (x + 1) * view.npc)
                covered[x] += hi - lo
                if hi - lo > best[x][0]:
                    best[x] = (hi - lo, i)
        for x, (ns, i) in enumerate(best):
            if i >= 0:
                s = self._segments[i]
                cells[x] = Cell(min(1.0, covered[x] / view.npc), i, KIND_LABELS[s.kind],
                                f"critical_{s.kind}", 2 * ns >= view.npc)
        return cells


def _queue_cells(view: View, t: np.ndarray, q: np.ndarray, deepest: int) -> list[Cell | None]:
    """Per column, the deepest the queue was in it (the length carried in from before
    included), as a share of the stream's deepest."""
    edges = view.t0 + np.arange(view.ncols + 1, dtype=np.int64) * view.npc
    lo = np.searchsorted(t, edges[:-1], side="left")
    hi = np.searchsorted(t, edges[1:], side="left")
    carried = np.where(lo > 0, q[np.maximum(lo - 1, 0)], 0)
    inside = np.full(view.ncols, -1, dtype=np.int64)
    busy = hi > lo
    if busy.any():
        padded = np.append(q, 0)
        pairs = np.ravel(np.column_stack([lo[busy], hi[busy]]))
        inside[busy] = np.maximum.reduceat(padded, pairs)[::2]
    high = np.maximum(carried, inside)
    cells: list[Cell | None] = []
    for x in range(view.ncols):
        n = int(high[x])
        cells.append(Cell(n / deepest, None, f"queue {n}", QUEUE_KIND, False) if n > 0
                     else None)
    return cells
