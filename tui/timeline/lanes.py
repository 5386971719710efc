"""The timeline's lanes: which rows it draws, in what order, and what each is called."""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from tui.queries import load_query

LANE_GPU, LANE_NVTX, LANE_HOST, LANE_GAP = 0, 1, 2, 3
LANE_MEMORY = 4  # a GPU's memory, drawn by tui/timeline/memory.py
MAX_NVTX_DEPTH = 4  # deeper annotation ranges are rarely worth a row of an 80x24 screen

LaneKey = tuple[int, int, int, int]


@dataclass(frozen=True)
class Lane:
    """One row of the timeline. `key` matches the (lane_kind, k1, k2, k3) of the bins."""

    kind: int  # LANE_GPU | LANE_NVTX | LANE_HOST | LANE_MEMORY
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
    lanes = []
    for kind, k1, k2, k3, count in rows:
        lanes.append(Lane(kind, k1, k2, k3, _label(kind, k1, k2, k3, nvtx_threads, pids),
                          count))
    return lanes


def _label(kind: int, k1: int, k2: int, k3: int, nvtx_threads: set[tuple[int, int]],
           pids: set[int]) -> str:
    if kind == LANE_GPU:
        return f"GPU{k1} s{k2}"
    thread = f"{k1}:{k2}" if len(pids) > 1 else f"{k2}"
    if kind == LANE_NVTX:
        return f"NVTX {k3}" if len(nvtx_threads) == 1 else f"NVTX {thread}.{k3}"
    return f"CPU {thread}"
