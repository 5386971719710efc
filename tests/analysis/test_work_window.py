"""The diagnosis describes the window of work, not the start-up (tui/analysis/window.py):
on whole-program recordings of loops of known character (recordings/gen_loops.py, nsys of
the whole program with the loop in one NVTX range, and torch.profiler with profiler steps)
the window is the loop's own range or steps, the set-up before it is told apart, the bound
is the designed one and the idle time in the window adds up by cause to what NVIDIA's
`gpu_gaps:gap=0` intervals (or the trace's own GPU events) leave idle there. Every expected
figure is read from the raw file here, with sqlite3 or json, not with tui."""

from __future__ import annotations

import csv
import gzip
import json
import sqlite3
from decimal import Decimal
from pathlib import Path

import pytest

from tests.conftest import SAMPLES, inflated, sample
from tests.helpers.paths import DATA
from tests.helpers.summaries import summary_and_gaps
from tests.helpers.window_oracle import kineto_expected, to_ns, union_within
from tui.analysis.diagnosis import COMPUTE_MOST, diagnose, gaps_and_work
from tui.analysis.summary import trace_summary
from tui.analysis.window import (
    LIBRARY_RANGES,
    MOST_WORK,
    iteration_query,
    window_query,
    work_window,
)
from tui.core.steps import PROFILER_STEP, STEP_NAME
from tui.loading.trace import open_trace

REFERENCE = DATA / "loops"
# each loop and the bound it was designed to have (recordings/gen_loops.py)
LOOPS = {"compute": "compute", "sync": "sync", "copy": "copy", "launch": "launch",
         "host": "host", "memory": "memory"}
# memory: DRAM-bound, told from compute by the nsys recording's GPU counters (DRAM near its
# peak over the window: 86%); torch.profiler's has none, and reads compute-bound


def designed(name: str, kind: str) -> str:
    """The bound the loop was designed to have, as its recording can show it."""
    return "compute" if LOOPS[name] == "memory" and kind != "sqlite" else LOOPS[name]
GPU_TABLES = ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
              "CUPTI_ACTIVITY_KIND_MEMSET")


def _clipped(intervals: list[tuple[int, int]], lo: int, hi: int) -> int:
    return sum(max(0, min(end, hi) - max(start, lo)) for start, end in intervals)


def _nsys_expected(path: Path, loop: str) -> dict:
    """From the export: the loop's NVTX range, the end of the GPU work launched in it, the
    trace's first event, the GPU's activities and NVIDIA's idle intervals."""
    db = sqlite3.connect(path)
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    ((start, end),) = db.execute(
        "SELECT e.start, e.end FROM NVTX_EVENTS AS e LEFT JOIN StringIds AS s "
        "ON s.id = e.textId WHERE coalesce(e.text, s.value) = ? AND e.end IS NOT NULL",
        (loop,)).fetchall()
    gpu = " UNION ALL ".join(f"SELECT start, end, correlationId FROM {t}"
                             for t in GPU_TABLES if t in tables)
    launched_start, launched_end = db.execute(
        f"SELECT min(start), max(end) FROM ({gpu}) WHERE correlationId IN "
        "(SELECT correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE start >= ? "
        "AND start < ?)", (start, end)).fetchone()
    (first,) = db.execute(
        f"SELECT min(s) FROM (SELECT min(start) AS s FROM ({gpu}) UNION ALL SELECT "
        "min(start) FROM CUPTI_ACTIVITY_KIND_RUNTIME UNION ALL SELECT min(start) FROM "
        "NVTX_EVENTS WHERE end IS NOT NULL)").fetchone()
    activities = db.execute(f"SELECT start, end FROM ({gpu})").fetchall()
    kernels = db.execute("SELECT start, end FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchall()
    with open(REFERENCE / f"loop_{loop}.gpu_gaps_gap0.csv", newline="") as f:
        gaps = [(int(r["Start (ns)"]), int(r["Start (ns)"]) + int(r["Duration (ns)"]))
                for r in csv.DictReader(f)]
    with open(REFERENCE / f"loop_{loop}_nvtx_gpu_proj_sum.csv", newline="") as f:
        projected = next(r for r in csv.DictReader(f) if r["Range"] == f":{loop}")
    return {"start": start, "end": max(end, launched_end), "first": first,
            "activities": activities, "kernels": kernels, "idle": gaps,
            "projected": launched_end - launched_start, "nvidia": projected}


@pytest.fixture(scope="module", params=[f"{loop}.{kind}" for loop in LOOPS
                                        for kind in ("sqlite", "pt.trace.json.gz")])
def loop(request) -> tuple[str, str, dict, list, list, dict]:
    """(loop, file kind, the expected figures, the window's device figures, the whole
    capture's, the summary's diagnosis JSON) of one recording."""
    name, kind = request.param.split(".", 1)
    path = (inflated(f"loop_{name}.sqlite") if kind == "sqlite"
            else sample(f"loops/loop_{name}.{kind}"))
    expected = (_nsys_expected(path, name) if kind == "sqlite" else kineto_expected(path))
    with open_trace(path) as trace:
        summary, (_gaps, whole, work) = summary_and_gaps(trace, 1_000_000)
    return name, kind, expected, work, whole, summary["diagnosis"]


def test_the_window_is_the_loops_own_range_or_steps(loop) -> None:
    name, kind, expected, work, _, diagnosis = loop
    window = diagnosis["window"]
    assert (window["start_ns"], window["end_ns"]) == (expected["start"], expected["end"])
    if kind == "sqlite":  # the NVTX range named after the loop, named in the sentence
        # the GPU work launched in it spans what NVIDIA's nvtx_gpu_proj_sum projects the
        # range onto the GPU
        assert expected["projected"] == int(expected["nvidia"]["Total Proj Time (ns)"])
        assert window["kind"] == "range" and window["name"] == name
        assert f"in NVTX range `{name}`, " in diagnosis["text"]
    else:
        assert window["kind"] == "profiler_steps"
        assert f"in {expected['steps']} profiler steps (ProfilerStep#" in diagnosis["text"]
    (time,) = work
    assert time.window is not None and time.window.start_ns == expected["start"]


def test_the_set_up_is_told_apart(loop) -> None:
    name, kind, expected, _, _, diagnosis = loop
    setup = expected["start"] - expected["first"]
    assert diagnosis["setup_ns"] == setup > 0
    if kind == "sqlite":  # whole programs: imports, CUDA set-up, host tensors, a warm-up
        assert setup > 200_000_000
        assert diagnosis["setup_text"].startswith("Set-up: ")
        assert f"before the range `{name}` (no GPU work " in diagnosis["setup_text"]
        busy = union_within(expected["activities"], expected["first"], expected["start"])
        idle_pct = round(100 * (setup - busy) / setup)
        assert f"(no GPU work {idle_pct}% of it)" in diagnosis["setup_text"]


def test_the_bound_is_the_designed_one(loop) -> None:
    name, kind, _, work, _, diagnosis = loop
    assert diagnosis["bound"] == designed(name, kind)
    (time,) = work
    share = time.compute_ns / time.span_ns
    if LOOPS[name] in ("compute", "memory"):
        assert share >= COMPUTE_MOST
    else:  # the loss leads, the compute share said beside it
        assert diagnosis["text"].startswith(f"{name.capitalize()}-bound in ")
        assert f"; it computed {100 * share:.0f}%; " in diagnosis["text"]


def test_idle_by_cause_adds_up_in_the_window(loop) -> None:
    """The device's span in the window runs from its first activity there to its last;
    its idle time is NVIDIA's idle intervals (Kineto: the stretches between activities)
    clipped to it, and the causes add up to it exactly."""
    _, kind, expected, work, _, diagnosis = loop
    (time,) = work
    activities = expected["activities"]
    lo = max(expected["start"], min(s for s, _ in activities))
    hi = min(expected["end"], max(e for _, e in activities))
    assert time.span_ns == hi - lo
    busy = union_within(activities, lo, hi)
    assert time.busy_ns == busy
    assert time.compute_ns + time.copy_ns + time.comm_ns == busy
    if kind == "sqlite":  # NVIDIA's every idle interval, clipped to the window
        assert time.idle_ns == _clipped(expected["idle"], lo, hi)
    assert time.idle_ns == hi - lo - busy
    assert sum(time.idle.by_cause.values()) == time.idle.idle_ns == time.idle_ns
    assert sum(diagnosis["idle_by_cause"].values()) == diagnosis["idle_ns"] == time.idle_ns
    assert sum(time.parts().values()) == time.span_ns
    # the kernels counted are those in the window
    assert time.kernels == sum(1 for s, e in expected["kernels"] if e > lo and s < hi)


def test_whole_program_start_up_no_longer_decides() -> None:
    """The GEMM loop recorded as a whole program: over the whole capture its start-up
    (imports, CUDA set-up, host tensors) makes it look host-bound; its window, the NVTX
    range `compute`, is compute-bound, 99.7% busy computing."""
    with open_trace(inflated("loop_compute.sqlite")) as trace:
        _gaps, whole, work = gaps_and_work(trace.con, 1_000_000)
    assert diagnose(whole, "nsys").bound == "host"
    assert diagnose(work, "nsys").bound == "compute"
    (time,) = work
    assert time.compute_ns >= 0.995 * time.span_ns


def _jax(workload: str, file: str) -> Path:
    (run,) = (SAMPLES / workload / "plugins" / "profile").iterdir()
    return run / file


def test_an_xla_profile_is_judged_over_its_steps() -> None:
    """JAX's step annotations (StepTraceAnnotation, `train step N`) are its steps: the window runs
    from the first to the last, and the loop is sync-bound in it."""
    path = _jax("jax_bound_sync", "vm.trace.json.gz")
    with gzip.open(path, "rt") as f:
        events = json.load(f, parse_float=Decimal)["traceEvents"]
    # jax.profiler.StepTraceAnnotation("train", step_num=N): named `train`, its number an arg
    steps = [e for e in events if e.get("ph") == "X" and e.get("name") == "train"
             and "step_num" in e.get("args", {})]
    with open_trace(path) as trace:
        diagnosis = trace_summary(trace, 1_000_000)["diagnosis"]
    window = diagnosis["window"]
    assert window["kind"] == "steps"
    assert window["name"] == f"train step 0 … train step {len(steps) - 1}"
    first = min(steps, key=lambda e: Decimal(e["ts"]))
    assert window["start_ns"] == to_ns(first["ts"])
    assert diagnosis["bound"] == "sync"
    assert diagnosis["text"].startswith(f"Sync-bound in {len(steps)} step ranges (")


def test_a_range_without_gpu_work_is_never_the_window() -> None:
    """pp_1f1b_nsys.sqlite: the 1F1B job's two ranks end in NVTX ranges `ncclCommDestroy`
    (0.5 s each, after the last kernel) that hold no GPU work; the window is the ranges
    named like steps, `step 1` to `step 5`, from the first one's start: each rank's
    `step 0`, over twice a typical step, is moved into the set-up."""
    path = sample("pp_1f1b_nsys.sqlite")
    db = sqlite3.connect(path)
    ranges = db.execute(
        "SELECT coalesce(e.text, s.value), e.start, e.end FROM NVTX_EVENTS AS e "
        "LEFT JOIN StringIds AS s ON s.id = e.textId WHERE e.end IS NOT NULL").fetchall()
    kernels = db.execute("SELECT start, end FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchall()
    destroy = [(lo, hi) for name, lo, hi in ranges if name == "ncclCommDestroy"]
    assert len(destroy) == 2
    assert all(_clipped(kernels, lo, hi) == 0 for lo, hi in destroy)
    steps = [(name, lo) for name, lo, _hi in ranges if name.startswith("step ")]
    with open_trace(path) as trace:
        window = work_window(trace.con)
    assert window is not None
    assert (window.kind, window.name, window.warm_up) == ("steps", "step 1 … step 5", 2)
    assert window.start_ns == min(lo for name, lo in steps if name == "step 1")
    # the set-up: from the first event to there, with the GPU's busy time in it
    activities = [row for t in GPU_TABLES for row in db.execute(f"SELECT start, end FROM {t}")]
    (first,) = db.execute(
        "SELECT min(s) FROM (SELECT min(start) AS s FROM CUPTI_ACTIVITY_KIND_KERNEL UNION ALL "
        "SELECT min(start) FROM CUPTI_ACTIVITY_KIND_RUNTIME UNION ALL SELECT min(start) "
        "FROM NVTX_EVENTS WHERE end IS NOT NULL)").fetchone()
    assert window.setup_ns == window.start_ns - first
    assert window.setup_busy_ns == union_within(activities, first, window.start_ns)


def test_a_range_around_no_step_is_set_up_where_steps_are_named(tmp_path: Path) -> None:
    """compiled_lm_lean.sqlite (a torch.compile'd GPT-2 recorded whole: NVTX `compile`,
    then `train` around `step 0` to `step 39`), with the GPU work of its later steps taken
    out (a generated variant: the kernels, copies and sets that start after step 10 began
    deleted), so that `compile`, the compile and its autotuning, holds most of the GPU
    work, as it did on rank 0 of the same program run with DDP on two GPUs: the window is
    still the steps, not `compile`."""
    path = tmp_path / "compiled_lm_variant.sqlite"
    path.write_bytes(inflated("compiled_lm/compiled_lm_lean.sqlite").read_bytes())
    db = sqlite3.connect(path)
    ranges = dict(((name, (lo, hi)) for name, lo, hi in db.execute(
        "SELECT coalesce(e.text, s.value), e.start, e.end FROM NVTX_EVENTS AS e "
        "LEFT JOIN StringIds AS s ON s.id = e.textId WHERE e.end IS NOT NULL")))
    cut = ranges["step 10"][0]
    for table in GPU_TABLES:
        db.execute(f"DELETE FROM {table} WHERE start >= ?", (cut,))
    db.commit()
    activities = [row for t in GPU_TABLES for row in db.execute(f"SELECT start, end FROM {t}")]
    held = {name: _clipped(activities, *ranges[name]) for name in ("compile", "train")}
    assert held["compile"] >= MOST_WORK * sum(e - s for s, e in activities) > held["train"]
    db.close()
    with open_trace(path, use_cache=False) as trace:
        window = work_window(trace.con)
        _gaps, _whole, work = gaps_and_work(trace.con, 1_000_000, window)
    assert window is not None
    assert (window.kind, window.name) == ("steps", "step 0 … step 39")
    assert window.start_ns == ranges["step 0"][0]
    # the loop's own range around the steps names no host work: the gaps in the steps,
    # all inside `train`, are in no other range
    assert window.around == ("train",)
    assert work[0].window == window and work[0].host_busy_in is None


def test_a_loop_after_a_longer_compile_is_found_without_its_ranges(tmp_path: Path) -> None:
    """compiled_lm_lean.sqlite with its NVTX ranges taken out (a generated variant): a
    whole program with nothing marked, whose torch.compile and autotuning ran more kernels
    before the loop than the loop's 40 steps did. The loop's repeats cover most of the
    kernels from their first on, not most of all: the window is the loop's, starting by
    its first steps (as the ranges taken out said), not at the first kernel."""
    path = tmp_path / "compiled_lm_unmarked.sqlite"
    path.write_bytes(inflated("compiled_lm/compiled_lm_lean.sqlite").read_bytes())
    db = sqlite3.connect(path)
    steps = sorted(start for name, start in db.execute(
        "SELECT coalesce(e.text, s.value), e.start FROM NVTX_EVENTS AS e "
        "LEFT JOIN StringIds AS s ON s.id = e.textId WHERE e.end IS NOT NULL")
        if name.startswith("step "))
    assert len(steps) == 40
    kernels = [start for (start,) in db.execute(
        "SELECT start FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY start")]
    in_loop = sum(start >= steps[0] for start in kernels)
    assert in_loop < 0.5 * len(kernels)  # the compile's kernels outnumber the loop's
    db.execute("DELETE FROM NVTX_EVENTS")
    db.commit()
    db.close()
    with open_trace(path, use_cache=False) as trace:
        window = work_window(trace.con)
    assert window is not None and window.kind == "iteration"
    # from the compile's last warm-up steps (repeats of the same iteration) or the first
    step = steps[1] - steps[0]
    assert steps[0] - 2 * step <= window.start_ns < steps[3]
    assert 40 <= window.ranges <= 42


def test_a_capture_range_is_the_window_without_ranges() -> None:
    """recordings/gen_profiler_range.py, recorded whole: no NVTX range nor profiler step,
    the loop between cudaProfilerStart and cudaProfilerStop (nsys keeps both calls). The
    window runs from the start call's return to the stop call; a 2 ms sleep after each
    synchronised GEMM leaves the GPU waiting for the host."""
    path = sample("profiler_range.sqlite")
    db = sqlite3.connect(path)
    calls = dict(db.execute(
        "SELECT s.value, CASE WHEN s.value LIKE 'cudaProfilerStart%' THEN r.end "
        "ELSE r.start END FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r JOIN StringIds AS s "
        "ON s.id = r.nameId WHERE s.value LIKE 'cudaProfiler%'").fetchall())
    start, end = calls["cudaProfilerStart_v4000"], calls["cudaProfilerStop_v4000"]
    kernels = db.execute("SELECT start, end FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchall()
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    activities = db.execute(" UNION ALL ".join(
        f"SELECT start, end FROM {t}" for t in GPU_TABLES if t in tables)).fetchall()
    with open(REFERENCE.parent / "diagnosis" / "profiler_range.gpu_gaps_gap0.csv",
              newline="") as f:
        gaps = [(int(r["Start (ns)"]), int(r["Start (ns)"]) + int(r["Duration (ns)"]))
                for r in csv.DictReader(f)]
    with open_trace(path) as trace:
        summary, (_gaps, _whole, (time,)) = summary_and_gaps(trace, 1_000_000)
        diagnosis = summary["diagnosis"]
    assert diagnosis["window"] == {"kind": "profiler_range", "name": "cudaProfilerStart … "
                                   "cudaProfilerStop", "start_ns": start, "end_ns": end}
    assert diagnosis["text"].startswith("Host-bound between cudaProfilerStart and "
                                        "cudaProfilerStop, ")
    assert "Set-up: " in diagnosis["setup_text"]
    lo = max(start, min(s for s, _ in activities))
    hi = min(end, max(e for _, e in activities))
    assert time.span_ns == hi - lo
    assert time.idle_ns == _clipped(gaps, lo, hi) == sum(time.idle.by_cause.values())
    assert time.idle.by_cause["host"] >= 0.9 * time.idle_ns
    assert time.kernels == sum(1 for s, e in kernels if e > lo and s < hi) == 30


def test_an_nsys_capture_range_is_the_window_it_holds() -> None:
    """unannotated/ranged.sqlite: 60 steps, the 20th to the 29th between
    torch.cuda.profiler.start() and stop(), under `nsys profile
    --capture-range=cudaProfilerApi`. The capture holds the driver's cuProfilerStart and
    no stop call (the capture ends there): the window runs from the start call's return
    to the last GPU activity, as a whole program's start and stop calls make it, not from
    a repeat of the kernel sequence inside it."""
    path = inflated("unannotated/ranged.sqlite")
    db = sqlite3.connect(path)
    names = {n for (n,) in db.execute(
        "SELECT s.value FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r JOIN StringIds AS s "
        "ON s.id = r.nameId WHERE s.value LIKE 'cu%Profiler%'")}
    (start,) = db.execute(
        "SELECT r.end FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r JOIN StringIds AS s "
        "ON s.id = r.nameId WHERE s.value = 'cuProfilerStart'").fetchone()
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    activities = db.execute(" UNION ALL ".join(
        f"SELECT start, end FROM {t}" for t in GPU_TABLES if t in tables)).fetchall()
    (kernels,) = db.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()
    assert names == {"cuProfilerStart"}
    with open(DATA / "unannotated" / "ranged.gpu_gaps_gap0.csv", newline="") as f:
        gaps = [(int(r["Start (ns)"]), int(r["Start (ns)"]) + int(r["Duration (ns)"]))
                for r in csv.DictReader(f)]
    end = max(e for _, e in activities)
    with open_trace(path) as trace:
        summary, (_gaps, _whole, (time,)) = summary_and_gaps(trace, 1_000_000)
    diagnosis = summary["diagnosis"]
    assert diagnosis["window"] == {"kind": "profiler_range", "name": "cudaProfilerStart … "
                                   "cudaProfilerStop", "start_ns": start, "end_ns": end}
    assert diagnosis["bound"] == "compute"
    assert diagnosis["text"].startswith("Compute-bound between cudaProfilerStart and "
                                        "cudaProfilerStop, ")
    lo = max(start, min(s for s, _ in activities))
    assert time.span_ns == end - lo
    assert time.idle_ns == _clipped(gaps, lo, end) == sum(time.idle.by_cause.values())
    assert time.kernels == kernels == 750  # 10 steps of 75


def test_the_iteration_is_read_from_the_busiest_streams_own_order() -> None:
    """unannotated/ddp.sqlite (DDP over two GPUs, nothing marked): each step's gradient
    all-reduces run on NCCL's own stream, among the backward's kernels as their timing
    falls. The kernel sequence the iteration is found in is the busiest stream's, in
    the order it was issued: its period is that stream's kernels a step, NCCL's left out,
    as sqlite3 counts them between the anchor's repeats."""
    from collections import Counter

    from tui.analysis.window import MIN_REPEATS, REGULAR, REPEATING, TOLERANCE

    path = inflated("unannotated/ddp.sqlite")
    db = sqlite3.connect(path)
    (device, stream), = db.execute(
        "SELECT deviceId, streamId FROM CUPTI_ACTIVITY_KIND_KERNEL GROUP BY 1, 2 "
        "ORDER BY count(*) DESC LIMIT 1").fetchall()
    names = [n for (n,) in db.execute(
        "SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN StringIds AS s "
        "ON s.id = k.demangledName WHERE k.deviceId = ? AND k.streamId = ? "
        "ORDER BY k.start", (device, stream))]
    assert not any(n.startswith("nccl") for n in names)  # NCCL's kernels: another stream
    with open_trace(path) as trace:
        _start, anchor, repeats, period = trace.con.execute(
            iteration_query("work_iteration"),
            {"min_repeats": MIN_REPEATS, "regular": REGULAR, "repeating": REPEATING,
             "tolerance": TOLERANCE, "stream_nth": 0}).fetchone()
    at = [i for i, n in enumerate(names) if n == anchor]
    apart = Counter(b - a for a, b in zip(at, at[1:], strict=False))
    assert period == apart.most_common(1)[0][0] == 113
    assert repeats == 100


def test_the_repeating_iteration_is_the_window_without_markers() -> None:
    """gen_bounds_jax.py's launch loop: 10 annotated steps (named `eager`, which does not
    read as a step) of 300 eager `x * 0.999 + 0.001`, after 3 warm-up ops. With no steps,
    range or capture range to go by, the window is the repeating kernel sequence: one
    repeat per op, 3,000 less the first few, slow, moved into the set-up, starting inside
    the first step, the loop launch-bound."""
    path = _jax("jax_bound_launch", "vm.trace.json.gz")
    with gzip.open(path, "rt") as f:
        events = json.load(f, parse_float=Decimal)["traceEvents"]
    steps = sorted((to_ns(e["ts"]), to_ns(e["ts"]) + to_ns(e["dur"])) for e in events
                   if e.get("ph") == "X" and e.get("name") == "eager")
    assert len(steps) == 10
    with open_trace(path) as trace:
        diagnosis = trace_summary(trace, 1_000_000)["diagnosis"]
    window = diagnosis["window"]
    assert window["kind"] == "iteration" and window["name"] == "loop_add_fusion"
    assert steps[0][0] <= window["start_ns"] < steps[0][1]
    # the first repeats, slow (the first ops' dispatch), are the set-up's
    figures = diagnosis["figures"]["window"]
    assert 0 < figures["warm_up"] <= 5
    assert figures["ranges"] + figures["warm_up"] == 10 * 300
    assert diagnosis["bound"] == "launch"
    assert diagnosis["text"].startswith(
        f"Launch-bound in {figures['ranges']:,} repeats of its kernel sequence (from "
        "`loop_add_fusion`), ")


@pytest.mark.parametrize("name", ["ddp4/ddp_rank0.pt.trace.json.gz",
                                  "bound_launch.pt.trace.json.gz",
                                  "stacks_training.pt.trace.json.gz", "ddp4_nsys.sqlite"])
def test_the_profiler_steps_own_query_finds_the_same_window(name) -> None:
    """work_window_profiler_steps.sql gives work_window.sql's very row where the window is
    the profiler's steps, and no row where it is not (named steps, an nsys report's NVTX
    ranges): work_window then weighs every kind. Asked for the first two here, each's
    steps read from the raw file."""
    params = {"profiler_step": PROFILER_STEP, "step_name": STEP_NAME, "most": MOST_WORK,
              "library": LIBRARY_RANGES, "iteration_start": None, "iteration_end": None,
              "iteration_name": None,
              "iteration_repeats": None}
    with open_trace(sample(name)) as trace:
        full = trace.con.execute(window_query("work_window"), params).fetchone()
        steps = trace.con.execute(window_query("work_window_profiler_steps"),
                                  {"profiler_step": PROFILER_STEP}).fetchone()
        window = work_window(trace.con)
    assert full is not None and window is not None
    if name.endswith(".pt.trace.json.gz") and full[0] == "profiler_steps":
        with gzip.open(sample(name), "rt") as f:
            events = json.load(f, parse_float=Decimal)["traceEvents"]
        marks = sorted(to_ns(e["ts"]) for e in events if e.get("ph") == "X"
                       and e.get("cat") == "user_annotation"
                       and str(e.get("name", "")).startswith("ProfilerStep#"))
        assert full[2] == marks[0] and full[4] == len(marks) >= 3
        assert steps == full
    else:
        assert name in ("stacks_training.pt.trace.json.gz", "ddp4_nsys.sqlite")
        assert full[0] == "steps" and steps is None
    # (ddp4_nsys: each process's `step 0`, warming up, moved into the set-up)
    warm = 4 if name == "ddp4_nsys.sqlite" else 0
    assert window.warm_up == warm
    assert (window.kind, window.end_ns, window.ranges + warm) == (full[0], full[3], full[4])
    assert (window.start_ns == full[2]) == (warm == 0)
