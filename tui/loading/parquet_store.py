"""A trace's tables as Parquet files, one folder per trace (a `.tui-store`): written by
`tui convert` (or for `--no-cache` runs), read back as a TraceStore."""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import duckdb

from tui.core.db import connect, sql_string
from tui.core.errors import TraceError, first_line
from tui.loading.locations import is_remote, upload
from tui.loading.store import (
    OPTIONAL_TABLES,
    RANK_TABLES,
    STORE_TABLES,
    TraceStore,
    is_parquet_store,
)
from tui.loading.trace import Trace, open_trace


def export_parquet(trace: Trace, folder: Path,
                   also: Callable[[Path], object] | None = None) -> Path:
    """The trace's tables as `<table>.parquet` files in `folder` (made if missing; a local
    folder, or an object-store prefix: written here, then uploaded); `also(local_folder)`
    writes more files into the store before it is uploaded (the distributed figures, so
    that a run that reads the store needs not work them out).

    A reader never sees a half-written table: each local file is written under a temporary
    name and renamed; an object appears only once it is whole."""
    if is_remote(folder):
        with tempfile.TemporaryDirectory(prefix="tui-upload-") as local:
            upload(export_parquet(trace, Path(local) / folder.name, also), folder)
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    for table in (*STORE_TABLES, *OPTIONAL_TABLES):
        final = folder / f"{table}.parquet"
        partial = folder / f".{table}.parquet.partial-{os.getpid()}"
        trace.con.execute(f"COPY (FROM {table}) TO {sql_string(str(partial))} (FORMAT parquet)")
        os.replace(partial, final)
    if also is not None:
        also(folder)
    return folder


def parquet_store(folder: Path, probe: duckdb.DuckDBPyConnection) -> TraceStore:
    """A Parquet store folder as a TraceStore. Raises TraceError when it is incomplete."""
    missing = _missing(folder, RANK_TABLES)
    if missing:
        raise TraceError(f"{folder}: an incomplete store, {', '.join(missing)} missing; "
                         "convert its trace again")
    started = time.perf_counter()
    source = sql_string(str(folder / "trace_meta.parquet"))
    try:
        meta = dict(probe.execute(f"SELECT key, value FROM read_parquet({source})").fetchall())
        warnings = json.loads(meta.get("warnings") or "[]")
    except (duckdb.Error, ValueError) as exc:
        raise TraceError(f"{folder}: its trace_meta.parquet cannot be read ({exc})") from None
    return TraceStore(Path(meta.get("source_path", str(folder))), meta.get("format", "?"),
                      meta, parquet_dir=folder, location=folder, from_cache=True,
                      cache_note=f"from the converted store {folder}",
                      warnings=warnings if isinstance(warnings, list) else [],
                      load_s=time.perf_counter() - started)


def open_store_trace(folder: Path) -> Trace:
    """A Parquet store (a local folder) as a trace for the app, without parsing the trace
    again: its tables are views over the store's files, which DuckDB reads as each query
    needs (a timeline window, the row groups of its time range). Raises TraceError for a
    store without every table (written by an older tui)."""
    missing = _missing(folder, STORE_TABLES)
    if missing:
        raise TraceError(f"{folder}: a store without {', '.join(missing)} (written by an "
                         "older tui); convert its trace again to open its timeline")
    con = connect(":memory:")
    try:
        present = [t for t in OPTIONAL_TABLES if (folder / f"{t}.parquet").is_file()]
        for table in (*STORE_TABLES, *present):
            source = sql_string(str(folder / f"{table}.parquet"))
            con.execute(f"CREATE VIEW {table} AS FROM read_parquet({source})")
        meta = dict(con.execute("SELECT key, value FROM trace_meta").fetchall())
        warnings = json.loads(meta.get("warnings") or "[]")
    except (duckdb.Error, ValueError) as exc:
        con.close()
        raise TraceError(f"{folder}: its tables cannot be read ({first_line(exc)}); "
                         "convert its trace again") from None
    return Trace(folder, meta.get("format", "?"), con,
                 warnings if isinstance(warnings, list) else [], from_cache=True,
                 cache_note=f"from the converted store {folder}")


def open_trace_or_store(path: Path, use_cache: bool = True) -> Trace:
    """A trace file loaded (or from its cache), or a store `tui convert` wrote, opened."""
    if is_parquet_store(path):
        return open_store_trace(path)
    return open_trace(path, use_cache=use_cache)


def _missing(folder: Path, tables: tuple[str, ...]) -> list[str]:
    """The tables of `tables` whose file the store folder lacks."""
    return [table for table in tables if not (folder / f"{table}.parquet").is_file()]
