"""What a loaded trace leaves behind: a store of the schema's tables, and where it is."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

# The tables of the schema that a store holds (trace_meta included).
STORE_TABLES = ("trace_meta", "devices", "gpu_activities", "host_activities", "gpu_idle")
# A folder holding one trace's tables as Parquet (`tui convert` writes them).
STORE_SUFFIX = ".tui-store"


@dataclass
class TraceStore:
    """One loaded trace, closed again: where its tables are and what loading said."""

    path: Path
    format: str
    meta: dict[str, str]
    db_path: Path | None = None  # its DuckDB cache file, or
    parquet_dir: Path | None = None  # a folder of <table>.parquet
    load_s: float = 0.0  # wall time of open_trace (+ Parquet export) in its process
    load_cpu_s: float = 0.0  # CPU time of the same, all of that process's threads
    from_cache: bool = False
    cache_note: str = ""  # Trace.cache_note: whether its cache was used, and if not why
    warnings: list[str] = field(default_factory=list)
    summary: dict | None = None  # trace_summary() of this trace alone, when asked for
