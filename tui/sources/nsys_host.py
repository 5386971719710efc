"""What an nsys report recorded of the host beyond CUDA: CPU samples with their call chains
(`--sample=process-tree`), OS runtime library calls (`-t osrt`) and threads' context
switches (`--cpuctxsw`), into host_samples, os_calls, host_callchains and thread_sched.

Rows come over from the export as Arrow batches and are joined and written in DuckDB;
the call chains, one per sample, are stored once per distinct chain (a loop's samples
share a few thousand). An export without these tables adds nothing.
"""

from __future__ import annotations

import adbc_driver_sqlite.dbapi as adbc_sqlite
import duckdb
from adbc_driver_sqlite import StatementOptions

from tui.core.db import registered
from tui.core.errors import first_line
from tui.core.interrupt import is_interrupt
from tui.core.queries import load_query

SAMPLES_TABLE = "COMPOSITE_EVENTS"
SAMPLE_CHAINS_TABLE = "SAMPLING_CALLCHAINS"
OSRT_TABLE = "OSRT_API"
SCHED_TABLE = "SCHED_EVENTS"
SCHED_COLUMNS = {"start", "isSchedIn", "globalTid", "cpu"}
OSRT_CHAINS_TABLE = "OSRT_CALLCHAINS"
SAMPLE_COLUMNS = {"id", "start", "globalTid"}
OSRT_COLUMNS = {"start", "end", "globalTid", "nameId"}
# OSRT_API.eventClass of a call (the others mark where OS runtime tracing started, finished)
OSRT_CALL_CLASS = 27
CHAIN_COLUMNS = {"id", "stackDepth", "symbol", "module"}
_BATCH_ROWS = {StatementOptions.BATCH_ROWS.value: "65536"}
_TEMP_TABLES = ("nsys_chain_frames", "nsys_chain_keys", "nsys_chain_numbers",
                "nsys_chain_ids")


def load_nsys_host(source: adbc_sqlite.Connection, con: duckdb.DuckDBPyConnection,
                   schema: dict[str, set[str]]) -> list[str]:
    """Fill host_samples, os_calls and host_callchains from the export open as `source`
    (with nsys_strings registered on `con`); warnings. A table that cannot be read is
    skipped with a warning; the rest of the load goes on."""
    samples = SAMPLE_COLUMNS <= schema.get(SAMPLES_TABLE, set())
    osrt = OSRT_COLUMNS <= schema.get(OSRT_TABLE, set())
    sched = SCHED_COLUMNS <= schema.get(SCHED_TABLE, set())
    if not (samples or osrt or sched):
        return []
    chains = {table: CHAIN_COLUMNS <= schema.get(table, set())
              for table in (SAMPLE_CHAINS_TABLE, OSRT_CHAINS_TABLE)}
    osrt_chain = ("o.callchainId" if chains[OSRT_CHAINS_TABLE]
                  and "callchainId" in schema.get(OSRT_TABLE, set()) else "NULL")
    calls = (f"o.eventClass = {OSRT_CALL_CLASS}"
             if "eventClass" in schema.get(OSRT_TABLE, set()) else "TRUE")
    try:
        con.execute(load_query("nsys_host_staging"))
        if samples and chains[SAMPLE_CHAINS_TABLE]:
            _stream(source, con, "nsys_sqlite_sample_frames", "nsys_frames",
                    "nsys_host_chain_keys", {"source": "sample"})
        if osrt and osrt_chain != "NULL":
            _stream(source, con, "nsys_sqlite_osrt_frames", "nsys_frames",
                    "nsys_host_chain_keys", {"source": "os"})
        con.execute(load_query("nsys_host_chains")).fetchall()
        if samples:
            _stream(source, con, "nsys_sqlite_samples", "nsys_samples",
                    "nsys_host_samples_write")
        if osrt:
            _stream(source, con, "nsys_sqlite_osrt", "nsys_os", "nsys_host_os_write",
                    query_format={"chain": osrt_chain, "calls": calls})
        if sched:
            _stream(source, con, "nsys_sqlite_sched", "nsys_sched", "nsys_host_sched_write")
    except Exception as exc:  # the driver raises its own error family
        if isinstance(exc, duckdb.OutOfMemoryException) or is_interrupt(exc):
            raise
        for table in ("host_samples", "os_calls", "host_callchains", "thread_sched"):
            con.execute(f"DELETE FROM {table}")
        return [f"skipped the CPU samples, OS runtime calls and context switches "
                f"({first_line(exc, 300)})"]
    finally:
        for table in _TEMP_TABLES:
            con.execute(f"DROP TABLE IF EXISTS {table}")
    return []


def _stream(source: adbc_sqlite.Connection, con: duckdb.DuckDBPyConnection, read: str,
            name: str, write: str, params: dict | None = None,
            query_format: dict | None = None) -> None:
    """Run the export query `read` and the DuckDB query `write` over its rows, streamed as
    Arrow batches registered as `name`."""
    query = load_query(read)
    cursor = source.cursor()
    try:
        cursor.adbc_statement.set_options(**_BATCH_ROWS)
        cursor.execute(query.format(**query_format) if query_format else query)
        with registered(con, name, cursor.fetch_record_batch()):
            con.execute(load_query(write), params).fetchall()
    finally:
        cursor.close()
