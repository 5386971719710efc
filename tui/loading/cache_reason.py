"""Why a trace was not opened from its cache: the note a run shows beside its figures.

A cache file's name holds the trace's path, size and modification time and the cache
version (see tui.loading.cache), so a changed trace or a newer `tui` looks for a name that is not
there. The older files are still in the cache dir, and their `trace_meta` says which
trace they were built from and how: that tells "the trace changed" from "an older tui"
from "no cache yet". They are removed once read, so caches of a trace that keeps changing
do not pile up (a multi-GB trace leaves a cache of hundreds of MB).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import duckdb

from tui.loading import cache

FROM_CACHE = "from cache"
NO_CACHE_YET = "built now: no cache yet"
NOT_CACHED_FLAG = "not cached: --no-cache"


def why_missing(trace: Path, target: Path) -> str:
    """The note for a trace whose cache file `target` does not exist (yet)."""
    source = str(trace.resolve())
    stat = trace.stat()
    reasons = []
    for other in _older_caches(target):
        meta = _meta(other)
        if meta is None or meta.get("source_path") != source:
            continue  # another trace of the same name, or not a cache of ours
        reasons.append(_changed(meta, stat.st_size, stat.st_mtime_ns))
        _remove_with_siblings(other)
    if reasons:
        return reasons[0]
    building = _live_partials(target)
    if building:
        return (f"built now: another tui (pid {building[0]}) is building this cache too; "
                "the first to finish is kept")
    return NO_CACHE_YET


def _changed(meta: dict[str, str], size: int, mtime_ns: int) -> str:
    if meta.get("tui_cache_version") != cache.CACHE_VERSION:
        return (f"rebuilt: cache from an older tui (cache version "
                f"{meta.get('tui_cache_version', '?')}, now {cache.CACHE_VERSION})")
    was_size, was_mtime = meta.get("source_size"), meta.get("source_mtime_ns")
    what = []
    if was_size is not None and was_size != str(size):
        what.append(f"size {int(was_size):,} → {size:,} bytes")
    if was_mtime is not None and was_mtime != str(mtime_ns):
        what.append("modified since")
    return f"rebuilt: the trace changed since ({', '.join(what) or 'size/mtime'})"


def _older_caches(target: Path) -> list[Path]:
    """Cache files of traces named like this one (the name's first 40 characters)."""
    prefix = target.name[: -len(".duckdb")].rsplit("-", 1)[0] + "-"
    try:
        return [p for p in target.parent.iterdir()
                if p.name.startswith(prefix) and p.name.endswith(".duckdb") and p != target
                and p.name[len(prefix):-len(".duckdb")].isalnum() and p.is_file()]
    except OSError:
        return []


def _meta(path: Path) -> dict[str, str] | None:
    try:
        con = duckdb.connect(str(path), read_only=True)
    except duckdb.Error:
        return None
    try:
        return dict(con.execute("SELECT key, value FROM trace_meta").fetchall())
    except duckdb.Error:
        return None
    finally:
        con.close()


def _remove_with_siblings(path: Path) -> None:
    """A superseded cache file, and the summary memos and timeline levels kept beside it."""
    stem = path.name[: -len(".duckdb")]
    for other in path.parent.iterdir():
        if other == path or other.name.startswith(stem + "."):
            with contextlib.suppress(OSError):
                other.unlink()


def _live_partials(target: Path) -> list[int]:
    prefix = f"{target.name}.partial-"
    pids = []
    with contextlib.suppress(OSError):
        for other in target.parent.iterdir():
            pid = other.name[len(prefix):].split(".")[0] if other.name.startswith(prefix) else ""
            if pid.isdigit() and int(pid) != os.getpid() and alive(int(pid)):
                pids.append(int(pid))
    return pids


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process
    return True
