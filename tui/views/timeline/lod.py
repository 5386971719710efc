"""The level-of-detail summary behind coarse zoom on big traces, and where it is kept.

Level 0 bins the whole trace at a fixed fine width (timeline_bins.sql); each level above
is LOD_FACTOR times coarser. Building it reads every interval once (about a second at
4M kernels), so it is saved in a file beside the trace's cache and attached, read-only,
the next time the trace is opened. Files are written under a temporary name and renamed
when complete, as the cache itself is. Without a cache the summary lives in memory.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import duckdb

from tui.core.db import insert_rows, sql_string
from tui.core.queries import fill, fragment, load_query

LOD_VERSION = "1"  # bump when timeline_bins.sql or the summary's tables change meaning
LOD_BINS = 1 << 16  # level-0 bins across the whole trace
LOD_FACTOR = 8  # each level is this much coarser than the one below
LOD_MAX_BINS = 2048  # stop adding levels once a level has this few bins
ALIAS = "timeline_lod"  # the name the timeline_lod_*.sql queries use


def lod_file(cache_path: Path | None, min_gap_ns: int) -> Path | None:
    """The summary's file for a cached trace (gap shading depends on the threshold)."""
    if cache_path is None:
        return None
    return cache_path.with_name(f"{cache_path.stem}.timeline-v{LOD_VERSION}-{min_gap_ns}.duckdb")


def attach_or_build(con: duckdb.DuckDBPyConnection, span: tuple[int, int], min_gap_ns: int,
                    path: Path | None) -> list[int]:
    """Attach the summary as `timeline_lod`; returns each level's bin width."""
    con.execute(f"DETACH DATABASE IF EXISTS {ALIAS}")
    if path is not None and path.is_file():
        try:
            con.execute(f"ATTACH {sql_string(str(path))} AS {ALIAS} (READ_ONLY)")
            return [w for (w,) in con.execute(
                f"SELECT width FROM {ALIAS}.levels ORDER BY level").fetchall()]
        except duckdb.Error:  # damaged or foreign: build it again
            con.execute(f"DETACH DATABASE IF EXISTS {ALIAS}")
            path.unlink(missing_ok=True)
    if path is not None:
        partial = path.with_name(f"{path.name}.partial-{os.getpid()}")
        try:
            con.execute(f"ATTACH {sql_string(str(partial))} AS {ALIAS} (READ_WRITE)")
            widths = _build(con, span, min_gap_ns)
            con.execute(f"DETACH {ALIAS}")
            os.replace(partial, path)
            con.execute(f"ATTACH {sql_string(str(path))} AS {ALIAS} (READ_ONLY)")
            return widths
        except (duckdb.Error, OSError):  # e.g. a full disk: fall back to memory
            con.execute(f"DETACH DATABASE IF EXISTS {ALIAS}")
            partial.unlink(missing_ok=True)
    con.execute(f"ATTACH ':memory:' AS {ALIAS} (READ_WRITE)")
    return _build(con, span, min_gap_ns)


def _build(con: duckdb.DuckDBPyConnection, span: tuple[int, int], min_gap_ns: int) -> list[int]:
    start, end = span
    width = max(1, math.ceil((end - start) / LOD_BINS))
    sql = fill("timeline_lod_build",
               bins_query=fragment("timeline_bins"))
    con.execute(sql, {"npc": width, "t_lo": start // width * width,
                      "t_hi": (end // width + 1) * width, "min_gap_ns": min_gap_ns,
                      "nvtx_depths": 1 << 30, "host": True})
    widths, bins = [width], (end - start) // width + 1
    while bins > LOD_MAX_BINS:
        con.execute(load_query("timeline_lod_coarsen"),
                    {"level": len(widths), "factor": LOD_FACTOR})
        widths.append(widths[-1] * LOD_FACTOR)
        bins //= LOD_FACTOR
    con.execute(f"CREATE OR REPLACE TABLE {ALIAS}.levels (level INTEGER, width BIGINT)")
    insert_rows(con, f"INSERT INTO {ALIAS}.levels", list(enumerate(widths)))
    return widths
