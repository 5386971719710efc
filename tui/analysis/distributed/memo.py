"""A trace's distributed figures kept beside its cache file or in its converted store, for
the next run that reads it.

The figures are a pure function of the trace's tables, so `trace_figures` of a cached
trace is stored as `<cache file>.distributed-<FIGURES_VERSION>.json`, with the cache file's
size and modification time, and in a store `tui convert` wrote as
`distributed-<FIGURES_VERSION>.json`, with the sizes of the store's files; a later run
(`tui --summary DIR`, the ranks app) whose rank comes from that unchanged cache or store
reads them back instead of working them out again (~30 ms a DDP rank from a cache, ~40
from a store's Parquet files, against ~1 ms to read). A stale or damaged file is worked
out again and replaced; one that cannot be written is not kept (the figures are still
returned).
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

import duckdb

from tui import __version__
from tui.analysis.distributed.figures import trace_figures

FIGURES_VERSION = "v2"  # bump when the figures' definitions or keys change (v2: where a
# step's critical path starts)


def figures_file(cache_path: Path) -> Path:
    return cache_path.with_name(f"{cache_path.name}.distributed-{FIGURES_VERSION}.json")


def store_figures_file(store_dir: Path) -> Path:
    return store_dir / f"distributed-{FIGURES_VERSION}.json"


def cached_figures(con: duckdb.DuckDBPyConnection, cache_path: Path | None,
                   store_dir: Path | None = None) -> dict:
    """trace_figures(con), read from beside `cache_path` or from the store `store_dir`
    where stored for this very cache file or store, else worked out; then stored in
    whichever of the two lacks them."""
    places = []
    if cache_path is not None:
        places.append((figures_file(cache_path), _stamp([cache_path], mtime=True)))
    if store_dir is not None:
        places.append((store_figures_file(store_dir),
                       _stamp([store_dir / f"{table}.parquet" for table in STAMPED_TABLES])))
    figures, lacking = None, []
    for path, stamp in places:
        stored = _read(path, stamp)
        if stored is None:
            lacking.append((path, stamp))
        elif figures is None:
            figures = stored
    if figures is None:
        figures = trace_figures(con)
    for path, stamp in lacking:
        if stamp is not None:
            # "cache_file": the stamp's key since figures were kept only beside caches
            _write(path, {"cache_file": stamp, "tui_version": __version__,
                          "figures": figures})
    return figures


def _read(path: Path, stamp: list[int] | None) -> dict | None:
    """The figures kept at `path` for `stamp` and this version of tui, if they are."""
    if stamp is None:
        return None
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        if stored.get("cache_file") == stamp and stored.get("tui_version") == __version__:
            return stored["figures"]
    except (OSError, ValueError, AttributeError, KeyError):
        pass
    return None


# a store's files the figures' stamp is made of: rewritten, they change size
STAMPED_TABLES = ("trace_meta", "gpu_activities", "host_activities")


def _stamp(paths: list[Path], mtime: bool = False) -> list[int] | None:
    """The files' sizes (and modification times): a store's survive a copy."""
    stamp = []
    try:
        for path in paths:
            stat = path.stat()
            stamp += [stat.st_size, stat.st_mtime_ns] if mtime else [stat.st_size]
    except OSError:
        return None
    return stamp


def _write(path: Path, data: dict) -> None:
    partial = path.with_name(path.name + f".{os.getpid()}.partial")
    try:
        partial.write_text(json.dumps(data), encoding="utf-8")
        os.replace(partial, path)
    except OSError:
        with contextlib.suppress(OSError):
            partial.unlink()
