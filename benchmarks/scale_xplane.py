"""Write a scaled copy of a real .xplane.pb: every line's events repeated N times.

Copy k of a line's events is shifted by k times the line's span, so the copies follow one
another in time; metadata is shared. The output is GENERATED from a real recording: label
figures measured on it as scaled.

Usage: python benchmarks/scale_xplane.py SOURCE.xplane.pb N OUT.xplane.pb [PLANE_PREFIX]
(with PLANE_PREFIX, e.g. /device:, only the planes whose name starts so are scaled)
"""

from __future__ import annotations

import sys
from pathlib import Path

from tui.sources.xspace_schema import XSpace


def scale(source: Path, copies: int, out: Path, planes: str = "") -> int:
    space = XSpace()
    space.ParseFromString(source.read_bytes())
    total = 0
    for plane in space.planes:
        times = copies if plane.name.startswith(planes) else 1
        for line in plane.lines:
            events = list(line.events)
            if not events:
                continue
            span = max(e.offset_ps + e.duration_ps for e in events) + 1_000_000
            for k in range(1, times):
                for e in events:
                    copy = line.events.add()
                    copy.CopyFrom(e)
                    copy.offset_ps = e.offset_ps + k * span
            total += len(line.events)
    out.write_bytes(space.SerializeToString())
    return total


if __name__ == "__main__":
    src, n, dst = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
    events = scale(src, n, dst, *sys.argv[4:5])
    print(f"{dst}: {events:,} events, {dst.stat().st_size / 1e6:.1f} MB (scaled {n}x from {src})")
