"""One trace's distributed figures (a rank in `tui --summary --json`), by HTA's definitions."""

from __future__ import annotations

import duckdb

from tui.analysis.distributed.critical_path import critical_paths
from tui.analysis.distributed.idle import idle_categories
from tui.analysis.distributed.queues import queue_summary
from tui.analysis.distributed.window import prepare, release
from tui.core.queries import load_query

# HTA's launch-stats outlier cutoffs (runtime_cutoff=50, launch_delay_cutoff=100, in us)
RUNTIME_CUTOFF_NS = 50_000
DELAY_CUTOFF_NS = 100_000
# Up to this many GPU activities, the launch delays' quantiles are found holding every
# delay (dist_launch_stats.sql with $held: 8 bytes each, twice, ~16 MB at most), a plan a
# third as dear as counting the distinct delays (dist_launch_delay_quantiles.sql), which
# a 3 GB export's 15.7M needs to fit the summary's share of the budget.
HELD_DELAYS_MAX = 1_000_000
BREAKDOWN_KEYS = ("idle_ns", "compute_ns", "non_compute_ns", "kernel_ns")
LAUNCH_KEYS = ("launches", "cpu_ns_sum", "cpu_ns_max", "gpu_ns_sum", "gpu_ns_max",
               "delay_ns_sum", "delay_ns_max", "delay_ns_p50", "delay_ns_p90",
               "delay_ns_p99", "short_kernels", "long_launch_calls", "long_delays")


def trace_figures(con: duckdb.DuckDBPyConnection) -> dict:
    """breakdown, overlap_pct, communication, launch_stats, idle_breakdown, queue_length,
    critical_path (one entry a step) and window over the trace's devices together (as HTA
    gives a rank's); per_device as well where the trace has more than one GPU (one process
    driving several, or an nsys report of several processes)."""
    window = prepare(con, fresh=True, remember=False)
    parts = _breakdown(con)
    launches = _launch_stats(con, held=window.work_rows is not None
                             and window.work_rows <= HELD_DELAYS_MAX)
    devices = sorted(d for d in parts if d >= 0)
    whole_key = -1 if len(devices) > 1 else (devices[0] if devices else -1)
    whole = _entry(parts.get(whole_key), launches.get(None), window.steps)
    figures = {
        **whole,
        "idle_breakdown": [c.as_dict() for c in idle_categories(con, window=window)],
        "queue_length": queue_summary(con, window=window),
        "critical_path": [p.as_dict() for p in critical_paths(con, window=window)],
        "window": window.as_dict(),
    }
    if len(devices) > 1:
        figures["per_device"] = [
            {"device": d, **_entry(parts[d], launches.get(d), window.steps)} for d in devices
        ]
    release(con)
    return figures


def _entry(part: dict | None, launch: dict | None, steps: int) -> dict:
    part = part or {k: 0 for k in (*BREAKDOWN_KEYS, "comm_ns", "overlap_ns", "busy_ns")}
    comm, overlap = part["comm_ns"], part["overlap_ns"]
    exposed = comm - overlap
    return {
        "breakdown": {k: part[k] for k in BREAKDOWN_KEYS},
        # HTA: the share of communication kernel time that a compute kernel overlaps
        "overlap_pct": round(100 * overlap / comm, 2) if comm else None,
        "communication": {
            "comm_ns": comm, "overlap_ns": overlap, "exposed_ns": exposed,
            "exposed_per_step_ns": round(exposed / steps) if steps else None,
        },
        "launch_stats": launch or {k: 0 for k in LAUNCH_KEYS},
    }


def _breakdown(con: duckdb.DuckDBPyConnection) -> dict[int, dict]:
    cursor = con.execute(load_query("dist_breakdown"))
    names = [d[0] for d in cursor.description]
    return {row[0]: dict(zip(names, row, strict=True)) for row in cursor.fetchall()}


def _launch_stats(con: duckdb.DuckDBPyConnection,
                  held: bool = False) -> dict[int | None, dict]:
    """Per device and over the trace (None); `held`: by the query that holds every delay
    (the same figures, for a small trace)."""
    cursor = con.execute(load_query("dist_launch_stats"),
                         {"runtime_cutoff_ns": RUNTIME_CUTOFF_NS,
                          "delay_cutoff_ns": DELAY_CUTOFF_NS, "held": held})
    names = [d[0] for d in cursor.description]
    rows = cursor.fetchall()
    counted = {} if held else dict(
        con.execute(load_query("dist_launch_delay_quantiles")).fetchall())
    out = {}
    for row in rows:
        item = dict(zip(names, row, strict=True))
        device = item.pop("device")
        quantiles = (item.pop("delay_ns_quantiles") if held else counted.get(device)) \
            or [None] * 3
        for key, value in zip(("delay_ns_p50", "delay_ns_p90", "delay_ns_p99"), quantiles,
                              strict=True):
            item[key] = round(value) if value is not None else None
        out[device] = {k: item[k] for k in LAUNCH_KEYS}
    return out
