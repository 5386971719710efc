"""Nsight Systems SQLite exports (`nsys export --type sqlite`) into the schema.

The export is read through ADBC's SQLite driver, which hands result sets over as Arrow
record batches: no Python loop touches a row. Tables and columns differ between nsys
versions and empty tables are left out of the export, so each query is built after
probing which tables and columns exist.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from urllib.parse import quote

import adbc_driver_sqlite.dbapi as adbc_sqlite
import duckdb

from tui.errors import TraceError
from tui.queries import load_query

SQLITE_MAGIC = b"SQLite format 3\x00"
KERNEL_TABLE = "CUPTI_ACTIVITY_KIND_KERNEL"
# Tables that only an Nsight Systems export has; one of them must be present.
NSYS_MARKERS = ("StringIds", "META_DATA_EXPORT", "TARGET_INFO_SESSION_START_TIME", KERNEL_TABLE)


def load_nsys_sqlite(path: Path, con: duckdb.DuckDBPyConnection) -> list[str]:
    """Load an nsys SQLite export; returns warnings. Raises TraceError if unusable."""
    schema = _probe_schema(path)
    if not any(t in schema for t in NSYS_MARKERS):
        raise TraceError(
            f"{path}: this SQLite database is not an Nsight Systems export "
            "(no StringIds / CUPTI_ACTIVITY_KIND_* tables); export one with "
            "`nsys export --type sqlite REPORT.nsys-rep`"
        )
    warnings: list[str] = []
    # One table that cannot be read (a column an older or newer nsys names differently, a
    # damaged page) skips that table with a warning; the others still load.
    failed: list[str] = []
    jobs = [(q, "nsys_insert_gpu") for q in _gpu_queries(schema, warnings)]
    jobs += [(q, "nsys_insert_host") for q in _host_queries(schema)]
    source = adbc_sqlite.connect(f"file:{quote(str(path.resolve()))}?mode=ro")
    try:
        for query, insert in jobs:
            try:
                _copy(source, query, con, insert)
            except Exception as exc:  # the driver raises its own error family
                failed.append(f"{_table_of(query)} ({_first_line(exc)})")
    finally:
        source.close()
    if jobs and len(failed) == len(jobs):
        raise TraceError(f"{path}: cannot read the nsys export: {failed[0]}; re-export it "
                         "with `nsys export --type sqlite` from a current Nsight Systems")
    warnings += [f"skipped {f}: this export's schema is not one tui knows" for f in failed]
    try:
        _load_devices(path, schema, con)
    except (sqlite3.Error, duckdb.Error) as exc:
        warnings.append(f"could not read the GPUs' names ({_first_line(exc)})")
    _load_meta(path, schema, con)
    gpu_rows, host_rows = con.execute(
        "SELECT (SELECT count(*) FROM staged_gpu), (SELECT count(*) FROM staged_host)"
    ).fetchone() or (0, 0)
    if gpu_rows == 0 and host_rows == 0:
        raise TraceError(
            f"{path}: the export holds no CUDA kernels, copies, API calls or NVTX ranges; "
            "record with `nsys profile -t cuda,nvtx`"
        )
    if KERNEL_TABLE not in schema:
        warnings.append(
            "the export has no CUDA kernel table: record with `nsys profile -t cuda,nvtx`"
        )
    elif gpu_rows == 0:
        warnings.append(
            "no GPU kernels, copies or memsets were read from this export: record with "
            "`nsys profile -t cuda,nvtx`"
        )
    return warnings


def _table_of(query: str) -> str:
    """The nsys table a generated query reads (for messages)."""
    found = re.search(r"FROM\s+(CUPTI_ACTIVITY_KIND_\w+|NVTX_EVENTS)", query)
    return found.group(1) if found else "a table"


def _probe_schema(path: Path) -> dict[str, set[str]]:
    """{table: {columns}} of the SQLite file; TraceError when it is no SQLite database."""
    try:
        db = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro", uri=True)
        try:
            tables = [r[0] for r in db.execute(
                "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")]
            return {
                t: {r[1] for r in db.execute("SELECT * FROM pragma_table_info(?)", (t,))}
                for t in tables
            }
        finally:
            db.close()
    except sqlite3.DatabaseError as exc:
        raise TraceError(f"{path}: not a readable SQLite database ({exc}); it is damaged or "
                         "cut off: export it again with `nsys export --type sqlite`") from None


def _column(schema: dict[str, set[str]], table: str, column: str, default: str = "NULL") -> str:
    return column if column in schema.get(table, set()) else default


def _gpu_queries(schema: dict[str, set[str]], warnings: list[str]) -> list[str]:
    queries = []
    if KERNEL_TABLE in schema:
        cols = schema[KERNEL_TABLE]
        name_col = next((c for c in ("demangledName", "shortName", "name") if c in cols), None)
        if name_col is None:
            warnings.append("kernel names are missing from this export")
            name = "'(unnamed kernel)'"
        elif "StringIds" in schema:
            name = f"(SELECT value FROM StringIds WHERE id = k.{name_col})"
        else:
            name = f"CAST(k.{name_col} AS TEXT)"
        static = _column(schema, KERNEL_TABLE, "staticSharedMemory", "0")
        dynamic = _column(schema, KERNEL_TABLE, "dynamicSharedMemory", "0")
        queries.append(load_query("nsys_sqlite_kernels").format(
            name=name,
            grid_x=_column(schema, KERNEL_TABLE, "gridX"),
            grid_y=_column(schema, KERNEL_TABLE, "gridY"),
            grid_z=_column(schema, KERNEL_TABLE, "gridZ"),
            block_x=_column(schema, KERNEL_TABLE, "blockX"),
            block_y=_column(schema, KERNEL_TABLE, "blockY"),
            block_z=_column(schema, KERNEL_TABLE, "blockZ"),
            registers=_column(schema, KERNEL_TABLE, "registersPerThread"),
            shared_memory=f"({static} + {dynamic})",
        ))
    if "CUPTI_ACTIVITY_KIND_MEMCPY" in schema:
        table = "CUPTI_ACTIVITY_KIND_MEMCPY"
        queries.append(load_query("nsys_sqlite_memcpy").format(
            src_kind=_column(schema, table, "srcKind"),
            dst_kind=_column(schema, table, "dstKind"),
        ))
    if "CUPTI_ACTIVITY_KIND_MEMSET" in schema:
        queries.append(load_query("nsys_sqlite_memset").format(
            mem_kind=_column(schema, "CUPTI_ACTIVITY_KIND_MEMSET", "memKind"),
        ))
    return queries


def _host_queries(schema: dict[str, set[str]]) -> list[str]:
    queries = []
    if "CUPTI_ACTIVITY_KIND_RUNTIME" in schema and "StringIds" in schema:
        queries.append(load_query("nsys_sqlite_runtime"))
    if "NVTX_EVENTS" in schema:
        text_id = "n.textId" if "textId" in schema["NVTX_EVENTS"] else "NULL"
        queries.append(load_query("nsys_sqlite_nvtx").format(text_id=text_id))
    return queries


def _copy(source, query: str, con: duckdb.DuckDBPyConnection, insert: str) -> None:
    """Stream one SQLite result set into DuckDB as Arrow batches."""
    cursor = source.cursor()
    try:
        cursor.execute(query)
        batches = cursor.fetch_record_batch()
        con.register("nsys_batch", batches)
        try:
            con.execute(load_query(insert))
        finally:
            con.unregister("nsys_batch")
    finally:
        cursor.close()


def _load_devices(path: Path, schema: dict[str, set[str]], con: duckdb.DuckDBPyConnection) -> None:
    table = "TARGET_INFO_GPU"
    if table not in schema or "id" not in schema[table]:
        return
    cols = {
        "name": _column(schema, table, "name"),
        "sm": _column(schema, table, "smCount"),
        "mem": _column(schema, table, "totalMemory"),
        "major": _column(schema, table, "computeMajor"),
        "minor": _column(schema, table, "computeMinor"),
    }
    db = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro", uri=True)
    try:
        rows = db.execute(
            f"SELECT id, {cols['name']}, {cols['sm']}, {cols['mem']}, {cols['major']}, "
            f"{cols['minor']} FROM {table}"
        ).fetchall()
    finally:
        db.close()
    con.executemany(
        "INSERT OR IGNORE INTO devices VALUES (?, ?, ?, ?, ?)",
        [
            (dev, name or f"GPU {dev}", sm, mem,
             f"{major}.{minor}" if major is not None and minor is not None else None)
            for dev, name, sm, mem, major, minor in rows
        ],
    )


def _load_meta(path: Path, schema: dict[str, set[str]], con: duckdb.DuckDBPyConnection) -> None:
    meta = {"format": "nsys"}
    if "META_DATA_EXPORT" in schema:
        db = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro", uri=True)
        try:
            for key, value in db.execute("SELECT name, value FROM META_DATA_EXPORT"):
                if key in ("EXPORT_PRODUCT_VERSION", "EXPORT_SCHEMA_VERSION"):
                    meta[key.lower()] = str(value)
        except sqlite3.Error:
            pass  # versions are only shown; a damaged table leaves them out
        finally:
            db.close()
    con.executemany("INSERT OR REPLACE INTO trace_meta VALUES (?, ?)", list(meta.items()))


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0][:300] if str(exc).strip() else type(exc).__name__
