"""The rule findings of `--summary --json` on nsys exports hold exactly NVIDIA's rows: every
row `nsys analyze -r RULE:rows=-1` lists, in its order, same start and duration to the ns,
same API, PID/TID, device and stream (tests/data/nsys_rules/README.md says how the CSVs were
made)."""

from __future__ import annotations

import csv
import re
import sqlite3
from functools import cache
from pathlib import Path

import pytest

from tests.helpers.paths import DATA, inflated, sample
from tui.analysis.summary import trace_summary
from tui.loading.trace import open_trace

RULES_DIR = DATA / "nsys_rules"
# How many rows NVIDIA's rule lists for each export (rules: memcpy_async, memcpy_sync,
# memset_sync, api_sync, gpu_gaps, gpu_time_util), so an empty reading cannot pass.
COUNTS = {
    "rules": (10, 15, 5, 17, 6, 5),
    "sync_habits": (22, 0, 0, 32, 23, 1),
    "gappy_training": (56, 0, 0, 65, 28, 1),
    "gappy_then_tuned": (54, 0, 0, 61, 49, 1),
    "multistream": (0, 0, 0, 9, 9, 1),
    "ncu_kernels": (0, 0, 0, 3, 10, 1),
    "small_kernels": (0, 0, 0, 1, 0, 1),
    "compiled_lm_lean": (404, 0, 0, 687, 203, 2),
}
# exports kept xz-compressed in a folder of sample_traces/ (tests/helpers/paths.py: inflated)
PACKED = {"compiled_lm_lean": "compiled_lm/compiled_lm_lean.sqlite"}
RULES = ("cuda_memcpy_async", "cuda_memcpy_sync", "cuda_memset_sync", "cuda_api_sync",
         "gpu_gaps", "gpu_time_util")


@cache
def _summary(trace: str) -> dict:
    with open_trace(_path(trace)) as loaded:
        return trace_summary(loaded, min_gap_ns=1_000_000)


def _path(trace: str) -> Path:
    return inflated(PACKED[trace]) if trace in PACKED else sample(f"{trace}.sqlite")


def _nvidia(trace: str, rule: str) -> list[dict[str, str]]:
    with open(RULES_DIR / f"{trace}.{rule}.csv", newline="") as f:
        return list(csv.DictReader(f))


def _api(name: str) -> str:
    return re.sub(r"_v\d+$", "", name)  # nsys' version suffix, which tui drops


def _expected(rule: str, row: dict[str, str]) -> tuple:
    start, duration = int(float(row["Start (ns)"])), int(float(row["Duration (ns)"]))
    if rule == "cuda_api_sync":
        return start, duration, int(row["PID"]), int(row["TID"]), _api(row["API Name"])
    if rule == "gpu_gaps":
        return start, duration, int(row["Device ID"])
    if rule == "gpu_time_util":
        return start, duration, int(row["Device ID"]), float(row["In-Use (%)"])
    kinds = ((row["Memory Kind"],) if rule == "cuda_memset_sync"
             else (row["Src Kind"], row["Dst Kind"]))
    return (start, duration, int(row["PID"]), int(row["Device ID"]), int(row["Stream ID"]),
            _api(row["API Name"]), row["Bytes (MB)"], *kinds)


def _ours(rule: str, row: dict) -> tuple:
    start, duration = row["start_ns"], row["duration_ns"]
    if rule == "cuda_api_sync":
        return start, duration, row["pid"], row["tid"], row["api"]
    if rule == "gpu_gaps":
        return start, duration, row["device"]
    if rule == "gpu_time_util":
        return start, duration, row["device"], row["in_use_pct"]
    kinds = ((row["memory_kind"],) if rule == "cuda_memset_sync"
             else (row["src_kind"], row["dst_kind"]))
    return (start, duration, row["pid"], row["device"], row["stream"], row["api"],
            f"{row['bytes'] / 1e6:.3f}", *kinds)


@pytest.mark.slow
@pytest.mark.parametrize("trace", COUNTS)
@pytest.mark.parametrize("rule", RULES)
def test_rule_rows_equal_nsys_analyze(trace: str, rule: str) -> None:
    summary = _summary(trace)
    found = [f for f in summary["findings"] if f["rule"] == rule]
    assert len(found) <= 1
    ours = [_ours(rule, r) for r in found[0]["rows"]] if found else []
    expected = [_expected(rule, r) for r in _nvidia(trace, rule)]
    assert ours == expected
    assert len(expected) == COUNTS[trace][RULES.index(rule)]
    assert rule not in summary["rules_not_checked"]


@pytest.mark.parametrize("trace", ["rules", "sync_habits"])
def test_rule_findings_cost_and_text(trace: str) -> None:
    """A host-blocking rule costs its calls' host time; its text says so and what to do."""
    summary = _summary(trace)
    span = summary["source"]["span_ns"]
    by_rule = {f["rule"]: f for f in summary["findings"]}
    sync = by_rule["cuda_api_sync"]
    assert sync["cost_ns"] == sum(r["duration_ns"] for r in sync["rows"])
    assert f"{100 * sync['cost_ns'] / span:.1f}% of the trace's span" in sync["text"]
    copies = by_rule["cuda_memcpy_async"]
    assert copies["cost_ns"] == sum(r["api_duration_ns"] for r in copies["rows"])
    assert "pinned" in copies["text"].lower() or "Pin" in copies["text"]
    gaps = by_rule["gpu_gaps"]
    assert gaps["cost_ns"] == sum(g["duration_ns"] for g in summary["gaps"])
    costs = [f["cost_ns"] for f in summary["findings"] if f["cost_ns"] is not None]
    assert costs == sorted(costs, reverse=True)  # most costly first


def test_memset_kinds_come_from_the_export() -> None:
    """cuda_memset_sync keeps managed/pinned sets only: the memory kind is loaded."""
    with open_trace(sample("rules.sqlite")) as loaded:
        kinds = loaded.con.execute(
            "SELECT dst_kind, count(*) FROM gpu_activities WHERE kind = 'memset' "
            "GROUP BY ALL ORDER BY ALL").fetchall()
    assert kinds == [("Device", 10), ("Managed", 5)]


def test_sync_rule_filters_on_a_generated_variant(tmp_path: Path) -> None:
    """Edges the recording does not reach, on a generated variant of rules.sqlite (values
    changed in place): cuda_memcpy_sync leaves out host-to-device copies of 64,000 bytes or
    less (64,001 stays) and copies between a GPU and itself (known devices); a synchronous
    cudaMemset of pinned memory counts, of device memory not."""
    path = tmp_path / "rules_variant.sqlite"
    path.write_bytes(sample("rules.sqlite").read_bytes())
    db = sqlite3.connect(path)
    copies = "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET {} WHERE start = ?"
    db.execute(copies.format("bytes = 64000"), (830606528,))  # HtoD: left out
    db.execute(copies.format("bytes = 64001"), (854733036,))  # HtoD: kept
    db.execute(copies.format("srcDeviceId = 0, dstDeviceId = 0"), (831883270,))  # left out
    db.execute(copies.format("srcDeviceId = 0, dstDeviceId = 1"), (855874545,))  # kept
    db.execute("UPDATE CUPTI_ACTIVITY_KIND_MEMSET SET memKind = 1 WHERE start = ?",
               (831911462,))  # a cudaMemset of device memory, now pinned: counted
    db.commit()
    db.close()
    with open_trace(path) as loaded:
        summary = trace_summary(loaded, min_gap_ns=1_000_000)
    rows = {f["rule"]: f["rows"] for f in summary["findings"]}
    starts = {r["start_ns"] for r in rows["cuda_memcpy_sync"]}
    assert len(starts) == 13
    assert not {830606528, 831883270} & starts
    assert {854733036, 855874545} <= starts
    sets = {r["start_ns"]: r["memory_kind"] for r in rows["cuda_memset_sync"]}
    assert len(sets) == 6 and sets[831911462] == "Pinned"


@pytest.mark.parametrize("trace", COUNTS)
def test_rules_no_gpu_row_can_pass_are_left_unqueried_rightly(trace: str) -> None:
    """rule_inputs.sql counts the GPU rows that pass each copy and set rule's own filter;
    a rule with none is not queried, and its query indeed finds no row there."""
    from tui.analysis.rules import GPU_SIDE_RULES, rule_inputs, rule_rows

    with open_trace(_path(trace)) as loaded:
        _, empty = rule_inputs(loaded.con)
        for rule in GPU_SIDE_RULES:
            rows = len(rule_rows(loaded.con, rule))
            assert rows == COUNTS[trace][RULES.index(rule)]
            if rule in empty:
                assert rows == 0
    assert empty == SKIPPED[trace]


# The copy and set rules that no GPU row of each export could pass (the copies of
# sync_habits and the gappy exports pass cuda_memcpy_sync's GPU side, but their calls are
# asynchronous: that rule is queried there, and finds none).
SKIPPED = {
    "rules": set(),
    "sync_habits": {"cuda_memset_sync"},
    "gappy_training": {"cuda_memset_sync"},
    "gappy_then_tuned": {"cuda_memset_sync"},
    "multistream": {"cuda_memcpy_async", "cuda_memset_sync"},
    "ncu_kernels": {"cuda_memcpy_async", "cuda_memcpy_sync", "cuda_memset_sync"},
    "small_kernels": {"cuda_memcpy_async", "cuda_memcpy_sync", "cuda_memset_sync"},
    "compiled_lm_lean": {"cuda_memset_sync"},
}
