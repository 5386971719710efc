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
from tui.core.queries import Sql, fill, load_query

CALLCHAINS_TABLE = "CUDA_CALLCHAINS"
# The Python backtraces' marks and the payload schema that names them.
PYTHON_TABLES = ("NVTX_EVENTS", "NVTX_PAYLOAD_SCHEMAS")


def stage_backtraces(source: adbc_sqlite.Connection, con: duckdb.DuckDBPyConnection,
                     calls: pa.Table, schema: dict[str, set[str]]) -> list[str]:
    """Stage the call chains of `calls` (call_id, chain) in temp tables (with nsys_strings
    registered), with their Python backtraces where the report has them; warnings. A chain
    table that cannot be read leaves the NVTX ranges to stand in for frames, with a
    warning."""
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
    if not all(table in schema for table in PYTHON_TABLES) \
            or "jsonText" not in schema["NVTX_EVENTS"]:
        return []
    return _stage_python_backtraces(source, con)


def _stage_python_backtraces(source: adbc_sqlite.Connection,
                             con: duckdb.DuckDBPyConnection) -> list[str]:
    """Put each staged call's Python backtrace outside its native frames; warnings."""
    cursor = source.cursor()
    try:
        cursor.execute(load_query("nsys_sqlite_python_backtrace_domains"))
        domains = [int(domain) for domain in cursor.fetch_arrow_table().column(0).to_pylist()]
        if not domains:
            return []
        cursor.execute(fill("nsys_sqlite_python_backtraces",  # integers: no quoting needed
                            domains=Sql(", ".join(str(domain) for domain in domains))))
        backtraces = cursor.fetch_arrow_table()
    except Exception as exc:  # the driver raises its own error family
        return [f"skipped the Python backtraces ({first_line(exc)}): native frames stand in"]
    finally:
        cursor.close()
    if backtraces.num_rows == 0:
        return []
    if backtraces.column("frames_json").null_count == backtraces.num_rows:
        return [f"{backtraces.num_rows:,} Python backtraces have no frames in this export "
                "(nsys keeps them only as JSON text): export it again with `nsys export "
                "--type sqlite --include-json=true` to see the Python lines that launched "
                "the GPU work"]
    with registered(con, "nsys_python_backtraces", backtraces):
        con.execute(load_query("nsys_python_backtraces_stage")).fetchall()
    return []
