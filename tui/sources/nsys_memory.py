"""CUDA memory usage events of an nsys export (`--cuda-memory-usage=true`) into
memory_events: allocations and frees per device, with running totals."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow as pa

from tui.core.errors import first_line
from tui.core.queries import Sql, fill, load_query
from tui.sources.kineto_memory import MAX_MEMORY_BYTES
from tui.sources.sqlite_uri import read_arrow

MEMORY_TABLE = "CUDA_GPU_MEMORY_USAGE_EVENTS"
COLUMNS = {"start", "deviceId", "address", "bytes", "memKind", "memoryOperationType",
           "correlationId", "globalPid"}


def load_nsys_memory(path: Path, schema: dict[str, set[str]],
                     con: duckdb.DuckDBPyConnection, process: str,
                     devices: pa.Table) -> list[str]:
    """Fill memory_events from the export (after host_activities, whose API calls give
    each event its thread); warnings. An export without the table adds nothing.
    `process`: the expression of an event's pid that makes its correlation id its
    process's own, as the API calls' are (0: ids left as they are). `devices`: the
    processes' CUDA device numbers that are not their GPUs' ids (nsys_sqlite.cuda_devices)."""
    if MEMORY_TABLE not in schema:
        return []
    if not COLUMNS <= schema[MEMORY_TABLE]:
        return [f"skipped {MEMORY_TABLE}: this export's columns are not ones tui knows"]
    try:
        events = read_arrow(path, fill("nsys_sqlite_memory", process=Sql(process)))
    except Exception as exc:  # the driver raises its own error family
        return [f"skipped {MEMORY_TABLE} ({first_line(exc)})"]
    con.register("nsys_memory", events)
    con.register("nsys_cuda_devices", devices)
    try:
        con.execute(load_query("nsys_memory_events"), {"max_bytes": MAX_MEMORY_BYTES}).fetchall()
    finally:
        con.unregister("nsys_memory")
        con.unregister("nsys_cuda_devices")
    loaded = con.execute("SELECT count(*) FROM memory_events").fetchone()
    skipped = events.num_rows - (loaded[0] if loaded else 0)
    if skipped:
        return [f"{skipped:,} CUDA memory events with no time or device, an unknown operation "
                "or a negative or absurd size were skipped"]
    return []
