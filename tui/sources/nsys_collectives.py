"""NCCL's calls in an nsys export, from the payloads NCCL puts on its NVTX ranges (its
communicator, the message's size, a communicator's ranks: NCCL 2.19 on), into the
`collectives` table that Kineto's record_param_comms events fill: what the collective
bandwidth of a run's ranks is worked out from (queries/analysis/rank_collective_bandwidth.sql).
The export keeps them only as JSON (`nsys export --include-json=true`, which tui's own
export of a .nsys-rep asks for); without it, or before NCCL 2.19, there are none.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from tui.core.errors import first_line
from tui.core.queries import fill, load_query
from tui.sources.sqlite_uri import read_arrow

NVTX_TABLE = "NVTX_EVENTS"


def load_nsys_collectives(path: Path, schema: dict[str, set[str]],
                          con: duckdb.DuckDBPyConnection) -> list[str]:
    """Fill collectives from the export's NCCL payloads (after host_activities and
    gpu_activities, whose launches tie each call to its kernel); warnings."""
    columns = schema.get(NVTX_TABLE, set())
    if "jsonText" not in columns or "StringIds" not in schema:
        return []
    text_id = "n.textId" if "textId" in columns else "NULL"
    try:
        calls = read_arrow(path, fill("nsys_sqlite_nccl_calls", text_id=text_id))
    except Exception as exc:  # the driver raises its own error family
        return [f"skipped NCCL's NVTX payloads ({first_line(exc)})"]
    if not calls.num_rows:
        return []
    con.register("nsys_nccl_calls", calls)
    try:
        con.execute(load_query("nsys_collectives"))
    finally:
        con.unregister("nsys_nccl_calls")
    return []
