"""Before/after comparison of two traces of one program (`tui diff`).

The two traces are loaded like the ranks of a run (in parallel, each into its own store)
and combined: rank 0 is BEFORE, rank 1 AFTER. The time that decides "faster" or "slower"
is the median step time when both traces have steps (Kineto's ProfilerStep#N, or NVTX
ranges named like a step, see rank_steps.sql), else the GPU span (first to last GPU
activity, summed over devices). Step time is the better measure: it does not depend on
how many steps were profiled, nor on setup before the first step. Whether a time is the
same or changed follows one noise rule (tui/analysis/diff_noise.py); kernels that changed
only their template arguments pair up as 'variant' (tui/analysis/diff_variants.py).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import duckdb

from tui.analysis.diff_findings import diff_findings, signed_ns
from tui.analysis.diff_noise import NOISE_NS, NOISE_PCT, change, noise_ns
from tui.analysis.diff_variants import pair_variants
from tui.analysis.kernel_names import kernel_key, variant_label
from tui.analysis.ranks import ensure_rank_tables
from tui.core.errors import TraceError
from tui.core.queries import load_query
from tui.loading.store import TraceStore
from tui.runs.combine import RankSet

SIDES = ("before", "after")
STATUSES = ("appeared", "vanished", "variant", "faster", "slower", "same")
__all__ = ["diff_traces", "kernel_diff", "kernel_label", "pair_diff", "signed_ns"]


class NotComparable(TraceError):
    """The traces cannot be compared (e.g. one has no GPU activity): `tui diff` exits 3."""


def diff_traces(before: Path, after: Path, min_gap_ns: int, use_cache: bool = True,
                workers: int | None = None,
                on_done: Callable[[TraceStore], None] | None = None) -> dict:
    """The diff dict of two trace files (see pair_diff); on_done(store) as each is ready."""
    from tui.runs.run import open_run

    for path in (before, after):
        if path.is_dir():
            raise TraceError(f"{path}: is a directory; `tui diff` compares two trace files")
    with open_run([before, after], use_cache=use_cache, workers=workers,
                  min_gap_ns=min_gap_ns, by_order=True, on_done=on_done) as pair:
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
    kernels = pair_variants(kernel_diff(pair.con))
    changes = {s: 0 for s in STATUSES}
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
        "findings": diff_findings(before, after, time, kernels, min_gap_ns),
        "warnings": warnings,
    }


def kernel_label(kernel: dict) -> str:
    """A kernel row's name for a table; a variant's says what changed first."""
    if kernel["status"] != "variant":
        return kernel["name"]
    return f"{variant_label(kernel['before_name'], kernel['name'])}: {kernel['name']}"


def kernel_diff(con: duckdb.DuckDBPyConnection) -> list[dict]:
    """Per kernel (matched by kernel_key): counts, totals, averages and a status (before
    variants are paired: see pair_variants)."""
    registered = con.execute("SELECT count(*) FROM duckdb_functions() "
                             "WHERE function_name = 'kernel_key'").fetchall()[0][0]
    if not registered:
        con.create_function("kernel_key", kernel_key, ["VARCHAR"], "VARCHAR",
                            side_effects=False)
    cursor = con.execute(load_query("diff_kernels"),
                         {"noise_pct": NOISE_PCT, "noise_ns": NOISE_NS})
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
    """The measure that decides faster/slower, and its noise: the rule's per-launch part
    counts the kernels launched in what is measured (a step, or the whole span)."""
    per_step = bool(before["step_ns"] and after["step_ns"])
    measure = "step_ns" if per_step else "span_ns"
    b, a = before[measure], after[measure]
    launches = before["kernels"] / before["steps"] if per_step else before["kernels"]
    return {
        "measure": "median step" if per_step else "GPU span",
        "before_ns": b,
        "after_ns": a,
        "change_pct": 100.0 * (a - b) / b if b else 0.0,  # > 0: after is slower
        "noise_ns": round(noise_ns(b, launches)),
        "verdict": change(b, a, launches),  # faster, slower or same (within noise_ns)
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


def _by_rank(con: duckdb.DuckDBPyConnection, query: str) -> dict[int, dict]:
    cursor = con.execute(load_query(query))
    names = [d[0] for d in cursor.description]
    return {row[0]: dict(zip(names, row, strict=True)) for row in cursor.fetchall()}
