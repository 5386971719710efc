"""The timeline's lanes: which rows it draws, in what order, and what each is called."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import duckdb

from tui.core.queries import load_query

LANE_GPU, LANE_NVTX, LANE_HOST, LANE_GAP = 0, 1, 2, 3
LANE_MEMORY = 4  # a GPU's memory, drawn by tui/views/timeline/memory.py
LANE_QUEUE = 5  # a stream's queue length, drawn by tui/views/timeline/distributed_lanes.py
LANE_CRITICAL = 6  # the steps' critical path, drawn by tui/views/timeline/distributed_lanes.py
LABEL_CHARS = 12  # a lane label's room: theme.LABEL_WIDTH less the separator and a space
MAX_NVTX_DEPTH = 4  # deeper annotation ranges are rarely worth a row of an 80x24 screen

LANE_METRIC = 8  # a GPU's hardware counters, drawn by tui/views/timeline/gpu_metrics.py
LANE_OPENED = 7  # one kind of a host thread's ranges at one depth: opened to show one
# host_activities' kinds, numbered in an opened lane's key: k3 = number * DEPTHS + depth
# (queries/views/timeline_search.sql numbers them so too)
HOST_KINDS = ("annotation", "python", "cpu_op", "runtime")
DEPTHS = 1 << 16
_OPENED_NAMES = {"annotation": "NVTX", "python": "python", "cpu_op": "cpu op",
                 "runtime": "CUDA"}

LaneKey = tuple[int, int, int, int]


@dataclass(frozen=True)
class Lane:
    """One row of the timeline. `key` matches the (lane_kind, k1, k2, k3) of the bins."""

    kind: int  # LANE_GPU | LANE_NVTX | LANE_HOST | LANE_MEMORY | LANE_QUEUE | LANE_CRITICAL
    #           | LANE_OPENED | LANE_METRIC
    k1: int  # device | pid | pid | device | device | 0 | pid | device
    k2: int  # stream | tid | tid | ALLOCATED or RESERVED | stream | 0 | tid | metric lane
    k3: int  # 0 | annotation depth | 0 | 0 | 0 | 0 | kind number * DEPTHS + depth | 0
    label: str
    activities: int

    @property
    def key(self) -> LaneKey:
        return (self.kind, self.k1, self.k2, self.k3)

    @property
    def is_gpu(self) -> bool:
        return self.kind == LANE_GPU

    @property
    def opened(self) -> tuple[str, int]:
        """An opened lane's host kind and depth."""
        return opened_kind(self.k3)


def opened_kind(k3: int) -> tuple[str, int]:
    """(host kind, depth) of an opened lane's k3."""
    number, depth = divmod(k3, DEPTHS)
    return (HOST_KINDS[number] if number < len(HOST_KINDS) else "", depth)


def annotation_lane(pid: int, tid: int, depth: int) -> LaneKey:
    """The key of the lane that shows an annotation range: its depth's, else one opened."""
    if depth < MAX_NVTX_DEPTH:
        return (LANE_NVTX, pid, tid, depth)
    return (LANE_OPENED, pid, tid, HOST_KINDS.index("annotation") * DEPTHS + depth)


def opened_lane(pid: int, tid: int, k3: int) -> Lane:
    """The lane of one kind of a thread's ranges at one depth, put under the thread's
    lanes: '└ python 14' (the 15th frame down), '└ NVTX 5'."""
    kind, depth = opened_kind(k3)
    return Lane(LANE_OPENED, pid, tid, k3, f"└ {_OPENED_NAMES.get(kind, kind)} {depth}", 0)


def discover_lanes(cur: duckdb.DuckDBPyConnection
                   ) -> tuple[list[Lane], dict[tuple[int, int], str]]:
    """The lanes, and the full name of each named host thread (pid, tid), for the details
    (a lane's label may carry a cut name and a short id)."""
    rows = cur.execute(load_query("timeline_lanes"), {"max_depth": MAX_NVTX_DEPTH}).fetchall()
    nvtx_threads = {(k1, k2) for kind, k1, k2, _, _ in rows if kind == LANE_NVTX}
    pids = {k1 for kind, k1, _, _, _ in rows if kind != LANE_GPU}
    host = {(k1, k2) for kind, k1, k2, _, _ in rows if kind != LANE_GPU}
    names = _names(cur)
    parts = _thread_parts(host, names, len(pids) > 1)
    labels = _apart({(kind, k1, k2, k3): _label_parts(kind, k1, k2, k3, nvtx_threads, parts)
                     for kind, k1, k2, k3, _ in rows})
    lanes = [Lane(kind, k1, k2, k3, labels[(kind, k1, k2, k3)], count)
             for kind, k1, k2, k3, count in rows]
    full = {key: name for key in host if (name := thread_name(*names.get(key, ("", ""))))}
    return lanes, full


def _names(cur: duckdb.DuckDBPyConnection) -> dict[tuple[int, int], tuple[str, str]]:
    """(pid, tid) -> (process name, thread name) where the trace names them."""
    try:
        rows = cur.execute(load_query("timeline_thread_names")).fetchall()
    except duckdb.CatalogException:  # a store written without the threads table
        return {}
    return {(pid, tid): (process or "", thread or "") for pid, tid, process, thread in rows}


_KINETO_THREAD = re.compile(r"^thread \d+ \((.*)\)$")  # Kineto: 'thread 474 (python3)'
# XLA names a pool's threads 'pool/ID' ('pjrt_async_work_runner/-7602739265755046145',
# 'Host Threads/1000'): the pool is the name, the tid tells its threads apart
_XLA_POOL_THREAD = re.compile(r"^(.+?)/-?\d+$")
SHORT_ID_DIGITS = 4  # a tid's leading digits on a label, more where they are not enough
Parts = tuple[str, str]  # a thread's label: (its name, a short id where the name is shared)


def thread_name(process: str, thread: str) -> str:
    """A thread's full name: the trace's (Kineto's 'thread N (NAME)' as NAME), else its
    process's; "" when the trace names neither."""
    match = _KINETO_THREAD.match(thread)
    return (match.group(1) if match else thread).strip() or process.strip()


def thread_labels(threads: set[tuple[int, int]], names: dict[tuple[int, int], tuple[str, str]],
                  many_pids: bool) -> dict[tuple[int, int], str]:
    """A label per host thread: its name (an XLA pool thread's: the pool's) and, where
    threads share that name, a short id (the tid's leading digits) that fits the label
    with the name cut; pid:tid only when unnamed."""
    return _apart({key: (name, short_id, "") for key, (name, short_id) in
                   _thread_parts(threads, names, many_pids).items()})


def _thread_parts(threads: set[tuple[int, int]],
                  names: dict[tuple[int, int], tuple[str, str]],
                  many_pids: bool) -> dict[tuple[int, int], Parts]:
    base: dict[tuple[int, int], str] = {}
    for pid, tid in threads:
        name = thread_name(*names.get((pid, tid), ("", "")))
        pool = _XLA_POOL_THREAD.match(name)
        base[(pid, tid)] = pool.group(1) if pool else name
    groups: dict[str, list[int]] = {}
    for (_, tid), name in base.items():
        groups.setdefault(name, []).append(tid)
    short = {name: short_ids(tids) for name, tids in groups.items() if len(tids) > 1 and name}
    parts = {}
    for (pid, tid), name in base.items():
        if not name:
            parts[(pid, tid)] = (f"{pid}:{tid}" if many_pids else f"{tid}", "")
        else:
            parts[(pid, tid)] = (name, short[name][tid] if name in short else "")
    return parts


def short_ids(tids: list[int]) -> dict[int, str]:
    """Each tid's leading digits, as few as tell these tids apart (at least
    SHORT_ID_DIGITS): 4155469621 -> '4155'."""
    digits = {tid: str(tid) for tid in tids}
    for n in range(SHORT_ID_DIGITS, max(map(len, digits.values())) + 1):
        cut = {tid: text[:n] for tid, text in digits.items()}
        if len(set(cut.values())) == len(cut):
            return cut
    return digits


LabelParts = tuple[str, str, str]  # (name, short id, suffix such as ' ·1')


def _apart(items: dict[Any, LabelParts]) -> dict[Any, str]:
    """A label for each item: its name cut at the end to fit (the short id and suffix
    kept), or, where that makes two labels alike ('pt_autograd_0' and 'pt_autograd_1'
    both 'pt_autograd_'), cut in the middle ('pt_aut…rad_0')."""
    cut = {key: _compose(*parts) for key, parts in items.items()}
    seen: dict[str, int] = {}
    for label in cut.values():
        seen[label[:LABEL_CHARS]] = seen.get(label[:LABEL_CHARS], 0) + 1
    return {key: _compose(*items[key], middle=True) if seen[label[:LABEL_CHARS]] > 1
            else label for key, label in cut.items()}


def _compose(name: str, short_id: str, suffix: str, middle: bool = False) -> str:
    """`name`, its `short_id` and `suffix` as a label. With an id or a suffix the name is
    cut (…) so that they fit; a name alone is left whole (the label column cuts it)
    unless `middle`."""
    tail = f" {short_id}{suffix}" if short_id else suffix
    room = LABEL_CHARS - len(tail)
    if len(name) <= room or not (tail or middle):
        return name + tail
    if middle and len(name) > room > 2:
        head = room // 2
        return name[:head] + "…" + name[len(name) - (room - head - 1):] + tail
    return name[: max(1, room - 1)] + "…" + tail


def _label_parts(kind: int, k1: int, k2: int, k3: int, nvtx_threads: set[tuple[int, int]],
                 threads: dict[tuple[int, int], Parts]) -> LabelParts:
    if kind == LANE_GPU:
        return (f"GPU{k1} s{k2}", "", "")
    name, short_id = threads[(k1, k2)]
    if kind == LANE_NVTX:
        return (f"NVTX {k3}", "", "") if len(nvtx_threads) == 1 else (name, short_id, f" ·{k3}")
    return (name if not name[:1].isdigit() else f"CPU {name}", short_id, "")
