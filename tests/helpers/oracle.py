"""Independent reference answers computed with the json module, for checking the loaders.

Slow, obvious Python over the small sample traces: a second implementation that shares no
code with tui's DuckDB path.
"""

from __future__ import annotations

import functools
import gzip
import json
from decimal import Decimal
from pathlib import Path

GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset"}


def chrome_events(path: Path) -> list[dict]:
    """The trace's events, decoded once per test process and shared by every caller (a
    test that changes them changes copies)."""
    stat = path.stat()
    return _chrome_events(path.resolve(), stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=8)
def _chrome_events(path: Path, _size: int, _mtime_ns: int) -> list[dict]:
    opener = gzip.open if path.read_bytes()[:2] == b"\x1f\x8b" else open
    with opener(path, "rt") as f:
        data = json.load(f, parse_float=Decimal)
    return data["traceEvents"] if isinstance(data, dict) else data


def complete_events_in_prefix(text: str) -> list[dict]:
    """Events of a cut-off Chrome trace that are complete, decoded one by one."""
    decoder = json.JSONDecoder(parse_float=Decimal)
    i = text.find("[", text.index('"traceEvents"')) + 1
    if i == 0:  # cut between the key and its array: no event yet
        return []
    events = []
    while True:
        while i < len(text) and text[i] in " \t\r\n,":
            i += 1
        try:
            event, i = decoder.raw_decode(text, i)
        except json.JSONDecodeError:
            return events
        events.append(event)


def ns(value: Decimal) -> int:
    return int((Decimal(value) * 1000).to_integral_value())


def gpu_intervals(events: list[dict]) -> list[tuple[int, int, int, str]]:
    """(device, start_ns, end_ns, cat) of every GPU event."""
    return [
        (int(e["pid"]), ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), e["cat"])
        for e in events
        if e.get("ph") == "X" and e.get("cat") in GPU_CATS
    ]


def idle_gaps(intervals: list[tuple[int, int, int, str]], longer_than_ns: int) -> list[tuple]:
    """(device, start, duration) of holes in the union of intervals, by a plain sweep."""
    gaps = []
    for device in sorted({i[0] for i in intervals}):
        spans = sorted((s, e) for d, s, e, _ in intervals if d == device)
        busy_until = spans[0][1]
        for start, end in spans[1:]:
            if start > busy_until and start - busy_until > longer_than_ns:
                gaps.append((device, busy_until, start - busy_until))
            busy_until = max(busy_until, end)
    return sorted(gaps, key=lambda g: (-g[2], g[1]))
