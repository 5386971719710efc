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
from tui.sources.nsys_python import load_marks

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
    if not python_domains:
        return []
    # each call's Python backtrace outside its native frames
    return load_marks(source, con, python_domains, "Python backtraces",
                      ("nsys_python_backtraces_stage", "nsys_python_backtraces"),
                      ": native frames stand in")
