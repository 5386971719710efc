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
