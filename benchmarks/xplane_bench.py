"""Decoding .xplane.pb files into trace-viewer rows, beside baselines measured in the same run.

For each file it prints the median of --repeat runs (wall seconds, and CPU seconds of this
process, which a busy machine disturbs less) of:
  - tui: `read_xplane_events(path)` (the rows, args JSON included),
  - protobuf parse: the protobuf runtime (upb, C) parsing the whole XSpace into messages;
    a floor that produces nothing usable yet,
  - Python touch: after that parse, a Python loop that only reads each event's metadata id,
    offset and duration and each stat's metadata id and value: the least a reader that
    walks the events in Python must do.

Scaled files are made by scale_xplane.py from a real recording: label their figures so.

Usage: python benchmarks/xplane_bench.py FILE.xplane.pb [...] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from tui.sources.xplane import read_xplane_events
from tui.sources.xspace_schema import XSpace


def median_time(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median (wall, CPU) seconds of `fn`."""
    wall, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(wall), statistics.median(cpu)


def parse(path: Path) -> XSpace:
    space = XSpace()
    space.ParseFromString(path.read_bytes())
    return space


def touch(path: Path) -> int:
    total = 0
    for plane in parse(path).planes:
        for line in plane.lines:
            for event in line.events:
                total += event.metadata_id + event.offset_ps + event.duration_ps
                for stat in event.stats:
                    kind = stat.WhichOneof("value")
                    total += stat.metadata_id + (kind is not None and bool(getattr(stat, kind)))
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print("| file | MB | events | stats | tui s (CPU s) | protobuf parse s (CPU s) "
          "| Python touch s (CPU s) | tui CPU µs/event | touch / tui, CPU |")
    print("|---|---|---|---|---|---|---|---|---|")
    for path in args.files:
        space = parse(path)
        events = sum(len(line.events) for p in space.planes for line in p.lines)
        stats = sum(len(e.stats) for p in space.planes for line in p.lines for e in line.events)
        tui = median_time(lambda p=path: read_xplane_events(p), args.repeat)
        bare = median_time(lambda p=path: parse(p), args.repeat)
        walk = median_time(lambda p=path: touch(p), args.repeat)
        print(f"| {path.name} | {path.stat().st_size / 1e6:.1f} | {events:,} | {stats:,} "
              f"| {tui[0]:.3f} ({tui[1]:.3f}) | {bare[0]:.3f} ({bare[1]:.3f}) "
              f"| {walk[0]:.3f} ({walk[1]:.3f}) | {tui[1] / events * 1e6:.2f} "
              f"| {walk[1] / tui[1]:.1f}× |", flush=True)


if __name__ == "__main__":
    main()
