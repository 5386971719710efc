"""Point lookups behind the cursor: what is under it, its details, where the gaps are."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import duckdb

from tui.analysis.gaps import explain_gap
from tui.analysis.host_samples import range_host_activity
from tui.analysis.xla_ops import ActivityOp, op_of_activity
from tui.core.queries import load_query
from tui.views.host_text import host_lines
from tui.views.timeline.lanes import LANE_GPU, LANE_NVTX, LANE_OPENED, Lane


@dataclass(frozen=True)
class KernelInfo:
    """A GPU activity (kernel, copy or set) and the host side that launched it."""

    id: int
    kind: str
    name: str
    device: int
    stream: int
    start_ns: int
    duration_ns: int
    grid: tuple[int, int, int] | None
    block: tuple[int, int, int] | None
    registers_per_thread: int | None
    shared_memory_bytes: int | None
    bytes: int | None
    copy_kind: str | None
    correlation: int | None
    launch_name: str | None
    launch_tid: int | None
    launch_start_ns: int | None
    launch_duration_ns: int | None
    cpu_op: str | None
    nvtx_path: str | None
    stack: tuple[StackFrame, ...] = ()  # Python frames around the launch, innermost first
    op: ActivityOp | None = None  # XLA traces: the HLO op it ran for, its line and op path


@dataclass(frozen=True)
class StackFrame:
    id: int  # python_frames.id
    name: str
    user_code: bool


@dataclass(frozen=True)
class HostInfo:
    id: int
    kind: str
    name: str
    pid: int
    tid: int
    start_ns: int
    duration_ns: int
    depth: int
    parents: str | None
    launched: int


@dataclass(frozen=True)
class GapInfo:
    device: int
    start_ns: int
    end_ns: int
    duration_ns: int
    before_name: str | None
    after_name: str | None
    kind: str | None = None  # the gap's class and cause, as in --summary
    cause: str | None = None
    host: tuple[str, ...] = ()  # what the host was doing meanwhile (host_text.host_lines)


Info = KernelInfo | HostInfo | GapInfo


@dataclass(frozen=True)
class GapSpan:
    device: int
    start_ns: int
    end_ns: int
    duration_ns: int


def _one(cur: duckdb.DuckDBPyConnection, name: str, params: dict[str, Any]) -> dict | None:
    rel = cur.execute(load_query(name), params)
    row = rel.fetchone()
    if row is None:
        return None
    return dict(zip([d[0] for d in rel.description], row, strict=True))


def _triple(row: dict, prefix: str) -> tuple[int, int, int] | None:
    values = (row[f"{prefix}_x"], row[f"{prefix}_y"], row[f"{prefix}_z"])
    return None if values[0] is None else (values[0], values[1] or 1, values[2] or 1)


def info_at(cur: duckdb.DuckDBPyConnection, lane: Lane, t: int, t_lo: int, t_hi: int,
            min_gap_ns: int, prefer: int | None = None) -> Info | None:
    """What the cursor at `t` (in the column [t_lo, t_hi)) on `lane` points at: the
    interval `prefer` (its id: the one selected) where it is in that column."""
    if lane.kind == LANE_GPU:
        hit = _one(cur, "timeline_gpu_at", {"device": lane.k1, "stream": lane.k2, "t": t,
                                            "t_lo": t_lo, "t_hi": t_hi, "prefer": prefer})
        if hit is not None:
            return kernel_info(cur, hit["id"])
        gap = _one(cur, "timeline_gap_at", {"device": lane.k1, "t": t, "t_lo": t_lo,
                                            "t_hi": t_hi, "min_gap_ns": min_gap_ns})
        if gap is None:
            return None
        explained = explain_gap(cur, gap["device"], gap["start_ns"])
        host = range_host_activity(cur, [(gap["start_ns"], gap["end_ns"])])
        return GapInfo(**gap, kind=explained.kind if explained else None,
                       cause=explained.cause if explained else None,
                       host=tuple(host_lines(host.as_dict(), "this gap")) if host else ())
    kind, depth = lane.opened if lane.kind == LANE_OPENED else (None, lane.k3)
    hit = _one(cur, "timeline_host_at", {
        "pid": lane.k1, "tid": lane.k2, "annotation": lane.kind == LANE_NVTX, "kind": kind,
        "depth": depth, "t": t, "t_lo": t_lo, "t_hi": t_hi, "prefer": prefer})
    return host_info(cur, hit["id"]) if hit is not None else None


def host_info(cur: duckdb.DuckDBPyConnection, host_id: int) -> HostInfo | None:
    row = _one(cur, "timeline_host_details", {"id": host_id})
    return HostInfo(id=host_id, **row) if row is not None else None


def kernel_info(cur: duckdb.DuckDBPyConnection, activity_id: int) -> KernelInfo | None:
    row = _one(cur, "timeline_kernel_details", {"id": activity_id})
    if row is None:
        return None
    return KernelInfo(
        id=activity_id, kind=row["kind"], name=row["name"], device=row["device"],
        stream=row["stream"], start_ns=row["start_ns"], duration_ns=row["duration_ns"],
        grid=_triple(row, "grid"), block=_triple(row, "block"),
        registers_per_thread=row["registers_per_thread"],
        shared_memory_bytes=row["shared_memory_bytes"], bytes=row["bytes"],
        copy_kind=row["copy_kind"], correlation=row["correlation"],
        launch_name=row["launch_name"], launch_tid=row["launch_tid"],
        launch_start_ns=row["launch_start_ns"],
        launch_duration_ns=row["launch_duration_ns"], cpu_op=row["cpu_op"],
        nvtx_path=row["nvtx_path"], stack=launch_stack(cur, activity_id),
        op=op_of_activity(cur, activity_id),
    )


def launch_stack(cur: duckdb.DuckDBPyConnection, activity_id: int) -> tuple[StackFrame, ...]:
    """The frames around the call that launched a GPU activity, innermost first."""
    call = cur.execute(load_query("launch_call"), {"id": activity_id}).fetchone()
    return frames_at(cur, *call) if call is not None else ()


def frames_at(cur: duckdb.DuckDBPyConnection, pid: int | None, tid: int | None,
              t: int, frame_id: int | None) -> tuple[StackFrame, ...]:
    """The frames at time `t` on a thread (or, for CUDA backtraces, `frame_id` and those
    above it), innermost first (frames_at.sql)."""
    rows = cur.execute(load_query("frames_at"),
                       {"pid": pid, "tid": tid, "t": t, "frame_id": frame_id}).fetchall()
    return tuple(StackFrame(fid, name, bool(user)) for fid, name, user, _ in rows)


def step_gap(cur: duckdb.DuckDBPyConnection, t: int, forward: bool,
             min_gap_ns: int) -> GapSpan | None:
    row = _one(cur, "timeline_step_gap", {"t": t, "forward": forward,
                                          "min_gap_ns": min_gap_ns})
    return GapSpan(**row) if row is not None else None


def gap_by_rank(cur: duckdb.DuckDBPyConnection, rank: int,
                min_gap_ns: int) -> tuple[GapSpan, int] | None:
    """The `rank`-th largest gap (0 = largest) and how many gaps there are."""
    row = _one(cur, "timeline_gap_rank", {"rank": rank, "min_gap_ns": min_gap_ns})
    if row is None:
        return None
    total = row.pop("gaps")
    return GapSpan(**row), total


def step_kernel(cur: duckdb.DuckDBPyConnection, lane: Lane, t: int,
                forward: bool) -> tuple[int, int, int] | None:
    """(id, start_ns, end_ns) of the next/previous activity on a GPU lane."""
    if lane.kind != LANE_GPU:
        return None
    row = _one(cur, "timeline_step_kernel", {"device": lane.k1, "stream": lane.k2, "t": t,
                                             "forward": forward})
    return (row["id"], row["start_ns"], row["end_ns"]) if row is not None else None
