"""GPU (and host allocator) memory from memory_events: peaks and the largest allocations."""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from tui.analysis import summary_types
from tui.core.queries import load_query


@dataclass
class MemoryPeak:
    device_type: str  # 'gpu' | 'host' | 'other'
    device: int
    peak_allocated_bytes: int
    peak_ns: int
    peak_reserved_bytes: int | None
    events: int

    def as_dict(self) -> summary_types.MemoryPeak:
        """The `--summary --json` record of a device."""
        return {"device": self.device, "peak_allocated_bytes": self.peak_allocated_bytes,
                "peak_ns": self.peak_ns, "peak_reserved_bytes": self.peak_reserved_bytes}


def memory_peaks(con: duckdb.DuckDBPyConnection) -> list[MemoryPeak]:
    """Every device's peak, GPUs first, then the host's allocator."""
    return [MemoryPeak(*row) for row in con.execute(load_query("memory_peaks")).fetchall()]


def largest_allocations(con: duckdb.DuckDBPyConnection,
                        limit: int | None = 1000) -> list[tuple]:
    """Rows of memory_allocations.sql, largest first (limit None: all of them)."""
    return con.execute(load_query("memory_allocations"), {"limit": limit}).fetchall()
