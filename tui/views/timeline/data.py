"""One open trace as the timeline sees it: its lanes, its extent, its bins and lookups."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tui.core.db import CursorSource
from tui.core.queries import load_query
from tui.views.timeline import goto, lod, lookup, search
from tui.views.timeline.bins import BinSource
from tui.views.timeline.distributed_lanes import DistributedLanes, PathInfo, QueueInfo
from tui.views.timeline.gpu_metrics import MetricInfo, MetricLanes
from tui.views.timeline.lanes import (
    LANE_CRITICAL,
    LANE_GPU,
    LANE_MEMORY,
    LANE_METRIC,
    LANE_QUEUE,
    Lane,
    discover_lanes,
)
from tui.views.timeline.memory import MemoryInfo, MemoryLanes


@dataclass(frozen=True)
class Extent:
    gpu_start_ns: int  # what "fit all" shows
    gpu_end_ns: int
    start_ns: int  # how far one may pan (host activity included)
    end_ns: int


class TimelineData:
    """Thread-safe: each call runs on a cursor of its own, so workers may call it."""

    def __init__(self, con: CursorSource, min_gap_ns: int,
                 cache_path: Path | None = None) -> None:
        self._con = con
        self._lod_path = lod.lod_file(cache_path, min_gap_ns)
        self.min_gap_ns = min_gap_ns
        with con.cursor() as cur:
            row = cur.execute(load_query("timeline_extent")).fetchone()
            assert row is not None
            gs, ge, s, e, gpu_rows, host_rows = row
            if gs is None:  # no GPU work: fit the host activity instead
                gs, ge = (s, e) if s is not None else (0, 1)
            s, e = (gs, ge) if s is None else (s, e)
            self.extent = Extent(gs, max(ge, gs + 1), s, max(e, s + 1))
            self.lanes: list[Lane]
            self.lanes, self.threads = discover_lanes(cur)  # threads: (pid, tid) -> full name
            self.memory = MemoryLanes(cur)
            self.metrics = MetricLanes(cur)
        self.lanes = _under_gpus(self.lanes, self.metrics)
        self.lanes += self.memory.lanes()
        self.distributed = DistributedLanes()  # lanes of their own, read when first shown
        self.bins = BinSource(con, min_gap_ns, (self.extent.start_ns, self.extent.end_ns),
                              gpu_rows + host_rows)
        self.bins.memory = self.memory
        self.bins.metrics = self.metrics
        self.bins.extra = [self.distributed]

    def distributed_lanes(self) -> list[Lane]:
        """The critical-path and queue-length lanes (read the first time)."""
        with self._con.cursor() as cur:
            self.distributed.discover(cur)
        return self.distributed.lanes()

    def prepare(self) -> None:
        """The slow part of opening (run it in a worker): the summary for big traces."""
        if self.bins.wants_lod:
            self.bins.build_lod(self._lod_path)

    def info_at(self, lane: Lane, t: int, t_lo: int, t_hi: int, prefer: int | None = None
                ) -> lookup.Info | MemoryInfo | MetricInfo | PathInfo | QueueInfo | None:
        with self._con.cursor() as cur:
            if lane.kind == LANE_MEMORY:
                return self.memory.info_at(cur, lane.k1, t, t_lo, t_hi)
            if lane.kind == LANE_METRIC:
                return self.metrics.info_at(cur, lane, t, t_lo, t_hi)
            if lane.kind in (LANE_QUEUE, LANE_CRITICAL):
                return self.distributed.info_at(lane, t, t_lo, t_hi)
            return lookup.info_at(cur, lane, t, t_lo, t_hi, self.min_gap_ns, prefer)

    def kernel_info(self, activity_id: int) -> lookup.KernelInfo | None:
        with self._con.cursor() as cur:
            return lookup.kernel_info(cur, activity_id)

    def step_gap(self, t: int, forward: bool) -> lookup.GapSpan | None:
        with self._con.cursor() as cur:
            return lookup.step_gap(cur, t, forward, self.min_gap_ns)

    def gap_by_rank(self, rank: int) -> tuple[lookup.GapSpan, int] | None:
        with self._con.cursor() as cur:
            return lookup.gap_by_rank(cur, rank, self.min_gap_ns)

    def step_kernel(self, lane: Lane, t: int, forward: bool) -> tuple[int, int, int] | None:
        with self._con.cursor() as cur:
            return lookup.step_kernel(cur, lane, t, forward)

    def search(self, query: search.Query) -> search.Hits:
        with self._con.cursor() as cur:
            return search.search(cur, query)

    def goto(self, text: str, cursor: int) -> goto.Place | None:
        with self._con.cursor() as cur:
            return goto.find(cur, text, self.extent.gpu_start_ns, cursor)


def _under_gpus(lanes: list[Lane], metrics: MetricLanes) -> list[Lane]:
    """`lanes` with each GPU's metric lanes put under its last stream (a GPU with no
    stream lane gets them after the others)."""
    out: list[Lane] = []
    placed: set[int] = set()
    for i, lane in enumerate(lanes):
        out.append(lane)
        last_of_device = lane.kind == LANE_GPU and not (
            i + 1 < len(lanes) and lanes[i + 1].kind == LANE_GPU and lanes[i + 1].k1 == lane.k1)
        if last_of_device and lane.k1 not in placed:
            out += metrics.lanes(lane.k1)
            placed.add(lane.k1)
    for device in metrics.devices:
        if device not in placed:
            out += metrics.lanes(device)
    return out
