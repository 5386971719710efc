"""Before/after comparison of two traces of one program (`tui diff`).

The two traces are loaded like the ranks of a run (in parallel, each into its own store)
and combined: rank 0 is BEFORE, rank 1 AFTER. The time that decides "faster" or "slower"
is the median step time when both traces have steps (Kineto's ProfilerStep#N, or NVTX
ranges named like a step, see rank_steps.sql), else the GPU span (first to last GPU
activity, summed over devices). Step time is the better measure: it does not depend on
how many steps were profiled, nor on setup before the first step.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import duckdb

from tui.analysis.kernel_names import kernel_key, short_kernel_name
from tui.analysis.ranks import ensure_rank_tables
from tui.errors import TraceError
from tui.multirank.combine import RankSet
from tui.queries import load_query
from tui.units import format_ns

# A kernel whose average duration per launch moved less than this is 'same'.
SAME_PCT = 5.0
SIDES = ("before", "after")


class NotComparable(TraceError):
    """The traces cannot be compared (e.g. one has no GPU activity): `tui diff` exits 3."""


def diff_traces(before: Path, after: Path, min_gap_ns: int, use_cache: bool = True,
                workers: int | None = None) -> dict:
    """The diff dict of two trace files (see pair_diff)."""
    from tui.multirank.run import open_run

    for path in (before, after):
        if path.is_dir():
            raise TraceError(f"{path}: is a directory; `tui diff` compares two trace files")
    with open_run([before, after], use_cache=use_cache, workers=workers,
                  min_gap_ns=min_gap_ns, by_order=True) as pair:
        return pair_diff(pair, min_gap_ns)


def pair_diff(pair: RankSet, min_gap_ns: int) -> dict:
    """{"before", "after", "time", "totals", "kernels", "kernel_changes", "gaps",
    "findings", "warnings"}: plain values, ready for JSON."""
    ensure_rank_tables(pair.con)
    gpu = _by_rank(pair.con, "rank_gpu_time")
    steps = _by_rank(pair.con, "rank_steps")
    sides = [_side(pair, rank, gpu[rank], steps.get(rank)) for rank in (0, 1)]
    for name, side in zip(SIDES, sides, strict=True):
        if not side["gpu_activities"]:
            raise NotComparable(f"cannot compare: {name} ({side['path']}) has no GPU activity "
                                "(no kernel, copy or set was recorded)")
    before, after = sides
    kernels = kernel_diff(pair.con)
    changes = {s: 0 for s in ("appeared", "vanished", "faster", "slower", "same")}
    for k in kernels:
        changes[k["status"]] += 1
    time = _time(before, after)
    warnings = [f"{name}: {w}" for name, store in zip(SIDES, pair.stores, strict=True)
                for w in (store.summary or {}).get("warnings", [])]
    if before["steps"] and after["steps"] and before["steps"] != after["steps"]:
        warnings.append(f"before has {before['steps']} steps and after {after['steps']}: "
                        "totals cover different amounts of work; compare the per-step rows "
                        "and kernel averages")
    return {
        "before": before,
        "after": after,
        "time": time,
        "totals": _totals(before, after),
        "kernels": kernels,
        "kernel_changes": changes,
        "gaps": {"min_gap_ns": min_gap_ns, "before": before.pop("gap_kinds"),
                 "after": after.pop("gap_kinds")},
        "findings": diff_findings(before, after, time, kernels),
        "warnings": warnings,
    }


def kernel_diff(con: duckdb.DuckDBPyConnection, same_pct: float = SAME_PCT) -> list[dict]:
    """Per kernel (matched by kernel_key): counts, totals, averages and a status."""
    registered = con.execute("SELECT count(*) FROM duckdb_functions() "
                             "WHERE function_name = 'kernel_key'").fetchall()[0][0]
    if not registered:
        con.create_function("kernel_key", kernel_key, ["VARCHAR"], "VARCHAR",
                            side_effects=False)
    cursor = con.execute(load_query("diff_kernels"), {"same_pct": same_pct})
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _side(pair: RankSet, rank: int, gpu: dict | None, steps: dict | None) -> dict:
    store = pair.store(rank)
    summary = store.summary or {}
    gaps = summary.get("gaps", [])
    kinds: dict[str, dict[str, int]] = defaultdict(lambda: {"count": 0, "total_ns": 0})
    for gap in gaps:
        kinds[gap["kind"]]["count"] += 1
        kinds[gap["kind"]]["total_ns"] += gap["duration_ns"]
    gpu = gpu or {}
    return {
        "path": str(store.path),
        "format": store.format,
        "gpu_activities": gpu.get("devices", 0) > 0,
        "kernels": gpu.get("comm_kernels", 0) + gpu.get("compute_kernels", 0),
        "kernel_ns": gpu.get("comm_ns", 0) + gpu.get("compute_ns", 0),
        "span_ns": gpu.get("span_ns", 0),
        "busy_ns": gpu.get("busy_ns", 0),
        "idle_ns": gpu.get("span_ns", 0) - gpu.get("busy_ns", 0),
        "steps": steps["steps"] if steps else 0,
        "step_ns": steps["step_median_ns"] if steps else None,
        "gaps": len(gaps),
        "gap_ns": sum(g["duration_ns"] for g in gaps),
        "gap_kinds": dict(sorted(kinds.items())),
    }


def _time(before: dict, after: dict) -> dict:
    measure = "step_ns" if before["step_ns"] and after["step_ns"] else "span_ns"
    b, a = before[measure], after[measure]
    return {
        "measure": "median step" if measure == "step_ns" else "GPU span",
        "before_ns": b,
        "after_ns": a,
        "change_pct": 100.0 * (a - b) / b if b else 0.0,  # > 0: after is slower
    }


TOTAL_ROWS = (  # (key, label)
    ("step_ns", "median step"),
    ("span_ns", "GPU span"),
    ("busy_ns", "GPU busy"),
    ("idle_ns", "GPU idle"),
    ("kernel_ns", "kernel time"),
    ("kernels", "kernel launches"),
    ("gaps", "gaps"),
    ("gap_ns", "time in gaps"),
)


def _totals(before: dict, after: dict) -> list[dict]:
    rows = []
    for key, label in TOTAL_ROWS:
        b, a = before[key], after[key]
        if b is None or a is None:
            continue
        rows.append(_row(key, label, b, a))
    if before["steps"] and after["steps"]:
        for key, label in (("kernel_ns", "kernel time per step"),
                           ("idle_ns", "GPU idle per step")):
            rows.append(_row(f"{key}_per_step", label, before[key] // before["steps"],
                             after[key] // after["steps"]))
    return rows


def _row(key: str, label: str, b: int, a: int) -> dict:
    return {"metric": key, "label": label, "before": b, "after": a, "delta": a - b,
            "change_pct": 100.0 * (a - b) / b if b else None}


def diff_findings(before: dict, after: dict, time: dict, kernels: list[dict]) -> list[str]:
    out = []
    pct = time["change_pct"]
    verdict = (f"{-pct:.0f}% faster" if pct < -0.5 else f"{pct:.0f}% slower" if pct > 0.5
               else "as fast")
    out.append(f"After is {verdict} than before: {time['measure']} "
               f"{format_ns(time['before_ns'])} → {format_ns(time['after_ns'])}.")
    out.append(f"GPU idle {format_ns(before['idle_ns'])} → {format_ns(after['idle_ns'])} "
               f"({_pct(before['idle_ns'], after['idle_ns'])}); gaps {before['gaps']} → "
               f"{after['gaps']} ({format_ns(before['gap_ns'])} → {format_ns(after['gap_ns'])}).")
    out.append(f"Kernel time {format_ns(before['kernel_ns'])} → {format_ns(after['kernel_ns'])} "
               f"({_pct(before['kernel_ns'], after['kernel_ns'])}), launches "
               f"{before['kernels']:,} → {after['kernels']:,}.")
    matched = [k for k in kernels if k["status"] in ("faster", "slower")]
    if matched:
        k = matched[0]
        out.append(f"Largest change among kernels in both: {short_kernel_name(k['name'])} "
                   f"got {k['status']}, avg {format_ns(k['before_avg_ns'])} → "
                   f"{format_ns(k['after_avg_ns'])} ({signed_ns(k['delta_ns'])} in total).")
    new = [k for k in kernels if k["status"] == "appeared"]
    gone = [k for k in kernels if k["status"] == "vanished"]
    parts = []
    if new:
        parts.append(f"{len(new)} kernel names appeared (largest "
                     f"{short_kernel_name(new[0]['name'])}, {format_ns(new[0]['after_total_ns'])})")
    if gone:
        parts.append(f"{len(gone)} vanished (largest {short_kernel_name(gone[0]['name'])}, "
                     f"{format_ns(gone[0]['before_total_ns'])})")
    if parts:
        out.append(" and ".join(parts) + ".")
    return out


def _pct(b: int, a: int) -> str:
    return f"{100.0 * (a - b) / b:+.0f}%" if b else "new"


def signed_ns(ns: int) -> str:
    """-2400000 -> "-2.4 ms", 499000 -> "+499 µs"."""
    return ("-" if ns < 0 else "+") + format_ns(abs(ns))


def _by_rank(con: duckdb.DuckDBPyConnection, query: str) -> dict[int, dict]:
    cursor = con.execute(load_query(query))
    names = [d[0] for d in cursor.description]
    return {row[0]: dict(zip(names, row, strict=True)) for row in cursor.fetchall()}
