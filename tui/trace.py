"""Open a trace: from the cache when it is there, else through its loader into DuckDB."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from tui import cache
from tui.db import connect
from tui.errors import TraceError
from tui.queries import load_query
from tui.sources.detect import detect_format

TRACE_FORMATS = ("kineto", "nsys-sqlite", "nsys-rep")


@dataclass
class Trace:
    """A loaded trace: a DuckDB connection holding the schema, and what loading said."""

    path: Path
    format: str  # 'kineto' | 'nsys'
    con: duckdb.DuckDBPyConnection
    warnings: list[str] = field(default_factory=list)
    from_cache: bool = False
    cache_path: Path | None = None

    def meta(self, key: str) -> str | None:
        row = self.con.execute("SELECT value FROM trace_meta WHERE key = ?", [key]).fetchone()
        return row[0] if row else None

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Trace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_trace(path: Path, use_cache: bool = True) -> Trace:
    """Load `path` (or reuse its cache). Raises TraceError with a user-facing message."""
    kind = detect_format(path)
    if kind not in TRACE_FORMATS:
        raise TraceError(f"{path}: is an Nsight Compute report, not a timeline trace")
    warnings: list[str] = []
    target = cache.cache_file(path) if use_cache else None
    if target is not None and not cache.writable_dir(target.parent):
        warnings.append(f"cache dir {target.parent} is not writable: loading into memory")
        target = None
    if target is not None and target.is_file():
        cached = _open_cached(path, target)
        if cached is not None:
            return cached
    con, partial = _new_database(target)
    try:
        warnings += _load_into(path, kind, con, target.parent if target else None)
        con.execute(load_query("finalize_activities"))
        con.execute(load_query("devices_from_activities"))
        con.execute(load_query("host_depth"))
        con.execute(load_query("gpu_idle"))
        con.executemany("INSERT OR REPLACE INTO trace_meta VALUES (?, ?)", [
            ("source_path", str(path.resolve())),
            ("warnings", json.dumps(warnings)),
            ("tui_cache_version", cache.CACHE_VERSION),
        ])
    except BaseException:
        con.close()
        if partial is not None:
            partial.unlink(missing_ok=True)
        raise
    fmt = _format_of(con)
    if target is None or partial is None:
        return Trace(path, fmt, con, warnings)
    con.execute("CHECKPOINT")
    con.close()
    os.replace(partial, target)
    return Trace(path, fmt, connect(str(target), read_only=True), warnings,
                 cache_path=target)


def _open_cached(path: Path, target: Path) -> Trace | None:
    """The cached database, or None when it is unreadable or from another tui version."""
    try:
        con = connect(str(target), read_only=True)
        rows = dict(con.execute("SELECT key, value FROM trace_meta").fetchall())
    except duckdb.Error:
        target.unlink(missing_ok=True)  # a damaged cache file of ours: rebuild it
        return None
    if rows.get("tui_cache_version") != cache.CACHE_VERSION:
        con.close()
        target.unlink(missing_ok=True)
        return None
    warnings = json.loads(rows.get("warnings") or "[]")
    return Trace(path, rows.get("format", "?"), con, warnings, from_cache=True,
                 cache_path=target)


def _new_database(target: Path | None) -> tuple[duckdb.DuckDBPyConnection, Path | None]:
    if target is None:
        con = connect(":memory:")
        partial = None
    else:
        partial = target.with_name(f"{target.name}.partial-{os.getpid()}")
        partial.unlink(missing_ok=True)
        con = connect(str(partial))
    # Loading a multi-GB trace must not take all the machine's memory: above this DuckDB
    # spills sorts and staging tables to disk instead.
    con.execute("SET memory_limit = '1500MB'")
    con.execute(load_query("schema"))
    con.execute(load_query("staging_tables"))
    return con, partial


def _load_into(path: Path, kind: str, con: duckdb.DuckDBPyConnection,
               cache_dir: Path | None) -> list[str]:
    if kind == "kineto":
        from tui.sources.kineto import load_kineto

        scratch = cache_dir if cache_dir is not None else Path(tempfile.gettempdir())
        return load_kineto(path, con, scratch)
    from tui.sources.nsys_sqlite import load_nsys_sqlite

    if kind == "nsys-rep":
        from tui.sources.nsys_rep import export_to_sqlite

        export_dir = cache_dir if cache_dir is not None else Path(tempfile.gettempdir())
        return load_nsys_sqlite(export_to_sqlite(path, export_dir), con)
    return load_nsys_sqlite(path, con)


def _format_of(con: duckdb.DuckDBPyConnection) -> str:
    row = con.execute("SELECT value FROM trace_meta WHERE key = 'format'").fetchone()
    if row is None:
        raise TraceError("internal: the loader recorded no format")
    return row[0]
