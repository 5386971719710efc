"""The findings of one trace: Nsight Systems' rules (tui.analysis.rules) and tui's own
(GPU idle share per device, the top kernel, launch overhead), most costly first.

Each is a Finding: its `text` is what the terminal prints, `cost_ns` the GPU-idle or host
time it explains (the top kernel: its GPU time), `rows` where it is (every row).
"""

from __future__ import annotations

import duckdb

from tui.analysis.finding import Finding
from tui.analysis.gaps import Gap, explained_gaps
from tui.analysis.kernels import DeviceBusy, KernelStats, device_busy, kernel_stats
from tui.analysis.row_sets import ArrowRows
from tui.analysis.rules import rule_findings, share
from tui.queries import load_query
from tui.units import format_bytes, format_ns

# Kernels shorter than this are dominated by launch cost (~5-10 µs of host time each).
TINY_KERNEL_NS = 10_000
# A device idle this share of its span or more is a warning, not a note.
IDLE_WARNING_PCT = 50.0


def trace_findings(con: duckdb.DuckDBPyConnection, min_gap_ns: int,
                   ) -> tuple[list[Finding], dict[str, str], int]:
    """`findings` with its inputs read from the trace (for the app), and the trace's span."""
    first, last = con.execute(load_query("trace_span")).fetchone() or (None, None)
    span_ns = last - first if first is not None and last is not None else 0
    found, skipped = findings(con, device_busy(con), kernel_stats(con),
                              explained_gaps(con, min_gap_ns), min_gap_ns, span_ns)
    return found, skipped, span_ns


def findings(
    con: duckdb.DuckDBPyConnection, devices: list[DeviceBusy], kernels: list[KernelStats],
    gaps: list[Gap], min_gap_ns: int, span_ns: int,
) -> tuple[list[Finding], dict[str, str]]:
    """Every finding, most costly first (those without a cost last), and {rule: why}
    for the rules this trace could not be checked against."""
    out, skipped = rule_findings(con, span_ns, gaps, min_gap_ns)
    out += [_idle(dev, gaps, min_gap_ns) for dev in devices]
    if kernels:
        out.append(_top_kernel(kernels[0]))
        overhead = _launch_overhead(kernels, _source_format(con))
        if overhead is not None:
            out.append(overhead)
    if "cuda_memcpy_async" in skipped:  # which call issued a copy is unknown: name them all
        pageable = _pageable(con, span_ns)
        if pageable is not None:
            out.append(pageable)
    out.sort(key=lambda f: -(f.cost_ns if f.cost_ns is not None else -1))
    return out, skipped


def _idle(dev: DeviceBusy, gaps: list[Gap], min_gap_ns: int) -> Finding:
    idle_ns = dev.span_ns - dev.busy_ns
    idle_pct = 100.0 - dev.busy_pct
    text = (
        f"GPU {dev.id} idle {idle_pct:.0f}% of its active span "
        f"({format_ns(idle_ns)} of {format_ns(dev.span_ns)})"
        + (f"; {len([g for g in gaps if g.device == dev.id])} gaps over "
           f"{format_ns(min_gap_ns)}" if gaps else "")
        + "."
    )
    rows = ([{"start_ns": dev.first_ns, "duration_ns": dev.span_ns, "device": dev.id,
              "busy_ns": dev.busy_ns}] if dev.first_ns is not None else [])
    return Finding("gpu_idle", "warning" if idle_pct >= IDLE_WARNING_PCT else "info", text,
                   idle_ns, rows)


def _top_kernel(top: KernelStats) -> Finding:
    return Finding("top_kernel", "info", (
        f"The top kernel takes {top.percent:.0f}% of GPU kernel time "
        f"({top.count:,} launches, {format_ns(top.total_ns)}): {_short(top.name)}."
    ), top.total_ns, [{"name": top.name, "count": top.count, "total_ns": top.total_ns}])


# What fuses small kernels or replays them as one launch, in the framework that made the trace.
_FUSE_ADVICE = {
    "xla": "jit more of the loop (jax.jit) so XLA fuses them, or let XLA replay them as "
           "command buffers (CUDA graphs)",
}
_FUSE_ADVICE_DEFAULT = "fuse them (torch.compile) or replay them as a CUDA graph"


def _source_format(con: duckdb.DuckDBPyConnection) -> str | None:
    row = con.execute("SELECT value FROM trace_meta WHERE key = 'format'").fetchone()
    return row[0] if row else None


def _launch_overhead(kernels: list[KernelStats], source_format: str | None) -> Finding | None:
    tiny = [k for k in kernels if k.median_ns < TINY_KERNEL_NS]
    launches = sum(k.count for k in kernels)
    count = sum(k.count for k in tiny)
    if not launches or count / launches < 0.5:
        return None
    return Finding("launch_overhead", "warning", (
        f"{100 * count / launches:.0f}% of the {launches:,} kernel launches are kernels "
        f"whose median runs under {format_ns(TINY_KERNEL_NS)}: launch overhead "
        f"dominates; {_FUSE_ADVICE.get(source_format or '', _FUSE_ADVICE_DEFAULT)}."
    ), None, [{"name": k.name, "count": k.count, "total_ns": k.total_ns} for k in tiny])


def _pageable(con: duckdb.DuckDBPyConnection, span_ns: int) -> Finding | None:
    rows = ArrowRows.of_query(con, load_query("pageable_copies"))
    if not rows:
        return None
    total = sum(rows.column("duration_ns"))
    moved = sum(b or 0 for b in rows.column("bytes"))
    return Finding("pageable_copies", "warning", (
        f"{len(rows):,} copies use pageable host memory ({format_bytes(moved)}, "
        f"{format_ns(total)} on the GPU, {share(total, span_ns)}): they block the host; "
        "use pinned memory (pin_memory=True) and non_blocking=True."
    ), total, rows)


def _short(name: str, width: int = 70) -> str:
    return name if len(name) <= width else name[: width - 1] + "…"
