"""The headless summary of a trace, as the dict behind `tui --summary --json`."""

from __future__ import annotations

from tui.analysis.findings import findings
from tui.analysis.gaps import explained_gaps
from tui.analysis.kernels import device_busy, kernel_stats
from tui.queries import load_query
from tui.trace import Trace


def trace_summary(trace: Trace, min_gap_ns: int) -> dict:
    """Source, devices, every kernel name, every gap over the threshold, findings (each
    {rule, severity, text, cost_ns, rows}, most costly first), and {rule: why} for the
    rules the trace could not be checked against."""
    con = trace.con
    devices = device_busy(con)
    kernels = kernel_stats(con)
    gaps = explained_gaps(con, min_gap_ns)
    span = con.execute(load_query("trace_span")).fetchone() or (None, None)
    origin = con.execute(load_query("trace_origin")).fetchone()[0]
    meta = dict(con.execute("SELECT key, value FROM trace_meta").fetchall())
    source = {
        "path": str(trace.path),
        "format": trace.format,
        "first_ns": span[0],
        "last_ns": span[1],
        "span_ns": (span[1] - span[0]) if span[0] is not None else 0,
        "origin_ns": origin,
        "from_cache": trace.from_cache,
        "cache_note": trace.cache_note,
        "min_gap_ns": min_gap_ns,
    }
    for key in ("rank", "world_size", "nsys_product_version", "export_product_version",
                "cuda_runtime_version", "cuda_driver_version"):
        if key in meta:
            source[key] = meta[key]
    found, skipped = findings(con, devices, kernels, gaps, min_gap_ns, source["span_ns"])
    return {
        "source": source,
        "devices": [d.as_dict() for d in devices],
        "kernels": [k.as_dict() for k in kernels],
        "gaps": [{**g.as_dict(), "offset_ns": g.start_ns - origin} for g in gaps],
        "findings": [_with_offsets(f.to_json(), origin) for f in found],
        "rules_not_checked": skipped,
        "warnings": list(trace.warnings),
    }


def _with_offsets(finding: dict, origin: int | None) -> dict:
    """Each row with a start also gets its offset from the trace's +0, as gaps do."""
    for row in finding["rows"]:
        if row.get("start_ns") is not None and origin is not None:
            row["offset_ns"] = row["start_ns"] - origin
    return finding
