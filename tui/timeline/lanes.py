"""The timeline's lanes: which rows it draws, in what order, and what each is called."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import duckdb

from tui.queries import load_query

LANE_GPU, LANE_NVTX, LANE_HOST, LANE_GAP = 0, 1, 2, 3
LANE_MEMORY = 4  # a GPU's memory, drawn by tui/timeline/memory.py
LANE_QUEUE = 5  # a stream's queue length, drawn by tui/timeline/distributed_lanes.py
LANE_CRITICAL = 6  # the steps' critical path, drawn by tui/timeline/distributed_lanes.py
LABEL_CHARS = 12  # a lane label's room: theme.LABEL_WIDTH less the separator and a space
MAX_NVTX_DEPTH = 4  # deeper annotation ranges are rarely worth a row of an 80x24 screen

LaneKey = tuple[int, int, int, int]
NAME_ROOM = 10  # characters the lane-label column shows (theme.LABEL_WIDTH - 2)


@dataclass(frozen=True)
class Lane:
    """One row of the timeline. `key` matches the (lane_kind, k1, k2, k3) of the bins."""

    kind: int  # LANE_GPU | LANE_NVTX | LANE_HOST | LANE_MEMORY | LANE_QUEUE | LANE_CRITICAL
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


def discover_lanes(cur: duckdb.DuckDBPyConnection
                   ) -> tuple[list[Lane], dict[tuple[int, int], str]]:
    """The lanes, and the name of each host thread (pid, tid) as its lanes call it."""
    rows = cur.execute(load_query("timeline_lanes"), {"max_depth": MAX_NVTX_DEPTH}).fetchall()
    nvtx_threads = {(k1, k2) for kind, k1, k2, _, _ in rows if kind == LANE_NVTX}
    pids = {k1 for kind, k1, _, _, _ in rows if kind != LANE_GPU}
    threads = thread_labels({(k1, k2) for kind, k1, k2, _, _ in rows if kind != LANE_GPU},
                            _names(cur), len(pids) > 1)
    lanes = []
    for kind, k1, k2, k3, count in rows:
        lanes.append(Lane(kind, k1, k2, k3, _label(kind, k1, k2, k3, nvtx_threads, threads),
                          count))
    return lanes, threads


def _names(cur: duckdb.DuckDBPyConnection) -> dict[tuple[int, int], tuple[str, str]]:
    """(pid, tid) -> (process name, thread name) where the trace names them."""
    try:
        rows = cur.execute(load_query("timeline_thread_names")).fetchall()
    except duckdb.CatalogException:  # a store written without the threads table
        return {}
    return {(pid, tid): (process or "", thread or "") for pid, tid, process, thread in rows}


_KINETO_THREAD = re.compile(r"^thread \d+ \((.*)\)$")  # Kineto: 'thread 474 (python3)'


def thread_labels(threads: set[tuple[int, int]], names: dict[tuple[int, int], tuple[str, str]],
                  many_pids: bool) -> dict[tuple[int, int], str]:
    """A label per host thread: its name (Kineto's 'thread N (NAME)' as NAME), else its
    process's; with the tid where two threads share a name; pid:tid only when unnamed."""
    base: dict[tuple[int, int], str] = {}
    for pid, tid in threads:
        process, thread = names.get((pid, tid), ("", ""))
        match = _KINETO_THREAD.match(thread)
        base[(pid, tid)] = (match.group(1) if match else thread).strip() or process.strip()
    counts = Counter(base.values())
    labels = {}
    for (pid, tid), name in base.items():
        if not name:
            labels[(pid, tid)] = f"{pid}:{tid}" if many_pids else f"{tid}"
        else:
            labels[(pid, tid)] = name if counts[name] == 1 else _fit(name, f" {tid}")
    return labels


def _fit(name: str, suffix: str) -> str:
    """`name` + `suffix` within a lane label, the name cut (…) so the suffix stays."""
    room = LABEL_CHARS - len(suffix)
    return (name if len(name) <= room else name[: max(1, room - 1)] + "…") + suffix


def _label(kind: int, k1: int, k2: int, k3: int, nvtx_threads: set[tuple[int, int]],
           threads: dict[tuple[int, int], str]) -> str:
    if kind == LANE_GPU:
        return f"GPU{k1} s{k2}"
    thread = threads[(k1, k2)]
    if kind == LANE_NVTX:
        return f"NVTX {k3}" if len(nvtx_threads) == 1 else _fit(thread, f" ·{k3}")
    return thread if not thread[:1].isdigit() else f"CPU {thread}"
