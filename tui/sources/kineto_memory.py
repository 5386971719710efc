"""What a Kineto trace adds for memory: its `[memory]` events, staged from the parsed
events before they are dropped (tui/loading/trace.py runs this while a second connection writes
the host rows)."""

from __future__ import annotations

import duckdb

from tui.core.queries import load_query

# A device's allocated or reserved total above this (1 PiB) is damage, not a reading.
MAX_MEMORY_BYTES = 1 << 50


def stage_kineto_memory(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Fill memory_events; warnings."""
    warnings: list[str] = []
    params = {"max_bytes": MAX_MEMORY_BYTES}
    row = con.execute(load_query("kineto_memory_counts"), params).fetchone()
    assert row is not None
    events, unusable, other_device = row
    if events:  # most traces are recorded without profile_memory
        con.execute(load_query("kineto_memory_events"), params)
    if unusable:
        warnings.append(f"{unusable:,} [memory] events with no usable time, device or total "
                        "(or a negative or absurd size) were skipped")
    if other_device:
        warnings.append(f"{other_device:,} [memory] events name a device type that is neither "
                        "the host (0) nor CUDA (1): loaded apart, as 'other'")
    return warnings
