"""What a Kineto trace's own events say of its window of work, read from the raw JSON with
no code of tui's: the expected values of the window tests; and an nsys export's GPU-idle
stretches read with sqlite3."""

from __future__ import annotations

import gzip
import json
import sqlite3
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path


def kineto_expected(path: Path) -> dict:
    """From the JSON: the profiler steps, the end of the GPU work launched in them, the
    first event, the GPU's activities and the idle between them (their union's
    complement)."""
    with gzip.open(path, "rt") as f:
        events = [e for e in json.load(f, parse_float=Decimal)["traceEvents"]
                  if e.get("ph") == "X"]

    def ns(e: dict) -> tuple[int, int]:
        """Microseconds to nanoseconds, start and duration each rounded to the ns."""
        start = to_ns(e["ts"])
        return start, start + to_ns(e.get("dur", 0))

    steps = [ns(e) for e in events if e.get("cat") == "user_annotation"
             and e["name"].startswith("ProfilerStep#")]
    start, end = min(s for s, _ in steps), max(e for _, e in steps)
    gpu = [e for e in events if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    launched = {e["args"]["correlation"] for e in events
                if e.get("cat") in ("cuda_runtime", "cuda_driver")
                and start <= ns(e)[0] < end and "correlation" in e.get("args", {})}
    launched_end = max(ns(e)[1] for e in gpu if e["args"].get("correlation") in launched)
    activities = [ns(e) for e in gpu]
    first_gpu, last_gpu = min(s for s, _ in activities), max(e for _, e in activities)
    idle = [(a[1], b[0]) for a, b in zip(sorted(activities), sorted(activities)[1:],
                                         strict=False)]  # not a union: checked below
    return {"start": start, "end": max(end, launched_end),
            "first": min(ns(e)[0] for e in events if e.get("cat") != "Trace"),
            "activities": activities, "first_gpu": first_gpu, "last_gpu": last_gpu,
            "kernels": [ns(e) for e in gpu if e["cat"] == "kernel"], "idle": idle,
            "steps": len(steps)}


def to_ns(us: Decimal | int) -> int:
    return int((Decimal(us) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def union_within(intervals: list[tuple[int, int]], lo: int, hi: int) -> int:
    """The length of the union of `intervals` (start, end) within lo..hi."""
    total, reach = 0, lo
    for start, end in sorted(intervals):
        start, end = max(start, reach), min(end, hi)
        if end > start:
            total += end - start
            reach = end
    return total


# what NVIDIA's gpu_gaps rule unions; a CUDA graph traced whole is a row of GRAPH_TABLE
ACTIVITY_TABLES = ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                   "CUPTI_ACTIVITY_KIND_MEMSET")
GRAPH_TABLE = "CUPTI_ACTIVITY_KIND_GRAPH_TRACE"


def nsys_intervals(path: Path, tables: tuple[str, ...]) -> list[tuple[int, int]]:
    """(start, end) of every row of `tables` (those the export has) in an nsys export."""
    db = sqlite3.connect(path)
    present = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
    return [row for t in tables if t in present
            for row in db.execute(f"SELECT start, end FROM {t}")]


def gaps_over(intervals: list[tuple[int, int]], min_ns: int) -> list[tuple[int, int]]:
    """(start, duration) of the stretches over `min_ns` where nothing ran, longest first."""
    out, reach = [], None
    for start, end in sorted(intervals):
        if reach is not None and start - reach > min_ns:
            out.append((reach, start - reach))
        reach = end if reach is None else max(reach, end)
    return sorted(out, key=lambda g: (-g[1], g[0]))
