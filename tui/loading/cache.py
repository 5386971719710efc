"""Where loaded traces are kept: one DuckDB file per trace in the user's cache dir.

A cache file is named after the trace's absolute path, size and modification time plus
the cache format version, so a changed trace (or a newer `tui`) misses the cache and is
loaded again. Files are built under a temporary name and renamed into place only once
complete, so a crash mid-write never leaves a cache that is later trusted.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

# Bump when the schema or the meaning of a stored column changes.
CACHE_VERSION = "27"  # 2: memset kinds, peer devices; 3: threads; 4: XLA op columns;
# 5: python_frames, launches, memory_events; 6: XLA step annotations named with their step;
# 7: nsys CUDA backtraces as frames; 8: XLA HLO ops (hlo_ops, hlo_schedule, gpu_hlo_ops);
# 9: JAX Python frames without the tracer's '$'; 10: nsys reports' host name in trace_meta;
# 11: nsys correlation ids made each process's own (pid * 2^32 + CorrId); 12: GPU metrics
# 13: nsys CPU samples, OS runtime calls, context switches (host_samples, os_calls,
# host_callchains, thread_sched)
# 14: collectives (Kineto's record_param_comms); 15: gemm_shapes (Kineto's record_shapes)
# 16: GPU metrics: only the ones read, compact types (metric_id SMALLINT, value REAL)
# 17: FLOPs of ops and kernels (op_flops, kernel_flops)
# 18: XLA collectives' sizes and device groups (hlo_ops), as collectives rows; XLA GPUs'
# names, SMs and memory from their planes (devices)
# 19: XLA GPU counters (CUPTI PM sampling, an XSpace's `_counters_` line) as gpu_metrics,
# no longer as kernels; XLA TraceAnnotations around jitted calls as annotations
# 20: Kineto Python frames the tracer left open closed where their caller returned; a
# built-in's frame named without its object's address; nsys CUDA graphs traced whole as
# kernels ('CUDA graph N')
# 21: nsys Python backtraces as frames, Python samples (python_samples, python_stacks)
# 22: PyTorch's emit_nvtx() ranges in nsys as ops (cpu_op), named without seq and op_id;
# nsys' import errors as load warnings
# 23: nsys NCCL calls from NCCL's NVTX payloads as collectives rows (group_desc 'NCCL')
# 24: a group of NCCL sends to every rank of its communicator as one all_to_allv row
# 25: an nsys export's session start (trace_meta session_start_utc_ns): a run of a
# report a rank lines its ranks' clocks up by it; XLA's partition-id and replica-id ops
# in hlo_ops (their memsets are their work)
# 26: an nsys export's GPU rows and memory events on the GPUs' ids, not each process's
# CUDA device numbers (TARGET_INFO_CUDA_DEVICE)
# 27: an nsys export that holds CUDA API calls but no kernel table says so in trace_meta
# (kernels_unrecorded): its diagnosis is not made from its copies alone


# Cache files opened by the command now running: DuckDB checks a block's checksum only when
# it reads the block, so a damaged cache can open fine and fail a later query
# (tui.loading.trace.discard_damaged_cache). The command starts with an empty set, so an
# error in one command never removes the caches an earlier one in the same process opened.
opened_caches: set[Path] = set()


def cache_root() -> Path:
    """`$TUI_CACHE_DIR`, else `$XDG_CACHE_HOME/tui`, else `~/.cache/tui`."""
    explicit = os.environ.get("TUI_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "tui"


def cache_key(trace: Path) -> str:
    stat = trace.stat()
    ident = f"{CACHE_VERSION}|{trace.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"
    return hashlib.sha256(ident.encode()).hexdigest()[:32]


def cache_file(trace: Path) -> Path:
    return cache_root() / f"{trace.name[:40]}-{cache_key(trace)}.duckdb"


def writable_dir(path: Path) -> bool:
    """Can we create files in `path` (creating it if needed)?"""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(path, os.W_OK | os.X_OK)
