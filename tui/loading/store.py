"""What a loaded trace leaves behind: a store of the schema's tables, and where it is."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

# The tables of the schema that a store holds (trace_meta included): a whole trace, so
# that a rank's timeline opens from its store as from its cache.
STORE_TABLES = ("trace_meta", "devices", "gpu_activities", "host_activities", "gpu_idle",
                "python_frames", "launches", "memory_events", "threads", "collectives")
# Tables a store holds where the trace has them (the GPUs' hardware counters, GEMM ops'
# shapes, FLOPs): a store written before they were kept opens without them, as a trace
# that has none.
OPTIONAL_TABLES = ("gpu_metric_names", "gpu_metrics", "gemm_shapes", "op_flops", "kernel_flops")
# Those a run reads (tui --summary DIR, the ranks app): a store written before python_frames
# ... threads were is still a rank.
RUN_TABLES = (*STORE_TABLES[:5], "collectives")
# Those a rank's own summary in a run reads besides (its idle intervals' launching calls):
# mounted for it, not copied into the run's tables.
RANK_TABLES = (*RUN_TABLES, "launches")
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
    # a Parquet store read back: where it was read from (a folder, or at an object-store
    # prefix), to open the rank's timeline from
    location: Path | None = None
    load_s: float = 0.0  # wall time of open_trace (+ Parquet export) in its process
    load_cpu_s: float = 0.0  # CPU time of the same, all of that process's threads
    from_cache: bool = False
    cache_note: str = ""  # Trace.cache_note: whether its cache was used, and if not why
    warnings: list[str] = field(default_factory=list)
    summary: dict | None = None  # rank_summary() of this trace alone, when asked for
    # one process of a multi-process report (nsys of torchrun's ranks): (pid, GPU); its
    # rank reads only that process's rows of the report (tui/runs/combine.py)
    # (None, GPU): one device of an XLA profile whose one process drove several (a JAX
    # mesh); every rank shares the host's rows
    part: tuple[int | None, int] | None = None


def is_parquet_store(path: Path) -> bool:
    """Whether `path` is a folder of one trace's tables as Parquet (`tui convert`)."""
    return path.is_dir() and (path / "trace_meta.parquet").is_file()
