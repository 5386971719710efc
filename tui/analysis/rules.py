"""Nsight Systems' expert rules (`nsys analyze`) over the loaded schema, as findings.

Each rule is one record (tui.analysis.nsys_rules) and one query,
`queries/analysis/rule_<name>.sql`, with NVIDIA's filters, thresholds and defaults,
returning the rule's rows in its order (longest first; gpu_time_util lowest use
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
from tui.analysis.nsys_rules import LACKING, RULES, TIME_UTIL_CHUNKS, TIME_UTIL_THRESHOLD
from tui.analysis.row_sets import ArrowRows, GapRows
from tui.core.queries import load_query
from tui.core.units import format_ns

# The rules whose GPU rows rule_inputs.sql counts: with none, each has no rows (its join
# with every runtime call took 0.4-0.5 s for nothing on a 3 GB nsys export).
GPU_SIDE_RULES = tuple(rule.name for rule in RULES.values() if rule.gpu_rows)


def rule_rows(con: duckdb.DuckDBPyConnection, rule: str) -> ArrowRows:
    """Every row of one rule's query (not gpu_gaps), in the rule's order."""
    record = RULES[rule]
    if record.query is None:
        raise ValueError(f"rule {rule!r} has no query of its own")
    return ArrowRows.of_query(con, load_query(record.query), record.params or None)


def rule_inputs(con: duckdb.DuckDBPyConnection) -> tuple[dict[str, str], set[str]]:
    """{rule: why it was not run} for the rules whose inputs this trace lacks, and the
    copy and set rules that no GPU row could pass (queries/analysis/rule_inputs.sql)."""
    cursor = con.execute(load_query("rule_inputs"))
    names = [d[0] for d in cursor.description]
    counts = dict(zip(names, cursor.fetchone() or (0,) * len(names), strict=True))
    empty = {rule.name for rule in RULES.values() if rule.gpu_rows and not counts[rule.gpu_rows]}
    return _why_not_checked(lacking(counts)), empty


def lacking(counts: dict[str, int]) -> dict[str, bool]:
    """Which of a rule's possible needs (nsys_rules.LACKING) the trace lacks, from
    rule_inputs.sql's counts. Copies or sets of unknown memory kind matter only when the
    trace has some."""
    return {"runtime": not counts["runtime_calls"],
            "copy_kinds": bool(counts["copies"]) and not counts["copies_with_kinds"],
            "set_kinds": bool(counts["memsets"]) and not counts["memsets_with_kinds"],
            "gpu": not counts["gpu_rows"]}


def _why_not_checked(lacks: dict[str, bool]) -> dict[str, str]:
    """{rule: the first of its needs that the trace lacks}, in the rules' order."""
    out: dict[str, str] = {}
    for rule in RULES.values():
        missing = next((need for need in rule.needs if lacks[need]), None)
        if missing is not None:
            out[rule.name] = LACKING[missing]
    return out


def rule_findings(con: duckdb.DuckDBPyConnection, span_ns: int, gaps: list[Gap],
                  min_gap_ns: int) -> tuple[list[Finding], dict[str, str]]:
    """One finding per rule that found rows, and {rule: why} for those not run."""
    skipped, empty = rule_inputs(con)
    out: list[Finding] = []
    for rule in RULES.values():
        if rule.query is None or rule.name in skipped or rule.name in empty:
            continue
        rows = rule_rows(con, rule.name)
        if rows:
            out.append(_TEXT[rule.name](rows, span_ns))
    if "gpu_gaps" not in skipped and gaps:
        out.append(gaps_finding(gaps, span_ns, min_gap_ns))
    return out, skipped


def share(ns: int, span_ns: int) -> str:
    """`ns` as a share of the trace's span, for a finding's cost."""
    return f"{100 * ns / span_ns:.1f}% of the trace's span" if span_ns else "of an empty span"


def _advice(rule: str) -> str:
    return RULES[rule].advice or ""


def _apis(rows: ArrowRows) -> str:
    counts = Counter(rows.column("api"))
    return ", ".join(f"{n:,} {api}" for api, n in counts.most_common())


def _memcpy_async(rows: ArrowRows, span_ns: int) -> Finding:
    host = sum(rows.column("api_duration_ns"))
    gpu = sum(rows.column("duration_ns"))
    return Finding("cuda_memcpy_async", "warning", (
        f"{len(rows):,} asynchronous copies ({_apis(rows)}) use pageable host memory, so "
        f"each blocks the host like a synchronous copy: {format_ns(host)} of host time in "
        f"those calls ({share(host, span_ns)}), {format_ns(gpu)} copying on the GPU. "
        + _advice("cuda_memcpy_async")), host, rows)


def _memcpy_sync(rows: ArrowRows, span_ns: int) -> Finding:
    host = sum(rows.column("api_duration_ns"))
    return Finding("cuda_memcpy_sync", "warning", (
        f"{len(rows):,} synchronous copies ({_apis(rows)}; host-to-device ones of 64 kB or "
        f"less left out) block the host until they finish: {format_ns(host)} in those calls "
        f"({share(host, span_ns)}). " + _advice("cuda_memcpy_sync")), host, rows)


def _memset_sync(rows: ArrowRows, span_ns: int) -> Finding:
    host = sum(rows.column("api_duration_ns"))
    return Finding("cuda_memset_sync", "warning", (
        f"{len(rows):,} synchronous sets of pinned or managed memory ({_apis(rows)}) block "
        f"the host: {format_ns(host)} in those calls ({share(host, span_ns)}). "
        + _advice("cuda_memset_sync")), host, rows)


def _api_sync(rows: ArrowRows, span_ns: int) -> Finding:
    host = sum(rows.column("duration_ns"))
    return Finding("cuda_api_sync", "warning", (
        f"{len(rows):,} synchronisation calls ({_apis(rows)}) block the host for "
        f"{format_ns(host)} ({share(host, span_ns)}); the longest waits "
        f"{format_ns(rows[0]['duration_ns'])}. " + _advice("cuda_api_sync")), host, rows)


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
        f"lowest {low['in_use_pct']:.1f}% over {format_ns(low['duration_ns'])}. "
        + _advice("gpu_time_util")), None, rows)


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
