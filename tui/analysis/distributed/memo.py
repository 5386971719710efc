"""A trace's distributed figures kept beside its cache file, for the next run that reads it.

The figures are a pure function of the cached tables, so `trace_figures` of a cached trace
is stored as `<cache file>.distributed-<FIGURES_VERSION>.json`, with the cache file's size
and modification time; a later run (`tui --summary DIR`, the ranks app) whose rank comes
from that unchanged cache reads them back instead of working them out again (~40 ms a
DDP rank, against ~1 ms to read). A stale or damaged file is worked out again and
replaced; one that cannot be written is not kept (the figures are still returned).
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

import duckdb

from tui import __version__
from tui.analysis.distributed.figures import trace_figures

FIGURES_VERSION = "v1"  # bump when the figures' definitions or keys change


def figures_file(cache_path: Path) -> Path:
    return cache_path.with_name(f"{cache_path.name}.distributed-{FIGURES_VERSION}.json")


def cached_figures(con: duckdb.DuckDBPyConnection, cache_path: Path | None) -> dict:
    """trace_figures(con), read from beside `cache_path` where stored for this very cache
    file, else worked out (and stored there)."""
    if cache_path is None:
        return trace_figures(con)
    stamp = _stamp(cache_path)
    path = figures_file(cache_path)
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        if (stored.get("cache_file") == stamp and stamp is not None
                and stored.get("tui_version") == __version__):
            return stored["figures"]
    except (OSError, ValueError, AttributeError, KeyError):
        pass
    figures = trace_figures(con)
    if stamp is not None:
        _write(path, {"cache_file": stamp, "tui_version": __version__, "figures": figures})
    return figures


def _stamp(cache_path: Path) -> list[int] | None:
    try:
        stat = cache_path.stat()
    except OSError:
        return None
    return [stat.st_size, stat.st_mtime_ns]


def _write(path: Path, data: dict) -> None:
    partial = path.with_name(path.name + f".{os.getpid()}.partial")
    try:
        partial.write_text(json.dumps(data), encoding="utf-8")
        os.replace(partial, path)
    except OSError:
        with contextlib.suppress(OSError):
            partial.unlink()
