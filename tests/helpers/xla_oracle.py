"""An independent reading of an XLA trace-viewer JSON with Python's json module: GPU
kernels per name, devices and GPU-idle gaps, for the loader's tests to compare with."""

from __future__ import annotations

import gzip
import json
import re
from collections import defaultdict
from decimal import Decimal
from pathlib import Path


def read_events(path: Path) -> list[dict]:
    # parse_float=Decimal: the µs as written, so µs * 1000 is exact ns
    doc = json.loads(gzip.decompress(path.read_bytes()), parse_float=Decimal)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def ns(us: Decimal) -> int:
    """µs as written to the nearest ns: XProf writes a time as its double's 17 digits
    (39.927999999999997 for 39.928)."""
    return int((Decimal(us) * 1000).to_integral_value())


def gpu_events(events: list[dict]) -> list[tuple[int, str, str, int, int]]:
    """(device, kind, name, start_ns, end_ns) of each complete event of a /device:GPU:N
    process; kind from the args that say what it is."""
    devices = {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "process_name":
            m = re.fullmatch(r"/device:GPU:(\d+)", e["args"]["name"])
            if m:
                devices[e["pid"]] = int(m.group(1))
    out = []
    for e in events:
        if e.get("ph") != "X" or e.get("pid") not in devices:
            continue
        args = e.get("args", {})
        kind = ("memcpy" if "memcpy_details" in args else
                "memset" if "Memset_details" in args else "kernel")
        start = ns(e["ts"])
        out.append((devices[e["pid"]], kind, e["name"], start, start + ns(e["dur"])))
    return out


def kernels_by_name(events: list[dict]) -> dict[str, tuple[int, int]]:
    """name -> (count, total ns) of the GPU kernels."""
    stats: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for _, kind, name, start, end in gpu_events(events):
        if kind == "kernel":
            stats[name][0] += 1
            stats[name][1] += end - start
    return {name: (n, total) for name, (n, total) in stats.items()}


def gaps(events: list[dict], min_ns: int) -> set[tuple[int, int, int]]:
    """(device, start_ns, duration_ns) of every stretch longer than min_ns in which no
    GPU activity of the device runs, between its first and last activity."""
    per_device: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for device, _, _, start, end in gpu_events(events):
        per_device[device].append((start, end))
    found = set()
    for device, spans in per_device.items():
        spans.sort()
        busy_until = spans[0][1]
        for start, end in spans[1:]:
            if start - busy_until > min_ns:
                found.add((device, busy_until, start - busy_until))
            busy_until = max(busy_until, end)
    return found


def _host_spans(events: list[dict]) -> list[tuple[int, int, int, int, dict]]:
    """(pid, tid, start_ns, end_ns, event) of the complete events of the /host: processes."""
    hosts = {e["pid"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"
             and e["args"]["name"].startswith("/host:")}
    return [(e["pid"], e["tid"], ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), e)
            for e in events if e.get("ph") == "X" and e.get("pid") in hosts]


def _frames_by_thread(events: list[dict]) -> dict[tuple[int, int], list[tuple[int, int, str]]]:
    """JAX's Python tracer's frames ('$file.py:12 func') per thread: (start, end, name
    without the tracer's '$'), outermost first at equal starts."""
    frames: dict[tuple[int, int], list[tuple[int, int, str]]] = defaultdict(list)
    for pid, tid, start, end, e in _host_spans(events):
        if e["name"].startswith("$"):
            frames[(pid, tid)].append((start, end, e["name"][1:]))
    for spans in frames.values():
        spans.sort(key=lambda s: (s[0], -(s[1] - s[0])))
    return frames


def frame_parents(events: list[dict]) -> dict[tuple[str, str | None], int]:
    """(frame name, name of the frame enclosing it one level up, or None) -> how many."""
    out: dict[tuple[str, str | None], int] = defaultdict(int)
    for spans in _frames_by_thread(events).values():
        open_frames: list[tuple[int, int, str]] = []
        for start, end, name in spans:
            while open_frames and open_frames[-1][1] <= start:
                open_frames.pop()
            out[(name, open_frames[-1][2] if open_frames else None)] += 1
            open_frames.append((start, end, name))
    return dict(out)


def launch_frames(events: list[dict]) -> dict[tuple[str, str | None], int]:
    """(GPU activity name, the innermost Python frame open on the launching thread when the
    host event with its correlation_id started, or None) -> how many."""
    calls = {}
    for pid, tid, start, _, e in _host_spans(events):
        correlation = e.get("args", {}).get("correlation_id")
        if correlation is not None:
            calls.setdefault(correlation, (pid, tid, start))
    frames = _frames_by_thread(events)
    out: dict[tuple[str, str | None], int] = defaultdict(int)
    devices = {e["pid"] for e in events if e.get("ph") == "M"
               and e.get("name") == "process_name"
               and re.fullmatch(r"/device:GPU:\d+", e["args"]["name"])}
    for e in events:
        if e.get("ph") != "X" or e.get("pid") not in devices:
            continue
        call = calls.get(e.get("args", {}).get("correlation_id"))
        if call is None:
            continue
        pid, tid, t = call
        open_at = [s for s in frames.get((pid, tid), []) if s[0] <= t < s[1]]
        out[(e["name"], open_at[-1][2] if open_at else None)] += 1
    return dict(out)
