"""Nsight Systems' expert rules (`nsys analyze`) over the loaded schema, as findings.

Each rule is one query, `queries/rule_<name>.sql`, with NVIDIA's filters, thresholds and
defaults, returning the rule's rows in its order (longest first; gpu_time_util lowest use
first). `gpu_gaps` is the explained gaps (`tui/derived/gpu_idle.py`, strictly longer than the
threshold, as the rule). The same queries run on every source: on Kineto traces the
runtime events (cudaMemcpyAsync, cudaStreamSynchronize, ...) and the memory kinds in the
copies' names stand in for the nsys tables. A rule whose inputs the trace lacks is not run,
and `rule_inputs` says why. NVIDIA's rules also split rows by process; tui's schema keeps
GPU work per device, so two processes sharing one GPU are reckoned as one.
"""

from __future__ import annotations

from collections import Counter

import duckdb

from tui.analysis.finding import Finding
from tui.analysis.gaps import Gap
from tui.analysis.row_sets import ArrowRows, GapRows
from tui.core.queries import load_query
from tui.core.units import format_ns

# nsys' defaults for gpu_time_util: 30 equal chunks per device, below 50% in use.
TIME_UTIL_CHUNKS = 30
TIME_UTIL_THRESHOLD = 50
API_RULES = ("cuda_memcpy_async", "cuda_memcpy_sync", "cuda_memset_sync", "cuda_api_sync")
GPU_RULES = ("gpu_gaps", "gpu_time_util")
# The rules whose GPU rows rule_inputs.sql counts: with none, each has no rows (its join
# with every runtime call took 0.4-0.5 s for nothing on a 3 GB nsys export).
GPU_SIDE_RULES = ("cuda_memcpy_sync", "cuda_memcpy_async", "cuda_memset_sync")


def rule_rows(con: duckdb.DuckDBPyConnection, rule: str) -> ArrowRows:
    """Every row of one rule's query (not gpu_gaps), in the rule's order."""
    params = ({"chunks": TIME_UTIL_CHUNKS, "threshold": TIME_UTIL_THRESHOLD}
              if rule == "gpu_time_util" else None)
    return ArrowRows.of_query(con, load_query(f"rule_{rule}"), params)


def rule_inputs(con: duckdb.DuckDBPyConnection) -> tuple[dict[str, str], set[str]]:
    """{rule: why it was not run} for the rules whose inputs this trace lacks, and the
    copy and set rules that no GPU row could pass (queries/rule_inputs.sql)."""
    (runtime, copies, copies_kinds, memsets, memsets_kinds, gpu_rows, *candidates) = (
        con.execute(load_query("rule_inputs")).fetchone() or (0,) * 9)
    empty = {rule for rule, rows in zip(GPU_SIDE_RULES, candidates, strict=True) if not rows}
    return _why_not_checked(runtime, copies, copies_kinds, memsets, memsets_kinds,
                            gpu_rows), empty


def _why_not_checked(runtime: int, copies: int, copies_kinds: int, memsets: int,
                     memsets_kinds: int, gpu_rows: int) -> dict[str, str]:
    out: dict[str, str] = {}
    if not runtime:
        for rule in API_RULES:
            out[rule] = ("the trace has no CUDA runtime calls, so which call issued a copy, "
                         "a set or a wait is unknown (record them: nsys -t cuda, or the "
                         "PyTorch profiler's CUDA activity)")
        return out | ({r: "the trace has no GPU activity" for r in GPU_RULES}
                      if not gpu_rows else {})
    if copies and not copies_kinds:
        out["cuda_memcpy_async"] = "the trace does not say which copies use pageable memory"
    if memsets and not memsets_kinds:
        out["cuda_memset_sync"] = "the trace does not say what kind of memory each set is in"
    if not gpu_rows:
        out |= {r: "the trace has no GPU activity" for r in GPU_RULES}
    return out


def rule_findings(con: duckdb.DuckDBPyConnection, span_ns: int, gaps: list[Gap],
                  min_gap_ns: int) -> tuple[list[Finding], dict[str, str]]:
    """One finding per rule that found rows, and {rule: why} for those not run."""
    skipped, empty = rule_inputs(con)
    out: list[Finding] = []
    for rule in (*API_RULES, "gpu_time_util"):
        if rule in skipped or rule in empty:
            continue
        rows = rule_rows(con, rule)
        if rows:
            out.append(_TEXT[rule](rows, span_ns))
    if "gpu_gaps" not in skipped and gaps:
        out.append(gaps_finding(gaps, span_ns, min_gap_ns))
    return out, skipped


def share(ns: int, span_ns: int) -> str:
    """`ns` as a share of the trace's span, for a finding's cost."""
    return f"{100 * ns / span_ns:.1f}% of the trace's span" if span_ns else "of an empty span"


def _apis(rows: ArrowRows) -> str:
    counts = Counter(rows.column("api"))
    return ", ".join(f"{n:,} {api}" for api, n in counts.most_common())


def _memcpy_async(rows: ArrowRows, span_ns: int) -> Finding:
    host = sum(rows.column("api_duration_ns"))
    gpu = sum(rows.column("duration_ns"))
    return Finding("cuda_memcpy_async", "warning", (
        f"{len(rows):,} asynchronous copies ({_apis(rows)}) use pageable host memory, so "
        f"each blocks the host like a synchronous copy: {format_ns(host)} of host time in "
        f"those calls ({share(host, span_ns)}), {format_ns(gpu)} copying on the GPU. Pin the "
        "host buffers (cudaHostAlloc; in PyTorch pin_memory=True with non_blocking=True)."
    ), host, rows)


def _memcpy_sync(rows: ArrowRows, span_ns: int) -> Finding:
    host = sum(rows.column("api_duration_ns"))
    return Finding("cuda_memcpy_sync", "warning", (
        f"{len(rows):,} synchronous copies ({_apis(rows)}; host-to-device ones of 64 kB or "
        f"less left out) block the host until they finish: {format_ns(host)} in those calls "
        f"({share(host, span_ns)}). Use cudaMemcpyAsync on a stream, from pinned memory, "
        "and synchronise once where the result is needed."
    ), host, rows)


def _memset_sync(rows: ArrowRows, span_ns: int) -> Finding:
    host = sum(rows.column("api_duration_ns"))
    return Finding("cuda_memset_sync", "warning", (
        f"{len(rows):,} synchronous sets of pinned or managed memory ({_apis(rows)}) block "
        f"the host: {format_ns(host)} in those calls ({share(host, span_ns)}). Use "
        "cudaMemsetAsync on a stream."
    ), host, rows)


def _api_sync(rows: ArrowRows, span_ns: int) -> Finding:
    host = sum(rows.column("duration_ns"))
    return Finding("cuda_api_sync", "warning", (
        f"{len(rows):,} synchronisation calls ({_apis(rows)}) block the host for "
        f"{format_ns(host)} ({share(host, span_ns)}); the longest waits "
        f"{format_ns(rows[0]['duration_ns'])}. Synchronise only where the host needs a result "
        "(.item(), .cpu() and printing a GPU tensor synchronise too); order GPU work with "
        "events (cudaStreamWaitEvent) instead."
    ), host, rows)


def _time_util(rows: ArrowRows, span_ns: int) -> Finding:
    length = sum(r["duration_ns"] for r in rows)
    idle = round(sum(r["duration_ns"] * (100 - r["in_use_pct"]) / 100 for r in rows))
    low = rows[0]
    stretch = "stretch" if len(rows) == 1 else "stretches"
    # no cost: that idle is the devices' idle time, split by cause in their gpu_idle
    # findings (tui.analysis.findings), not a second amount
    return Finding("gpu_time_util", "warning", (
        f"{len(rows):,} {stretch} where the GPU is in use under {TIME_UTIL_THRESHOLD}% of the "
        f"time (each device's span in {TIME_UTIL_CHUNKS} chunks, as nsys cuts it): "
        f"{format_ns(length)}, {format_ns(idle)} of it idle ({share(idle, span_ns)}); the "
        f"lowest {low['in_use_pct']:.1f}% over {format_ns(low['duration_ns'])}. Why the GPU "
        "idles there: the gpu_idle finding of each device, by cause."
    ), None, rows)


_TEXT = {"cuda_memcpy_async": _memcpy_async, "cuda_memcpy_sync": _memcpy_sync,
         "cuda_memset_sync": _memset_sync, "cuda_api_sync": _api_sync,
         "gpu_time_util": _time_util}


def gaps_finding(gaps: list[Gap], span_ns: int, min_gap_ns: int) -> Finding:
    """gpu_gaps: every gap over the threshold, with the class most of the longest share."""
    total = sum(g.duration_ns for g in gaps)
    longest = sorted(gaps, key=lambda g: -g.duration_ns)[:5]
    kind, n = Counter(g.kind for g in longest).most_common(1)[0]
    example = next(g for g in longest if g.kind == kind)
    return Finding("gpu_gaps", "warning", (
        f"{len(gaps):,} GPU-idle gaps over {format_ns(min_gap_ns)} add up to "
        f"{format_ns(total)} ({share(total, span_ns)}); {n} of the {len(longest)} longest are "
        f"'{kind}': e.g. {format_ns(example.duration_ns)} idle, {example.cause}."
    ), total, GapRows(gaps))
