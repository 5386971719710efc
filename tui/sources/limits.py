"""How far a compressed trace may inflate before tui stops reading it.

A `.json.gz` is inflated into a scratch file on disk (memory stays bounded whatever its
size), so the risk of a gzip bomb (a small file that inflates to terabytes) is a full
disk and a long wait. Reading stops, with a one-line message, once the inflated bytes pass
the smallest of:

- `$TUI_MAX_INFLATED_BYTES` when set (a byte count, or with a K/M/G/T suffix: `64G`);
  otherwise 200 times the compressed size, and never less than 256 MiB. Real profiler
  traces inflate 10 to 35 times; deflate cannot exceed about 1030 times;
- the free space in the scratch directory, less a reserve (1 GiB, or a quarter of the
  free space when that is smaller) left for the cache database and everything else.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from tui.core.errors import TraceError

ENV = "TUI_MAX_INFLATED_BYTES"
RATIO = 200
FLOOR = 256 << 20
RESERVE = 1 << 30
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def parse_size(text: str) -> int:
    """'123', '500M', '64G', '1.5T' -> bytes; TraceError when it is not a size."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?\s*", text, re.IGNORECASE)
    if not match:
        raise TraceError(f"{ENV}={text!r} is not a size; use a byte count or e.g. 500M, 64G")
    return int(float(match.group(1)) * _UNITS[match.group(2).upper()])


def max_inflated_bytes(source: Path, scratch_dir: Path) -> tuple[int, str]:
    """(limit in bytes, what sets it, for the message) for inflating `source`."""
    explicit = os.environ.get(ENV)
    if explicit:
        limit, why = parse_size(explicit), f"the {ENV} limit"
    else:
        limit = max(FLOOR, RATIO * source.stat().st_size)
        why = f"{RATIO}x its compressed size; set {ENV} (e.g. 64G) to allow more"
    try:
        free = shutil.disk_usage(scratch_dir).free
    except OSError:
        return limit, why
    room = free - min(RESERVE, free // 4)
    if room < limit:
        return room, f"the free space in {scratch_dir}; free some or set TUI_CACHE_DIR"
    return limit, why


def size_text(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"
