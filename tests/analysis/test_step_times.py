"""The window's steps and the slow ones (tui/analysis/step_times.py), on recordings whose
steps are known: recordings/gen_compiled_lm.py trains a torch.compile'd GPT-2 for 40 steps
and writes a checkpoint inside step 20, recorded whole under nsys (step ranges `step N`
inside the range `train`) and under torch.profiler (profiler steps 16-21). Every expected
figure comes from NVIDIA's `nsys stats -r nvtx_sum` of the export, or from the raw export
(sqlite3) and the raw JSON, not from tui."""

from __future__ import annotations

import csv
import re
import sqlite3
import statistics
from functools import cache
from pathlib import Path

import pytest

from tests.conftest import inflated, sample
from tests.helpers.oracle import chrome_events, ns
from tests.helpers.paths import DATA
from tui.analysis.step_times import SLOW_FACTOR, steps_text
from tui.analysis.summary import trace_summary
from tui.core.units import format_ns
from tui.loading.trace import open_trace

NSYS = "compiled_lm/compiled_lm_lean.sqlite"
KINETO = "compiled_lm/compiled_lm.pt.trace.json.gz"
GPU_TABLES = ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
              "CUPTI_ACTIVITY_KIND_MEMSET")


@cache
def _summary(path: Path) -> dict:
    with open_trace(path) as trace:
        return trace_summary(trace, min_gap_ns=1_000_000)


@pytest.fixture
def nsys() -> dict:
    return _summary(inflated(NSYS))


@pytest.fixture
def kineto() -> dict:
    return _summary(sample(KINETO))


def _nvidia_steps() -> dict[str, int]:
    """Each `step N` range's time, from NVIDIA's nvtx_sum (one instance each)."""
    with open(DATA / "compiled_lm" / "compiled_lm_lean.nvtx_sum.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if re.fullmatch(r":step \d+", r["Range"])]
    assert all(r["Instances"] == "1" for r in rows)
    return {r["Range"][1:]: int(r["Total Time (ns)"]) for r in rows}


def _expected(durations: dict[str, int]) -> dict:
    median = statistics.median(durations.values())
    slow = {name for name, d in durations.items() if d > SLOW_FACTOR * median}
    return {"count": len(durations), "median_ns": round(median),
            "mean_ns": round(sum(durations.values()) / len(durations)),
            "max_ns": max(durations.values()),
            "longest": max(durations, key=durations.__getitem__), "slow": slow}


def _check(steps: dict, expected: dict) -> None:
    assert {k: steps[k] for k in ("count", "median_ns", "mean_ns", "max_ns", "longest")} \
        == {k: expected[k] for k in ("count", "median_ns", "mean_ns", "max_ns", "longest")}
    assert {s["name"] for s in steps["listed"]} == expected["slow"]
    assert steps["slow"] == len(expected["slow"])


def test_the_nsys_steps_are_nvidias_step_ranges(nsys: dict) -> None:
    diagnosis = nsys["diagnosis"]
    assert diagnosis["window"]["kind"] == "range" and diagnosis["window"]["name"] == "train"
    steps = diagnosis["figures"]["steps"]
    durations = _nvidia_steps()
    expected = _expected(durations)
    assert expected["count"] == 40 and expected["slow"] == {"step 20"}  # the checkpoint
    _check(steps, expected)
    assert steps["slow_ns"] == durations["step 20"] and not steps["slow_first"]
    assert diagnosis["steps_text"] == steps_text(
        steps, diagnosis["window"]["end_ns"] - diagnosis["window"]["start_ns"])
    assert diagnosis["steps_text"].startswith(
        f"Steps: 40 (step 0 … step 39), median {format_ns(expected['median_ns'])}, mean "
        f"{format_ns(expected['mean_ns'])}; 1 over twice the median, "
        f"{format_ns(durations['step 20'])} in all")


def _busy(intervals: list[tuple[int, int]], lo: int, hi: int) -> int:
    total, reach = 0, lo
    for start, end in sorted(intervals):
        start, end = max(start, reach), min(end, hi)
        if end > start:
            total += end - start
            reach = end
    return total


def test_the_slow_step_holds_what_the_gpu_idled_in_it(nsys: dict) -> None:
    """The idle time inside step 20 is its range less the GPU's busy time there (GPU work
    runs before and after it), and most of the window's host-caused idle: the sentence
    says so."""
    db = sqlite3.connect(inflated(NSYS))
    ((start, end),) = db.execute(
        "SELECT e.start, e.end FROM NVTX_EVENTS AS e LEFT JOIN StringIds AS s ON "
        "s.id = e.textId WHERE coalesce(e.text, s.value) = 'step 20'").fetchall()
    busy = [row for t in GPU_TABLES for row in db.execute(f"SELECT start, end FROM {t}")]
    assert min(s for s, _ in busy) < start and max(e for _, e in busy) > end
    idle = (end - start) - _busy(busy, start, end)
    diagnosis = nsys["diagnosis"]
    inside = diagnosis["figures"]["steps"]["slow_idle"]
    assert sum(inside.values()) == idle
    host = diagnosis["idle_by_cause"]["host_ns"]
    assert diagnosis["bound"] == "host" and inside["host"] >= host / 2
    median = diagnosis["figures"]["steps"]["median_ns"]
    assert (f"({format_ns(host)}) waiting for the host to issue work (156 gaps), "
            f"{format_ns(inside['host'])} of it in step 20, which took "
            f"{format_ns(end - start)} against a median step of {format_ns(median)}; "
            ) in diagnosis["text"]


def test_the_profiler_steps_are_the_jsons(kineto: dict) -> None:
    events = chrome_events(sample(KINETO))
    durations = {e["name"]: ns(e["dur"]) for e in events  # the host's, not the GPU's
                 if e.get("ph") == "X" and e.get("cat") == "user_annotation"
                 and re.fullmatch(r"ProfilerStep#\d+", e["name"])}
    expected = _expected(durations)
    assert expected["count"] == 6 and expected["slow"] == {"ProfilerStep#20"}
    diagnosis = kineto["diagnosis"]
    assert diagnosis["window"]["kind"] == "profiler_steps"
    _check(diagnosis["figures"]["steps"], expected)
    assert "of it in ProfilerStep#20, which took" in diagnosis["text"]


def test_a_slow_first_step_is_warm_up() -> None:
    """gappy_training.sqlite's first step range (cuBLAS and the allocator warming up)
    takes 367 ms against a median of 40 ms and most of the window's host-caused idle:
    the sentence names it as the first and gives the warm-up's remedy."""
    diagnosis = _summary(sample("gappy_training.sqlite"))["diagnosis"]
    steps = diagnosis["figures"]["steps"]
    db = sqlite3.connect(sample("gappy_training.sqlite"))
    durations = dict(db.execute(
        "SELECT coalesce(e.text, s.value), e.end - e.start FROM NVTX_EVENTS AS e LEFT JOIN "
        "StringIds AS s ON s.id = e.textId WHERE coalesce(e.text, s.value) GLOB 'step_*' "
        "AND e.end IS NOT NULL").fetchall())
    expected = _expected(durations)
    assert expected["slow"] == {"step_0"}
    _check(steps, expected)
    assert steps["slow_first"]
    assert (f"of it in its first step (step_0 {format_ns(durations['step_0'])}) against a "
            f"median step of {format_ns(expected['median_ns'])}; ") in diagnosis["text"]
    assert diagnosis["text"].endswith("start the profile after warm-up (a profiler schedule "
                                      "with warmup, or NVTX step ranges) and judge the "
                                      "steps alone.")
    assert "1 (the first) over twice the median" in diagnosis["steps_text"]


def test_steps_none_slow_and_no_steps() -> None:
    """loop_compute's profiler steps are even: no step named in the sentence; a window of
    no steps (small_kernels.sqlite: the GPU span) has no steps line."""
    even = _summary(sample("loops/loop_compute.pt.trace.json.gz"))["diagnosis"]
    assert even["figures"]["steps"]["slow"] == 0 and " of it in " not in even["text"]
    assert even["steps_text"].endswith("; none over twice the median.")
    bare = _summary(sample("small_kernels.sqlite"))["diagnosis"]
    assert bare["figures"]["steps"] is None and bare["steps_text"] is None


def test_the_slow_steps_are_a_finding_with_their_cost(nsys: dict, kineto: dict) -> None:
    """Each slow step a row (its host range, as NVIDIA's nvtx_sum times it), the cost
    their time beyond a median step; a warning at 10% of the window or more."""
    durations = _nvidia_steps()
    median = round(statistics.median(durations.values()))
    (finding,) = [f for f in nsys["findings"] if f["rule"] == "slow_steps"]
    assert [(r["name"], r["duration_ns"], r["beyond_median_ns"]) for r in finding["rows"]] \
        == [("step 20", durations["step 20"], durations["step 20"] - median)]
    assert finding["cost_ns"] == durations["step 20"] - median
    window = nsys["diagnosis"]["window"]
    assert finding["cost_ns"] >= 0.1 * (window["end_ns"] - window["start_ns"])
    assert finding["severity"] == "warning"
    assert finding["text"].startswith(
        f"1 step of 40 in the window took over twice the median step ({format_ns(median)}): "
        f"step 20 {format_ns(durations['step 20'])}; ")
    (profiled,) = [f for f in kineto["findings"] if f["rule"] == "slow_steps"]
    assert [r["name"] for r in profiled["rows"]] == ["ProfilerStep#20"]
    assert not [f for f in _summary(sample("loops/loop_compute.pt.trace.json.gz"))["findings"]
                if f["rule"] == "slow_steps"]
