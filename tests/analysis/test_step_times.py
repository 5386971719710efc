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
from tests.helpers.window_oracle import union_within
from tui.analysis.remedies import SLOW_STEPS
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


def _expected(durations: dict[str, int], waited: dict[str, int], window_ns: int) -> dict:
    """The figures by the definitions (docs/diagnosis.md#steps): a step's own time is its
    range less its waits on the GPU; a typical step the median own time, or the window's
    time per step where that is longer; slow, an own time over twice a typical step."""
    median = statistics.median(durations.values())
    own = {name: d - waited.get(name, 0) for name, d in durations.items()}
    typical = round(max(statistics.median(own.values()), window_ns / len(own)))
    slow = {name for name, ns in own.items() if ns > SLOW_FACTOR * typical}
    return {"count": len(durations), "median_ns": round(median),
            "mean_ns": round(sum(durations.values()) / len(durations)),
            "max_ns": max(durations.values()),
            "longest": max(durations, key=durations.__getitem__), "slow": slow,
            "typical_ns": typical}


def _nsys_waits(path: Path, names: list[str]) -> dict[str, int]:
    """Each step range's time in synchronising and copy calls on its thread (clipped to
    it), read from the export with sqlite3."""
    db = sqlite3.connect(path)
    steps = db.execute(
        "SELECT coalesce(e.text, s.value), e.start, e.end, e.globalTid FROM NVTX_EVENTS AS e "
        "LEFT JOIN StringIds AS s ON s.id = e.textId WHERE e.end IS NOT NULL").fetchall()
    calls = db.execute(
        "SELECT r.start, r.end, r.globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r JOIN "
        "StringIds AS s ON s.id = r.nameId WHERE s.value LIKE 'cuda%Synchronize%' "
        "OR s.value LIKE 'cudaMemcpy%'").fetchall()
    out = {}
    for name, lo, hi, thread in steps:
        if name in names:
            out[name] = sum(max(0, min(e, hi) - max(s, lo)) for s, e, t in calls
                            if t == thread)
    return out


def _window_ns(summary: dict) -> int:
    window = summary["diagnosis"]["window"]
    return window["end_ns"] - window["start_ns"]


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
    waited = _nsys_waits(inflated(NSYS), list(durations))
    expected = _expected(durations, waited, _window_ns(nsys))
    assert expected["count"] == 40 and expected["slow"] == {"step 20"}  # the checkpoint
    _check(steps, expected)
    assert steps["typical_ns"] == expected["typical_ns"]
    assert steps["slow_ns"] == durations["step 20"] and not steps["slow_first"]
    assert diagnosis["steps_text"] == steps_text(steps, _window_ns(nsys))
    assert diagnosis["steps_text"].startswith(
        f"Steps: 40 (step 0 … step 39), median {format_ns(expected['median_ns'])}, mean "
        f"{format_ns(expected['mean_ns'])}; 1 slow (over twice a typical step, waits on "
        f"the GPU left out), {format_ns(durations['step 20'])} in all")


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
    idle = (end - start) - union_within(busy, start, end)
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
    # nothing in the export names what the host did in it: what to look for in it
    assert diagnosis["text"].endswith(f"; {SLOW_STEPS.format(does='it does')}.")


def test_the_profiler_steps_are_the_jsons(kineto: dict) -> None:
    events = chrome_events(sample(KINETO))
    steps = {e["name"]: e for e in events  # the host's, not the GPU's
             if e.get("ph") == "X" and e.get("cat") == "user_annotation"
             and re.fullmatch(r"ProfilerStep#\d+", e["name"])}
    durations = {name: ns(e["dur"]) for name, e in steps.items()}
    calls = [(ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), e["tid"]) for e in events
             if e.get("ph") == "X" and e.get("cat") == "cuda_runtime"
             and re.match(r"cuda\w*Synchronize|cudaMemcpy", e["name"])]
    waited = {name: sum(max(0, min(hi, ns(e["ts"]) + ns(e["dur"])) - max(lo, ns(e["ts"])))
                        for lo, hi, tid in calls if tid == e["tid"])
              for name, e in steps.items()}
    expected = _expected(durations, waited, _window_ns(kineto))
    assert expected["count"] == 6 and expected["slow"] == {"ProfilerStep#20"}
    diagnosis = kineto["diagnosis"]
    assert diagnosis["window"]["kind"] == "profiler_steps"
    _check(diagnosis["figures"]["steps"], expected)
    assert "of it in ProfilerStep#20, which took" in diagnosis["text"]


def test_a_slow_first_step_is_warm_up() -> None:
    """gappy_training.sqlite's first step range (cuBLAS and the allocator warming up)
    takes 367 ms against a median of 40 ms and most of the window's host-caused idle:
    the sentence names it as the first and gives the warm-up's remedy."""
    db = sqlite3.connect(sample("gappy_training.sqlite"))
    durations = dict(db.execute(
        "SELECT coalesce(e.text, s.value), e.end - e.start FROM NVTX_EVENTS AS e LEFT JOIN "
        "StringIds AS s ON s.id = e.textId WHERE coalesce(e.text, s.value) GLOB 'step_*' "
        "AND e.end IS NOT NULL").fetchall())
    summary = _summary(sample("gappy_training.sqlite"))
    expected = _expected(durations, _nsys_waits(sample("gappy_training.sqlite"),
                                                list(durations)), _window_ns(summary))
    diagnosis = summary["diagnosis"]
    steps = diagnosis["figures"]["steps"]
    assert expected["slow"] == {"step_0"}
    _check(steps, expected)
    assert steps["slow_first"]
    assert (f"of it in its first step (step_0 {format_ns(durations['step_0'])}) against a "
            f"median step of {format_ns(expected['median_ns'])}; ") in diagnosis["text"]
    assert diagnosis["text"].endswith("start the profile after warm-up (a profiler schedule "
                                      "with warmup, or NVTX step ranges) and judge the "
                                      "steps alone.")
    assert "1 (the first) slow (over twice a typical step" in diagnosis["steps_text"]


def test_steps_none_slow_and_no_steps() -> None:
    """loop_compute's profiler steps are even: no step named in the sentence; a window of
    no steps (small_kernels.sqlite: the GPU span) has no steps line."""
    even = _summary(sample("loops/loop_compute.pt.trace.json.gz"))["diagnosis"]
    assert even["figures"]["steps"]["slow"] == 0 and " of it in " not in even["text"]
    assert even["steps_text"].endswith(
        "; none slow (over twice a typical step, waits on the GPU left out).")
    bare = _summary(sample("small_kernels.sqlite"))["diagnosis"]
    assert bare["figures"]["steps"] is None and bare["steps_text"] is None


def test_the_slow_steps_are_a_finding_with_their_cost(nsys: dict, kineto: dict) -> None:
    """Each slow step a row (its host range, as NVIDIA's nvtx_sum times it), the cost
    their own time beyond a typical step; a warning at 10% of the window or more."""
    durations = _nvidia_steps()
    waited = _nsys_waits(inflated(NSYS), list(durations))
    typical = _expected(durations, waited, _window_ns(nsys))["typical_ns"]
    beyond = durations["step 20"] - waited["step 20"] - typical
    (finding,) = [f for f in nsys["findings"] if f["rule"] == "slow_steps"]
    assert [(r["name"], r["duration_ns"], r["beyond_typical_ns"]) for r in finding["rows"]] \
        == [("step 20", durations["step 20"], beyond)]
    assert finding["cost_ns"] == beyond >= 0.1 * _window_ns(nsys)
    assert finding["severity"] == "warning"
    assert finding["text"].startswith(
        f"1 step of 40 in the window took over twice a typical step ({format_ns(typical)}), "
        f"waits on the GPU left out: step 20 {format_ns(durations['step 20'])} (")
    (profiled,) = [f for f in kineto["findings"] if f["rule"] == "slow_steps"]
    assert [r["name"] for r in profiled["rows"]] == ["ProfilerStep#20"]
    assert not [f for f in _summary(sample("loops/loop_compute.pt.trace.json.gz"))["findings"]
                if f["rule"] == "slow_steps"]
