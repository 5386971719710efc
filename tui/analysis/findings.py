"""The findings of one trace: Nsight Systems' rules (tui.analysis.rules) and tui's own
(GPU idle share per device, the top kernel, launch overhead, matrix kernels on CUDA
cores, GEMMs of unaligned shapes, steps far slower than a typical step), most costly
first.

Each is a Finding: its `text` is what the terminal prints, `cost_ns` the GPU-idle or host
time it explains (the top kernel: its GPU time), `rows` where it is (every row). Each
thing is said once: a device's idle time is split by cause in its gpu_idle finding, which
has no cost of its own (its parts are costed where a finding names their cause: the idle
between back-to-back launches by launch_overhead), and nsys' low-use stretches
(gpu_time_util) point to it rather than count that idle again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace

import duckdb

from tui.analysis.dataparallel import dataparallel_finding
from tui.analysis.diagnosis import (
    DeviceTime,
    gaps_and_work,
)
from tui.analysis.diagnosis_context import Told, told_diagnosis
from tui.analysis.finding import Finding
from tui.analysis.framework import source_format
from tui.analysis.gaps import Gap
from tui.analysis.host_samples import gaps_host_activity
from tui.analysis.kernels import DeviceBusy, KernelStats, device_busy, kernel_stats
from tui.analysis.launch_means import launched_as
from tui.analysis.nsys_rules import RULES
from tui.analysis.remedies import GRAPHS, INDUCTOR
from tui.analysis.row_sets import ArrowRows
from tui.analysis.rules import rule_findings, share
from tui.analysis.shared_devices import shared_devices_finding
from tui.analysis.step_times import slow_step_finding
from tui.analysis.tensor_cores import (
    MatrixKernel,
    cuda_core_finding,
    matrix_kernels,
    unaligned_finding,
    unaligned_gemms,
)
from tui.core.queries import fill, fragment, load_query
from tui.core.units import format_bytes, format_ns

# Kernels shorter than this are dominated by launch cost (~5-10 µs of host time each).
TINY_KERNEL_NS = 10_000
# A device idle this share of its span or more is a warning, not a note.
IDLE_WARNING_PCT = 50.0


def trace_findings(con: duckdb.DuckDBPyConnection, min_gap_ns: int,
                   ) -> tuple[list[Finding], dict[str, str], int, Told]:
    """`findings` with its inputs read from the trace (for the app), the trace's span and
    its diagnosis as `--summary` tells it (of the window of work; the findings are of the
    whole trace)."""
    first, last = con.execute(load_query("trace_span")).fetchone() or (None, None)
    span_ns = last - first if first is not None and last is not None else 0
    gaps, times, work = gaps_and_work(con, min_gap_ns)
    found, skipped = findings(con, device_busy(con), kernel_stats(con), gaps, min_gap_ns,
                              span_ns, times, work=work)
    told = told_diagnosis(con, work, gaps, lambda: gaps_host_activity(con, min_gap_ns))
    return found, skipped, span_ns, told


def findings(
    con: duckdb.DuckDBPyConnection, devices: list[DeviceBusy], kernels: list[KernelStats],
    gaps: list[Gap], min_gap_ns: int, span_ns: int, times: list[DeviceTime] | None = None,
    matrix: list[MatrixKernel] | None = None, work: list[DeviceTime] | None = None,
) -> tuple[list[Finding], dict[str, str]]:
    """Every finding, most costly first (those without a cost last), and {rule: why}
    for the rules this trace could not be checked against. `times` (tui.analysis.diagnosis)
    split each device's idle time by cause; `matrix`: the trace's matrix_kernels, where
    the caller has them already; `work`: the figures of the window of work, whose slow
    steps are a finding (tui/analysis/step_times.py)."""
    out, skipped = rule_findings(con, span_ns, gaps, min_gap_ns)
    if times:
        out = [_with_idle(f, times) for f in out]
    by_device = {t.device: t for t in times or []}
    low_use = Counter(r["device"] for f in out if f.rule == "gpu_time_util" for r in f.rows)
    out += [_idle(dev, gaps, min_gap_ns, by_device.get(dev.id), low_use[dev.id])
            for dev in devices]
    if kernels:
        out.append(_top_kernel(kernels[0]))
        launch_idle = (sum(t.idle.by_cause["launch"] for t in times)
                       if times is not None else None)
        framework = source_format(con)
        # how the window's kernels were launched, where the diagnosis asked; else the trace's
        judged = next((t.launched_as for t in work or [] if t.launched_as), None)
        overhead = _launch_overhead(kernels, framework, launch_idle,
                                    lambda: judged or launched_as(con),
                                    lambda: _graph_replayed(con))
        if overhead is not None:
            out.append(overhead)
        on_cuda_cores = cuda_core_finding(matrix_kernels(con) if matrix is None else matrix,
                                          sum(k.total_ns for k in kernels), framework)
        if on_cuda_cores is not None:
            out.append(on_cuda_cores)
    if len(devices) > 1:  # one process driving several GPUs as DataParallel does
        replicated = dataparallel_finding(con)
        if replicated is not None:
            out.append(replicated)
    shared = shared_devices_finding(con)  # several processes' work on one GPU at once
    if shared is not None:
        out.append(shared)
    unaligned = unaligned_finding(unaligned_gemms(con))
    if unaligned is not None:
        out.append(unaligned)
    stepped = next((t for t in work or [] if t.steps), None)
    slow = slow_step_finding(con, stepped.steps, stepped.window) if stepped else None
    if slow is not None:
        out.append(slow)
    if "cuda_memcpy_async" in skipped:  # which call issued a copy is unknown: name them all
        pageable = _pageable(con, span_ns)
        if pageable is not None:
            out.append(pageable)
    out.sort(key=lambda f: -(f.cost_ns if f.cost_ns is not None else -1))
    return out, skipped


# How each idle cause is said in a device's gpu_idle finding
_CAUSE_WORDS = {"launch": "between back-to-back launches", "host": "waiting for the host",
                "sync": "after the host waited on it", "copy": "while the host staged copies",
                "communication": "while the host was in collectives",
                "other": "with work queued or no launch known"}


def _idle(dev: DeviceBusy, gaps: list[Gap], min_gap_ns: int, time: DeviceTime | None,
          low_use: int) -> Finding:
    """The device's idle time and, with `time`, its split by cause; no cost of its own
    when split (each cause's time is costed where a finding names it)."""
    idle_ns = dev.span_ns - dev.busy_ns
    idle_pct = 100.0 - dev.busy_pct
    causes = ""
    if time is not None and time.idle.idle_ns:
        parts = sorted(((ns, c) for c, ns in time.idle.by_cause.items() if ns), reverse=True)
        causes = ": " + ", ".join(f"{format_ns(ns)} {_CAUSE_WORDS[c]}" for ns, c in parts)
    text = (
        f"GPU {dev.id} idle {idle_pct:.0f}% of its active span "
        f"({format_ns(idle_ns)} of {format_ns(dev.span_ns)}){causes}"
        + (f"; {_count(len([g for g in gaps if g.device == dev.id]), 'gap')} over "
           f"{format_ns(min_gap_ns)}" if gaps else "")
        + (f"; the same idle as the {low_use} low-use stretch"
           f"{'es' if low_use != 1 else ''} of gpu_time_util" if low_use else "")
        + "."
    )
    rows = ([{"start_ns": dev.first_ns, "duration_ns": dev.span_ns, "device": dev.id,
              "busy_ns": dev.busy_ns}] if dev.first_ns is not None else [])
    return Finding("gpu_idle", "warning" if idle_pct >= IDLE_WARNING_PCT else "info", text,
                   idle_ns if time is None else None, rows)


# How a rule whose cause is an idle cause (nsys_rules.RULES) says the GPU idle it led to
_RULE_IDLE = {"sync": "the GPU idled {} after the host's waits on it, until it issued more work",
              "copy": "the GPU idled {} while the host staged copies"}


def _with_idle(finding: Finding, times: list[DeviceTime]) -> Finding:
    """A rule's finding with the GPU idle time of its cause added to its text (its cost
    stays the rule's own: the host time in those calls)."""
    rule = RULES.get(finding.rule)
    cause = rule.cause if rule is not None else None
    idle = sum(t.idle.by_cause[cause] for t in times) if cause else 0
    if not idle:
        return finding
    return replace(finding, text=finding.text.removesuffix(".") + "; "
                   + _RULE_IDLE[cause or ""].format(format_ns(idle)) + ".")


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


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
# ... where the work is compiled or replayed as graphs already (launch_means.launched_as)
_FUSE_ADVICE_BY_HOW = {
    INDUCTOR: "torch.compile is in use already (Inductor's Triton kernels): replay them as "
              "CUDA graphs (torch.compile(mode=\"reduce-overhead\"), torch.cuda.graph)",
    GRAPHS: "most of the GPU's time is CUDA graphs' replays already: bring the kernels "
            "launched one by one between them into the graphs, or compile the code that "
            "launches them",
}


def _launch_overhead(kernels: list[KernelStats], source_format: str | None,
                     launch_idle_ns: int | None,
                     how_launched: Callable[[], str | None],
                     replayed_of: Callable[[], dict[str, int]]) -> Finding | None:
    """Most launches are tiny kernels; its cost is the GPU's idle time between
    back-to-back launches (tui.analysis.idle_causes), where that is known. Kernels that
    CUDA graphs' replays ran (`replayed_of`: by name) were launched by no call of their own
    and are left out. Its advice by how the work was made and launched (`how_launched`:
    launch_means.launched_as)."""
    if not _mostly_tiny(kernels):  # asked first, as the graphs' kernels are a query
        return None
    replayed = replayed_of()
    own = [replace(k, count=k.count - replayed.get(k.name, 0)) for k in kernels]
    own = [k for k in own if k.count > 0]
    if not _mostly_tiny(own):
        return None
    tiny = [k for k in own if k.median_ns < TINY_KERNEL_NS]
    launches = sum(k.count for k in own)
    count = sum(k.count for k in tiny)
    in_graphs = sum(replayed.values())
    how = how_launched() if source_format != "xla" else None
    advice = _FUSE_ADVICE_BY_HOW.get(how or "") or _FUSE_ADVICE.get(source_format or "",
                                                                      _FUSE_ADVICE_DEFAULT)
    waited = (f"; the GPU waited {format_ns(launch_idle_ns)} between back-to-back launches"
              if launch_idle_ns else "")
    graphs = f" (besides {in_graphs:,} run by CUDA graphs' replays)" if in_graphs else ""
    return Finding("launch_overhead", "warning", (
        f"{100 * count / launches:.0f}% of the {launches:,} kernel launches{graphs} are "
        f"kernels whose median runs under {format_ns(TINY_KERNEL_NS)}: launch overhead "
        f"dominates{waited}; {advice}."
    ), launch_idle_ns or None,
        [{"name": k.name, "count": k.count, "total_ns": k.total_ns} for k in tiny])


def _mostly_tiny(kernels: list[KernelStats]) -> bool:
    """Whether half the launches or more are of kernels whose median is under
    TINY_KERNEL_NS."""
    launches = sum(k.count for k in kernels)
    tiny = sum(k.count for k in kernels if k.median_ns < TINY_KERNEL_NS)
    return launches > 0 and tiny >= 0.5 * launches


def _graph_replayed(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """{kernel name: instances CUDA graphs' replays ran} (graph_replayed_kernels.sql)."""
    return dict(con.execute(fill("graph_replayed_kernels",
                                 graph_replays=fragment("graph_replays"))).fetchall())


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
