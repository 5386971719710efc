"""Two Nsight Compute reports of one program, before and after a change: per kernel what
changed (duration, throughput, occupancy, stalls, memory instructions by space, the
conditions of the advice table, and the source lines whose warp samples moved), as
Nsight Compute's baseline comparison sets a result beside its baseline.

Kernels are paired by function name, the n-th launch of a name before with the n-th
after. Source lines are paired by file name and text (an edit moves line numbers), then
by number.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tui.analysis.ncu.kept import report_summary

# A duration that moved by less than this is the same (ncu's replay is ~1-2% noisy).
SAME_PCT = 3.0
# Figures shown when they moved by this many percentage points or more.
FIGURE_POINTS = 2.0
LINES_SHOWN = 5  # source lines per kernel, biggest move first
LINE_SHARE_MOVED = 0.02  # ... that moved by 2 points of the kernel's warp samples or more
FIGURES = (("sm_pct", "SM throughput"), ("mem_pct", "memory throughput"),
           ("dram_pct", "DRAM"), ("l2_pct", "L2"), ("l1_pct", "L1"),
           ("achieved_occupancy_pct", "achieved occupancy"),
           ("theoretical_occupancy_pct", "theoretical occupancy"))


def load_summary(path: Path, with_source: bool = True, use_cache: bool = True
                 ) -> dict[str, Any]:
    """One report's summary, with its Source view when it is a .ncu-rep (kept in the cache
    for the next comparison unless not `use_cache`: tui.analysis.ncu.kept)."""
    return report_summary(path, with_source, use_cache)


def _change(before: float | None, after: float | None) -> float | None:
    return None if not before or after is None else 100.0 * (after - before) / before


def _status(change: float | None) -> str:
    if change is None:
        return "?"
    return "same" if abs(change) < SAME_PCT else "faster" if change < 0 else "slower"


def _key(line: dict[str, Any]) -> tuple[str, str]:
    name = (line["file"] or "").replace("\\", "/").rsplit("/", 1)[-1]
    return name, (line["text"] or "").strip() or f"#{line['line']}"


def _lines(before: dict[str, Any], after: dict[str, Any]) -> list[dict[str, Any]]:
    """Source lines whose share of the warp samples moved, biggest move first."""
    old = {_key(x): x for x in before.get("source_lines", [])}
    new = {_key(x): x for x in after.get("source_lines", [])}
    total_old = before.get("stall_samples") or 0
    total_new = after.get("stall_samples") or 0
    out: list[dict[str, Any]] = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        share_a = (a["stall_samples"] / total_old) if a and total_old else 0.0
        share_b = (b["stall_samples"] / total_new) if b and total_new else 0.0
        out.append({"file": key[0], "text": key[1],
                    "line_before": a["line"] if a else None,
                    "line_after": b["line"] if b else None,
                    "samples_before": a["stall_samples"] if a else 0,
                    "samples_after": b["stall_samples"] if b else 0,
                    "share_before": round(share_a, 4), "share_after": round(share_b, 4)})
    out.sort(key=lambda x: -abs(x["share_after"] - x["share_before"]))
    return [x for x in out
            if abs(x["share_after"] - x["share_before"]) >= LINE_SHARE_MOVED][:LINES_SHOWN]


def _stalls(before: dict[str, Any], after: dict[str, Any]) -> list[dict[str, Any]]:
    old = {s["reason"]: s["cycles_per_instruction"] for s in before.get("stalls", [])}
    new = {s["reason"]: s["cycles_per_instruction"] for s in after.get("stalls", [])}
    return [{"reason": r, "before": old.get(r), "after": new.get(r)}
            for r in sorted(set(old) | set(new), key=lambda r: -max(old.get(r, 0),
                                                                    new.get(r, 0)))]


def compare_kernel(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    change = _change(before["duration_ns"], after["duration_ns"])
    figures = [{"figure": key, "label": label, "before": before.get(key),
                "after": after.get(key)} for key, label in FIGURES
               if before.get(key) is not None and after.get(key) is not None
               and abs(after[key] - before[key]) >= FIGURE_POINTS]
    old_conditions = [a["condition"] for a in before.get("advice", [])]
    new_conditions = [a["condition"] for a in after.get("advice", [])]
    spaces = sorted(set(before.get("memory_instructions", {}))
                    | set(after.get("memory_instructions", {})))
    return {
        "name": before["short_name"] or before["name"],
        "launch_before": before["launch_id"], "launch_after": after["launch_id"],
        "duration_before_ns": before["duration_ns"], "duration_after_ns": after["duration_ns"],
        "change_pct": change, "status": _status(change),
        "speedup": (before["duration_ns"] / after["duration_ns"]
                    if before["duration_ns"] and after["duration_ns"] else None),
        "verdict_before": before["verdict"], "verdict_after": after["verdict"],
        "registers_before": before["registers_per_thread"],
        "registers_after": after["registers_per_thread"],
        "figures": figures,
        "stalls": _stalls(before, after),
        "memory_instructions": [
            {"space": s, "before": before.get("memory_instructions", {}).get(s),
             "after": after.get("memory_instructions", {}).get(s)} for s in spaces],
        "conditions_gone": [c for c in old_conditions if c not in new_conditions],
        "conditions_new": [c for c in new_conditions if c not in old_conditions],
        "conditions_kept": [c for c in new_conditions if c in old_conditions],
        "next_step_after": after["next_step"],
        "lines": _lines(before, after),
    }


def compare(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """The two summaries side by side: paired kernels, and those on one side only."""
    def by_name(summary: dict[str, Any]) -> dict[tuple[str, int], dict[str, Any]]:
        seen: dict[str, int] = {}
        out: dict[tuple[str, int], dict[str, Any]] = {}
        for k in summary["kernels"]:
            name = k["short_name"] or k["name"]
            out[(name, seen.get(name, 0))] = k
            seen[name] = seen.get(name, 0) + 1
        return out

    old, new = by_name(before), by_name(after)
    paired = [compare_kernel(old[key], new[key]) for key in old if key in new]
    return {
        "before": before.get("source", {}), "after": after.get("source", {}),
        "kernels": paired,
        "vanished": [k[0] for k in old if k not in new],
        "appeared": [k[0] for k in new if k not in old],
    }


def compare_reports(before: Path, after: Path,
                    on_done: Callable[[], None] | None = None,
                    use_cache: bool = True) -> dict[str, Any]:
    sides = []
    for path in (before, after):
        sides.append(load_summary(path, use_cache=use_cache))
        if on_done is not None:
            on_done()
    return compare(*sides)
