"""The timeline's memory lanes: per GPU, the allocated total (and the caching allocator's
reserved total) as a step line, scaled to the device's peak, the peak's column marked;
and the allocation under the cursor."""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from tui.core.queries import load_query
from tui.views.timeline.bins import Cell, View
from tui.views.timeline.lanes import LANE_MEMORY, Lane, LaneKey
from tui.views.timeline.lookup import StackFrame, frames_at

ALLOCATED, RESERVED = 0, 1  # a memory lane's k2
PEAK_KIND = "memory_peak"  # the top_kind of the peak's column (drawn apart)


@dataclass(frozen=True)
class MemoryDevice:
    device: int
    events: int
    scale_bytes: int
    peak_allocated_bytes: int
    peak_ns: int
    has_reserved: bool


@dataclass(frozen=True)
class MemoryInfo:
    """The memory event under the cursor on a memory lane."""

    device: int
    ts_ns: int
    bytes: int | None
    total_allocated: int
    total_reserved: int | None
    op: str | None
    frame: str | None
    peak_allocated_bytes: int
    stack: tuple[StackFrame, ...] = ()


class MemoryLanes:
    """What the timeline needs for memory: lanes, their cells per window, lookups."""

    def __init__(self, cur: duckdb.DuckDBPyConnection) -> None:
        rows = cur.execute(load_query("timeline_memory_lanes")).fetchall()
        self.devices = {row[0]: MemoryDevice(*row) for row in rows}

    def lanes(self) -> list[Lane]:
        out = []
        for d in self.devices.values():
            out.append(Lane(LANE_MEMORY, d.device, ALLOCATED, 0, f"mem GPU{d.device}", d.events))
            if d.has_reserved:
                out.append(Lane(LANE_MEMORY, d.device, RESERVED, 0, f"rsv GPU{d.device}",
                                d.events))
        return out

    def cells(self, cur: duckdb.DuckDBPyConnection,
              view: View) -> dict[LaneKey, list[Cell | None]]:
        """Each memory lane's cells in `view`: a column with events shows its highest
        total, an empty one the total its last event before it left."""
        if not self.devices:
            return {}
        rows = cur.execute(load_query("timeline_memory_bins"),
                           {"npc": view.npc, "t_lo": view.t0, "t_hi": view.t1}).fetchall()
        per_device: dict[int, dict[int | None, tuple]] = {}
        for device, col, *rest in rows:
            per_device.setdefault(device, {})[col] = tuple(rest)
        out: dict[LaneKey, list[Cell | None]] = {}
        for device, d in self.devices.items():
            cols = per_device.get(device, {})
            scale = max(d.scale_bytes, 1)
            peak_x = view.x_of(d.peak_ns)
            alloc: list[Cell | None] = [None] * view.ncols
            rsv: list[Cell | None] = [None] * view.ncols
            before = cols.get(None)
            last = (before[3], before[4]) if before else (None, None)
            for x in range(view.ncols):
                here = cols.get(view.c0 + x)
                if here is not None:
                    high_a, high_r, top_id, last_a, last_r = here
                    last = (last_a, last_r)
                else:
                    high_a, high_r, top_id = last[0], last[1], None
                kind = PEAK_KIND if x == peak_x else "memory"
                if high_a is not None:
                    alloc[x] = Cell(min(1.0, high_a / scale), top_id, "allocated", kind, False)
                if high_r is not None:
                    rsv[x] = Cell(min(1.0, high_r / scale), top_id, "reserved", "memory",
                                  False)
            out[(LANE_MEMORY, device, ALLOCATED, 0)] = alloc
            out[(LANE_MEMORY, device, RESERVED, 0)] = rsv
        return out

    def info_at(self, cur: duckdb.DuckDBPyConnection, device: int, t: int, t_lo: int,
                t_hi: int) -> MemoryInfo | None:
        row = cur.execute(load_query("timeline_memory_at"),
                          {"device": device, "t": t, "t_lo": t_lo, "t_hi": t_hi}).fetchone()
        if row is None:
            return None
        _, ts, size, allocated, reserved, pid, tid, op, frame, frame_id = row
        stack = frames_at(cur, pid, tid, ts, frame_id)
        peak = self.devices[device].peak_allocated_bytes if device in self.devices else 0
        return MemoryInfo(device=device, ts_ns=ts, bytes=size, total_allocated=allocated,
                          total_reserved=reserved, op=op, frame=frame,
                          peak_allocated_bytes=peak, stack=stack)
