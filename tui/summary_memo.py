"""The `--summary` of a cached trace, kept beside its cache file for the next warm open.

A summary is a pure function of the cached database and the gap threshold, so once
computed it is stored as `<cache file>.summary-<min_gap_ns>.json` (written under a
temporary name, then renamed) and a later `tui --summary` of the unchanged trace prints
it without opening the database. The cache file's name changes with the trace (path,
size, mtime) and with CACHE_VERSION, and the memo is only trusted while its cache file
is the very file it was computed from (same size and modification time) and names the
same `tui` version, so it goes stale when the cache does: rebuilt, damaged, replaced.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import TextIO

from tui import __version__, cache

_SLICE = 16 << 20  # characters written at a time (write_text)


def memo_file(cache_path: Path, min_gap_ns: int) -> Path:
    return cache_path.with_name(f"{cache_path.name}.summary-{min_gap_ns}.json")


def read_memo(trace_path: Path, min_gap_ns: int) -> dict | None:
    """The stored summary of `trace_path`, or None when there is none to trust."""
    try:
        cache_path = cache.cache_file(trace_path)
        stored = json.loads(memo_file(cache_path, min_gap_ns).read_text())
        cache_stamp = _stamp(cache_path)
    except (OSError, ValueError):
        return None
    if (not isinstance(stored, dict) or stored.get("tui_version") != __version__
            or stored.get("cache_file") != cache_stamp):
        return None
    summary = stored.get("summary")
    if not isinstance(summary, dict) or not isinstance(summary.get("source"), dict):
        return None
    summary["source"]["path"] = str(trace_path)  # as given this time
    summary["source"]["from_cache"] = True
    summary["source"]["cache_note"] = "from cache (summary stored)"
    return summary


def write_memo(cache_path: Path, min_gap_ns: int, text: str) -> None:
    """Store a summary, given as its JSON `text`; a cache dir that cannot take it only
    costs the next open time."""
    target = memo_file(cache_path, min_gap_ns)
    partial = target.with_name(f"{target.name}.partial-{os.getpid()}")
    try:
        head = json.dumps({"tui_version": __version__, "cache_file": _stamp(cache_path)})
        with open(partial, "w", encoding="utf-8") as out:
            out.write(head[:-1] + ', "summary": ')
            write_text(out, text)
            out.write("}")
        os.replace(partial, target)
    except (OSError, TypeError, ValueError):
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)


def write_text(out: TextIO, text: str) -> None:
    """Write `text` a slice at a time: a text stream encodes what it is given whole, so a
    0.3 GB summary written at once took another 0.3 GB."""
    for at in range(0, len(text), _SLICE):
        out.write(text[at : at + _SLICE])


def _stamp(cache_path: Path) -> list[int]:
    """What identifies this cache file's content: its size and modification time."""
    stat = cache_path.stat()
    return [stat.st_size, stat.st_mtime_ns]
