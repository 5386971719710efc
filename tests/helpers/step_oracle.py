"""Each training step's host range and GPU span, read straight from a trace's own file
(json for Kineto, sqlite3 for an nsys export), for checking what tui derives per step.

A step's GPU span: first start to last end of the GPU work (kernels, copies, sets) whose
launch call began in the step's host range, on any thread of its process."""

from __future__ import annotations

import sqlite3
import statistics
from pathlib import Path

from tests.helpers import oracle


def kineto_steps(path: Path) -> dict[tuple[str, int | None], tuple[int, int, int, int]]:
    """{(step name, pid): (host start, host end, GPU start, GPU end)} of each
    `ProfilerStep#N` (GPU start and end 0 where it launched nothing)."""
    events = [e for e in oracle.chrome_events(path) if e.get("ph") == "X"]
    steps = [(e["name"], e["pid"], oracle.ns(e["ts"]),
              oracle.ns(e["ts"]) + oracle.ns(e["dur"]))
             for e in events if e.get("cat") == "user_annotation"
             and e["name"].startswith("ProfilerStep#")]
    calls = [(oracle.ns(e["ts"]), e["args"]["correlation"]) for e in events
             if e.get("cat") in ("cuda_runtime", "cuda_driver")
             and "correlation" in e.get("args", {})]
    gpu: dict[int, list[tuple[int, int]]] = {}
    for e in events:
        if e.get("cat") in oracle.GPU_CATS and "correlation" in e.get("args", {}):
            start = oracle.ns(e["ts"])
            gpu.setdefault(e["args"]["correlation"], []).append(
                (start, start + oracle.ns(e["dur"])))
    return {(name, pid): (start, end, *_span([w for t, c in calls if start <= t < end
                                              for w in gpu.get(c, [])]))
            for name, pid, start, end in steps}


def nsys_steps(path: Path) -> dict[tuple[str, int | None], tuple[int, int, int, int]]:
    """{(step name, pid): (host start, host end, GPU start, GPU end)} of each NVTX range
    named 'step N' of each process of an nsys export."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        steps = db.execute(
            "SELECT coalesce(e.text, s.value), (e.globalTid >> 24) & 16777215, e.start, e.end "
            "FROM NVTX_EVENTS AS e LEFT JOIN StringIds AS s ON s.id = e.textId "
            "WHERE coalesce(e.text, s.value) LIKE 'step %' AND e.end IS NOT NULL").fetchall()
        calls = db.execute("SELECT (globalTid >> 24) & 16777215, start, correlationId "
                           "FROM CUPTI_ACTIVITY_KIND_RUNTIME").fetchall()
        gpu: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for table in ("KERNEL", "MEMCPY", "MEMSET"):
            for pid, corr, start, end in db.execute(
                    f"SELECT (globalPid >> 24) & 16777215, correlationId, start, end "
                    f"FROM CUPTI_ACTIVITY_KIND_{table}"):
                gpu.setdefault((pid, corr), []).append((start, end))
    return {(name, pid): (start, end, *_span([w for p, t, c in calls
                                              if p == pid and start <= t < end
                                              for w in gpu.get((p, c), [])]))
            for name, pid, start, end in steps}


def _span(work: list[tuple[int, int]]) -> tuple[int, int]:
    if not work:
        return 0, 0
    return min(s for s, _e in work), max(e for _s, e in work)


def kineto_bubble_pct(path: Path) -> float:
    """A pipeline stage's bubble: the median, over every `ProfilerStep#N` that launched GPU
    work, of the share of its GPU span (kineto_steps) in which no compute kernel ran
    (every kernel but NCCL's; overlapping ones counted once)."""
    events = [e for e in oracle.chrome_events(path) if e.get("ph") == "X"]
    kernels = [(oracle.ns(e["ts"]), oracle.ns(e["ts"]) + oracle.ns(e["dur"]))
               for e in events
               if e.get("cat") == "kernel" and "nccl" not in e["name"].lower()]
    shares = []
    for _host_start, _host_end, start, end in kineto_steps(path).values():
        if end <= start:
            continue
        compute, reach = 0, start
        for s, e in sorted((max(s, start), min(e, end)) for s, e in kernels
                           if e > start and s < end):
            compute += max(e - max(s, reach), 0)
            reach = max(reach, e)
        shares.append(100 * (1 - compute / (end - start)))
    return statistics.median(shares)


def nsys_bubble_pct(path: Path) -> dict[int, float]:
    """kineto_bubble_pct of each process of an nsys export, by its GPU's number (a rank of
    the report read as a run)."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        rows = db.execute(
            "SELECT (k.globalPid >> 24) & 16777215, k.deviceId, k.start, k.end, s.value "
            "FROM CUPTI_ACTIVITY_KIND_KERNEL AS k "
            "JOIN StringIds AS s ON s.id = k.shortName").fetchall()
    device = {pid: dev for pid, dev, *_ in rows}
    kernels: dict[int, list[tuple[int, int]]] = {}
    for pid, _dev, start, end, name in rows:
        if "nccl" not in name.lower():
            kernels.setdefault(pid, []).append((start, end))
    shares: dict[int, list[float]] = {}
    for (_name, pid), (_hs, _he, start, end) in nsys_steps(path).items():
        if end <= start:
            continue
        compute, reach = 0, start
        for s, e in sorted((max(s, start), min(e, end)) for s, e in kernels.get(pid, [])
                           if e > start and s < end):
            compute += max(e - max(s, reach), 0)
            reach = max(reach, e)
        shares.setdefault(device[pid], []).append(100 * (1 - compute / (end - start)))
    return {dev: statistics.median(v) for dev, v in shares.items()}
