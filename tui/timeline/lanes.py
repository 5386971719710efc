"""The timeline's lanes: which rows it draws, in what order, and what each is called."""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from tui.queries import load_query

LANE_GPU, LANE_NVTX, LANE_HOST, LANE_GAP = 0, 1, 2, 3
MAX_NVTX_DEPTH = 4  # deeper annotation ranges are rarely worth a row of an 80x24 screen

LaneKey = tuple[int, int, int, int]
NAME_ROOM = 10  # characters the lane-label column shows (theme.LABEL_WIDTH - 2)


@dataclass(frozen=True)
class Lane:
    """One row of the timeline. `key` matches the (lane_kind, k1, k2, k3) of the bins."""

    kind: int  # LANE_GPU | LANE_NVTX | LANE_HOST
    k1: int  # device | pid | pid
    k2: int  # stream | tid | tid
    k3: int  # 0 | annotation depth | 0
    label: str
    activities: int

    @property
    def key(self) -> LaneKey:
        return (self.kind, self.k1, self.k2, self.k3)

    @property
    def is_gpu(self) -> bool:
        return self.kind == LANE_GPU


def discover_lanes(cur: duckdb.DuckDBPyConnection) -> list[Lane]:
    rows = cur.execute(load_query("timeline_lanes"), {"max_depth": MAX_NVTX_DEPTH}).fetchall()
    nvtx_threads = {(k1, k2) for kind, k1, k2, _, _ in rows if kind == LANE_NVTX}
    pids = {k1 for kind, k1, _, _, _ in rows if kind != LANE_GPU}
    names = _thread_names(cur)
    lanes = []
    for kind, k1, k2, k3, count in rows:
        label = _label(kind, k1, k2, k3, nvtx_threads, pids)
        name = names.get((k1, k2), "") if kind == LANE_HOST else ""
        if 0 < len(name) <= NAME_ROOM:  # 'python3'; a longer one would be cut unreadable
            label = name
        lanes.append(Lane(kind, k1, k2, k3, label, count))
    return lanes


def _thread_names(cur: duckdb.DuckDBPyConnection) -> dict[tuple[int, int], str]:
    """(pid, tid) -> the name the trace gave the thread; {} where it gave none (or the
    database predates the table, e.g. a Parquet store)."""
    try:
        return {(pid, tid): name for pid, tid, name in
                cur.execute("SELECT pid, tid, name FROM thread_names").fetchall()}
    except duckdb.CatalogException:
        return {}


def _label(kind: int, k1: int, k2: int, k3: int, nvtx_threads: set[tuple[int, int]],
           pids: set[int]) -> str:
    if kind == LANE_GPU:
        return f"GPU{k1} s{k2}"
    thread = f"{k1}:{k2}" if len(pids) > 1 else f"{k2}"
    if kind == LANE_NVTX:
        return f"NVTX {k3}" if len(nvtx_threads) == 1 else f"NVTX {thread}.{k3}"
    return f"CPU {thread}"
