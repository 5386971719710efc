"""What each reader hands to the loader: plain rows, ready for DuckDB."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tui.core.formats import NcuFormat

# Column order of the tables in queries/sources/ncu_schema.sql.
KERNEL_COLUMNS = (
    "launch_id", "name", "short_name", "mangled_name",
    "grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z",
    "registers_per_thread", "shared_memory_bytes", "duration_ns",
    "device", "device_name", "compute_capability", "context", "stream",
    "process_id", "process_name",
)
METRIC_COLUMNS = ("launch_id", "section", "name", "unit", "value", "text")
RULE_COLUMNS = (
    "launch_id", "seq", "rule", "section", "type", "title", "description",
    "speedup_type", "speedup_pct",
)


@dataclass
class ParsedReport:
    """One input file's launches, metrics and rule findings, plus what went wrong."""

    format: NcuFormat
    kernels: list[dict[str, Any]] = field(default_factory=list)
    metrics: list[tuple[Any, ...]] = field(default_factory=list)  # METRIC_COLUMNS
    rules: list[tuple[Any, ...]] = field(default_factory=list)  # RULE_COLUMNS
    meta: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def as_int(value: float | int | None) -> int | None:
    """A count or id as int (ncu prints some as '65,536.000000')."""
    return None if value is None else int(round(value))
