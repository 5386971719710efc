"""The headless summary of a trace, as the dict behind `tui --summary --json`."""

from __future__ import annotations

import duckdb

from tui.analysis.code import frame_times, unattributed
from tui.analysis.findings import findings
from tui.analysis.gaps import explained_gaps
from tui.analysis.kernels import device_busy, kernel_stats
from tui.analysis.memory import memory_peaks
from tui.queries import load_query
from tui.trace import Trace


def trace_summary(trace: Trace, min_gap_ns: int) -> dict:
    """Source, devices, every kernel name, every gap over the threshold, findings, GPU
    time by Python frame and memory peaks (where the trace has stacks and memory)."""
    con = trace.con
    devices = device_busy(con)
    kernels = kernel_stats(con)
    gaps = explained_gaps(con, min_gap_ns)
    copies = con.execute(load_query("copy_stats")).fetchall()
    span = con.execute(load_query("trace_span")).fetchone() or (None, None)
    meta = dict(con.execute("SELECT key, value FROM trace_meta").fetchall())
    source = {
        "path": str(trace.path),
        "format": trace.format,
        "first_ns": span[0],
        "last_ns": span[1],
        "span_ns": (span[1] - span[0]) if span[0] is not None else 0,
        "from_cache": trace.from_cache,
        "min_gap_ns": min_gap_ns,
    }
    for key in ("rank", "world_size", "nsys_product_version", "export_product_version",
                "cuda_runtime_version", "cuda_driver_version"):
        if key in meta:
            source[key] = meta[key]
    return {
        "source": source,
        "devices": [d.as_dict() for d in devices],
        "kernels": [k.as_dict() for k in kernels],
        "gaps": [g.as_dict() for g in gaps],
        "findings": findings(devices, kernels, gaps, copies, min_gap_ns),
        "warnings": list(trace.warnings),
        **code_and_memory(con),
    }


def code_and_memory(con: duckdb.DuckDBPyConnection) -> dict:
    """`code`: every frame that launched GPU work, by gpu_ns; `memory`: GPU peaks;
    `host_memory`: the host allocator's; `code_user`: which frames are the user's own;
    `code_unattributed`: GPU work with no Python frame; `code_source`: 'python' (Python
    frames), 'nvtx' (NVTX ranges stand in: the trace has no Python frames) or 'none'."""
    try:
        frames = frame_times(con)
        peaks = memory_peaks(con)
        rest = unattributed(con)
    except duckdb.CatalogException:  # a Parquet store (`tui convert`) holds no stacks
        return {"code_source": "none", "code": [], "memory": []}
    meta = dict(con.execute("SELECT key, value FROM trace_meta WHERE key IN "
                            "('code_source', 'cuda_backtraces')").fetchall())
    return {
        "code_source": meta.get("code_source", "none"),
        # nsys --cudabacktrace call chains are native frames: not used for `code`
        "cuda_backtraces": meta.get("cuda_backtraces"),
        "code": [f.as_dict() for f in frames],
        "code_user": [f.frame for f in frames if f.user_code],
        "code_unattributed": {"gpu_ns": rest.gpu_ns, "launches": rest.launches,
                              "linked": rest.linked},
        "memory": [p.as_dict() for p in peaks if p.device_type == "gpu"],
        "host_memory": [p.as_dict() for p in peaks if p.device_type != "gpu"],
    }
