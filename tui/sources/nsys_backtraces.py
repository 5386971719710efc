"""CUDA API backtraces of an nsys report (`nsys profile --cudabacktrace=...`): each API
call's native call chain, and its Python backtrace where nsys took one as well
(`--python-backtrace=cuda`), staged for tui/derived/backtrace_frames.py, which turns them
into the Code view's frames once the stacks are built."""

from __future__ import annotations

import adbc_driver_sqlite.dbapi as adbc_sqlite
import duckdb
import pyarrow as pa

from tui.core.db import registered
from tui.core.errors import first_line
from tui.core.queries import load_query
from tui.sources.nsys_python import EXPORT_AGAIN, read_marks

CALLCHAINS_TABLE = "CUDA_CALLCHAINS"


def stage_backtraces(source: adbc_sqlite.Connection, con: duckdb.DuckDBPyConnection,
                     calls: pa.Table, python_domains: list[int]) -> list[str]:
    """Stage the call chains of `calls` (call_id, chain) in temp tables (with nsys_strings
    registered), with their Python backtraces, the marks of `python_domains`
    (nsys_python.py); warnings. A chain table that cannot be read leaves the NVTX ranges
    to stand in for frames, with a warning."""
    cursor = source.cursor()
    try:
        cursor.execute(load_query("nsys_sqlite_callchains"))
        frames = cursor.fetch_arrow_table()
    except Exception as exc:  # the driver raises its own error family
        return [f"skipped {CALLCHAINS_TABLE} ({first_line(exc)}): NVTX ranges stand in for "
                "frames"]
    finally:
        cursor.close()
    with registered(con, "nsys_calls", calls), registered(con, "nsys_chain_frames", frames):
        con.execute(load_query("nsys_backtraces_stage")).fetchall()
    return _stage_python_backtraces(source, con, python_domains) if python_domains else []


def _stage_python_backtraces(source: adbc_sqlite.Connection, con: duckdb.DuckDBPyConnection,
                             domains: list[int]) -> list[str]:
    """Put each staged call's Python backtrace outside its native frames; warnings."""
    try:
        backtraces = read_marks(source, "nsys_sqlite_python_backtraces", domains)
    except Exception as exc:  # the driver raises its own error family
        return [f"skipped the Python backtraces ({first_line(exc)}): native frames stand in"]
    if backtraces.num_rows == 0:
        return []
    if backtraces.column("frames_json").null_count == backtraces.num_rows:
        return [f"{backtraces.num_rows:,} Python backtraces have no frames in this export "
                f"(nsys keeps them only as JSON text): {EXPORT_AGAIN}"]
    con.execute(load_query("nsys_macros"))
    with registered(con, "nsys_python_backtraces", backtraces):
        con.execute(load_query("nsys_python_backtraces_stage")).fetchall()
    return []
