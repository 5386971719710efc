"""The diagnosis (tui.analysis.diagnosis) and the idle causes under it
(tui.analysis.idle_causes), on real traces of known character: what bounds each, and
that every device's idle time is accounted for by cause, to the nanosecond."""

from __future__ import annotations

import csv
import re

import pytest

from tests.helpers.paths import DATA, SAMPLES, inflated, sample
from tests.helpers.pilot import SIZE, settle, sync
from tests.helpers.tables import ready
from tui.analysis.diagnosis import (
    diagnose,
    gaps_and_times,
    gaps_and_work,
    holds_all_gpu_work,
    time_split,
    with_ncu,
)
from tui.analysis.findings import trace_findings
from tui.analysis.idle_causes import (
    CAUSES,
    COLLECTIVE_PATTERN,
    GAP_KIND,
    STAGING_PATTERN,
    tally,
)
from tui.analysis.kernels import device_busy
from tui.analysis.ncu.attach import ncu_for_trace
from tui.analysis.window import work_window
from tui.apps.trace_app import TraceApp
from tui.core.queries import load_query
from tui.loading.trace import open_trace
from tui.widgets.tables.findings import FindingPanel


def _jax(workload: str, file: str) -> str:
    (run,) = (SAMPLES / workload / "plugins" / "profile").iterdir()
    return str((run / file).relative_to(SAMPLES))


# (trace, the bound it was designed to have): recordings/gen_bounds.py's loops under
# torch.profiler and nsys, gen_bounds_jax.py's under jax.profiler (see recordings/README.md),
# and two earlier samples: the launch-bound inference loop and the gappy training.
BOUNDS = [
    ("bound_loader.pt.trace.json.gz", "host"),  # 6 ms sleep + a NumPy sort per step
    ("bound_sync.pt.trace.json.gz", "sync"),  # .item() and host work every iteration
    ("bound_copy.pt.trace.json.gz", "copy"),  # 128 MB from pageable memory per step
    ("bound_compute.pt.trace.json.gz", "compute"),  # back-to-back bf16 GEMMs
    ("bound_launch.pt.trace.json.gz", "launch"),  # 25,000 eager kernels of ~1 µs
    ("bound_memory.pt.trace.json.gz", "compute"),  # DRAM-bound: memory only with ncu
    ("bound_sync.sqlite", "sync"),
    ("bound_copy.sqlite", "copy"),
    (_jax("jax_bound_loader", "vm.xplane.pb"), "host"),
    (_jax("jax_bound_sync", "vm.trace.json.gz"), "sync"),
    (_jax("jax_bound_copy", "vm.xplane.pb"), "copy"),
    (_jax("jax_bound_compute", "vm.trace.json.gz"), "compute"),
    (_jax("jax_bound_launch", "vm.trace.json.gz"), "launch"),
    ("launch_bound_inference.pt.trace.json.gz", "launch"),
    ("gappy_training.pt.trace.json.gz", "host"),
]
# NVIDIA's every idle interval of the nsys recordings (tests/data/diagnosis/README.md)
REFERENCE = DATA / "diagnosis"
# The designed cause of each idle-bound loop takes at least this share of its idle time
DESIGNED_SHARE = 0.65


@pytest.fixture(scope="module", params=[name for name, _ in BOUNDS])
def figures(request) -> tuple[str, list, list, list, list, list]:
    """(name, device_busy, device_times over the whole trace, explained gaps over 1 ms,
    every idle interval of its GPU as (start, duration), device_times in the window of
    work) of one trace. Each ran on one GPU: device 0 of its process, which an nsys
    recording on a 4-GPU host says was its GPU 2 (CUDA's fastest-first order)."""
    with open_trace(sample(request.param)) as trace:
        gaps, times, work = gaps_and_work(trace.con, 1_000_000)
        intervals = sorted(trace.con.execute(
            "SELECT start_ns, duration_ns FROM gpu_idle "
            "WHERE device = (SELECT min(device) FROM gpu_activities)").fetchall())
        return request.param, device_busy(trace.con), times, gaps, intervals, work


@pytest.mark.slow
def test_every_idle_nanosecond_has_one_cause(figures) -> None:
    name, busy, times, _, intervals, _work = figures
    assert [t.device for t in times] == [d.id for d in busy]
    for device, t in zip(busy, times, strict=True):
        assert t.span_ns == device.span_ns and t.busy_ns == device.busy_ns
        # the causes add up to the idle time, which is the span less the busy time
        assert sum(t.idle.by_cause.values()) == t.idle.idle_ns == t.idle_ns
        assert t.idle_ns == device.span_ns - device.busy_ns > 0
        # busy time split by what ran, each instant once
        assert t.compute_ns + t.copy_ns + t.comm_ns == t.busy_ns
        # the bounds' claims make up the span
        assert sum(t.parts().values()) == t.span_ns
    reference = REFERENCE / f"{name.removesuffix('.sqlite')}.gpu_gaps_gap0.csv"
    if reference.is_file():
        # NVIDIA's `nsys analyze -r gpu_gaps:gap=0`: every idle interval, the very ones
        # whose causes add up to the idle time here
        with open(reference, newline="") as f:
            nvidia = sorted((int(r["Start (ns)"]), int(r["Duration (ns)"]))
                            for r in csv.DictReader(f))
        assert intervals == nvidia and len(nvidia) > 150
        assert times[0].idle_ns == sum(d for _, d in nvidia)


def test_the_bound_is_the_designed_one(figures) -> None:
    name, _, times, _, _, work = figures
    expected = dict(BOUNDS)[name]
    xla = name.startswith("jax_")
    # the loops alone were recorded: their window of work has the same bound
    assert diagnose(work, "xla" if xla else None).bound == expected
    diagnosis = diagnose(times, "xla" if xla else None)
    assert diagnosis.bound == expected
    assert diagnosis.text.startswith(f"{expected.capitalize()}-bound: GPU {times[0].device} ")
    (time,) = times
    if expected == "host":  # each host-bound loop's data step is annotated "dataloader"
        assert time.host_busy_in == "dataloader" and "busy most in dataloader" in diagnosis.text
    if expected in ("host", "sync", "launch"):  # an idle cause: most of the idle is it
        assert time.idle.by_cause[expected] >= DESIGNED_SHARE * time.idle_ns
    elif expected == "copy":  # copies with nothing beside them, or the host staging them
        assert time.parts()["copy"] >= 0.8 * time.span_ns
    else:
        assert time.compute_ns >= 0.95 * time.span_ns
    if xla and expected in ("host", "sync", "launch", "copy"):  # what to do, said for JAX
        assert ("jax.jit" in diagnosis.text or "device_put" in diagnosis.text
                or "float()" in diagnosis.text or "device ahead" in diagnosis.text)


def test_gap_classes_are_the_idle_causes(figures) -> None:
    """A gap over the threshold is classed by its idle cause: the gaps of each class add
    up to at most that cause's idle time."""
    _, _, times, gaps, _, _ = figures
    for t in times:
        for cause in CAUSES:
            in_gaps = sum(g.duration_ns for g in gaps
                          if g.device == t.device and g.kind == GAP_KIND[cause])
            assert in_gaps <= t.idle.by_cause[cause]


def test_launch_bound_says_how_many_kernels_and_what_to_do() -> None:
    with open_trace(sample("launch_bound_inference.pt.trace.json.gz")) as trace:
        found, _, _, told = trace_findings(trace.con, 1_000_000)
    diagnosis = told.diagnosis
    causes = diagnosis.time.idle.by_cause
    assert causes["launch"] > 0.95 * diagnosis.time.idle_ns
    assert diagnosis.text.startswith(
        "Launch-bound in 5 profiler steps (ProfilerStep#3 … ProfilerStep#7), 224 ms: GPU 0 "
        "idled 92% of its 224 ms (206 ms) between back-to-back launches of 9,600 kernels of "
        "1.54 µs median")
    assert "; it computed 7%; " in diagnosis.text
    assert "CUDA graph" in diagnosis.text
    # the finding naming the cause carries the idle it explains and comes first; the
    # device's idle (split by cause) and the low-use stretch have no cost of their own
    assert found[0].rule == "launch_overhead" and found[0].cost_ns == causes["launch"]
    idle = next(f for f in found if f.rule == "gpu_idle")
    util = next(f for f in found if f.rule == "gpu_time_util")
    assert idle.cost_ns is None and util.cost_ns is None
    assert "206 ms between back-to-back launches" in idle.text
    assert "gpu_time_util" in idle.text and "gpu_idle" in util.text


def test_tally_is_the_one_way_causes_become_totals() -> None:
    """Another classification of the same intervals (HTA's host wait / kernel wait /
    other, say) enters through tally: unknown causes count as other, nothing is lost."""
    rows = [(0, "launch", 30, 3, None), (0, "host-wait", 50, 1, None),
            (0, "sync", 20, 2, "cudaStreamSynchronize"), (1, "host", 7, 1, None)]
    zero, one = tally(rows)
    assert zero.idle_ns == 100 and zero.by_cause["other"] == 50
    assert zero.top_call == {"sync": "cudaStreamSynchronize"}
    assert (one.device, one.idle_ns, one.by_cause["host"]) == (1, 7, 7)


@pytest.mark.parametrize("name", [
    "nccl:all_reduce", "NCCL_AllGather", "gloo:broadcast", "c10d::allreduce_",
    "C10D.barrier", "ProcessGroupNCCL::allreduce", "xProcessGroupGloo", "record_param_comms",
    "torch.distributed.all_gather", "Distributed.broadcast", "dist_BARRIER_wait",
    "H2D Dispatch", "h2d transfer", "HostToDevice", "copy_host_to_device",
    "Host_ToDevice", "BufferFromHostBuffer", "PjRt::bufferfromhostbuffer",
])
def test_the_ops_idle_causes_matches_pass_its_substrings_first(name: str) -> None:
    """idle_causes.sql looks for substrings of a CPU op's name (ILIKE) before its patterns
    (cheap on dictionary-compressed names): every name the patterns match holds one."""
    hints = re.findall(r"h\.name ILIKE '%([^%']+)%'", load_query("idle_causes"))
    assert len(hints) == 9
    assert re.search(COLLECTIVE_PATTERN, name) or re.search(STAGING_PATTERN, name)
    # ILIKE's _ stands for any one character
    assert any(re.search(re.escape(hint).replace("_", "."), name.lower()) for hint in hints)


@pytest.mark.slow
@sync
async def test_the_findings_tab_opens_with_the_diagnosis() -> None:
    app = TraceApp(sample("bound_copy.pt.trace.json.gz"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("6")
        await ready(pilot, "finding-table")
        await pilot.pause()
        caption = str(app.query_one(FindingPanel).caption.render())
    assert caption.startswith("Copy-bound in 40 profiler steps (ProfilerStep#2 … "
                              "ProfilerStep#41), 850 ms: GPU 0 spent 809 ms copying with no "
                              "compute beside")
    assert "(idle 34.7 ms of 849 ms: launch 16.4 ms, host 14.1 ms, sync 3.15 ms, copy 1.03 ms)" \
        in caption


@sync
async def test_the_findings_tab_judges_a_whole_program_by_its_loop() -> None:
    """The GEMM loop recorded as a whole program (nsys): the diagnosis above the findings
    is of its NVTX range, the start-up before it told apart."""
    app = TraceApp(inflated("loop_compute.sqlite"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("6")
        await ready(pilot, "finding-table")
        await pilot.pause()
        caption = str(app.query_one(FindingPanel).caption.render())
    assert caption.startswith("Compute-bound in NVTX range `compute`, 1.63 s: GPU 0 ran "
                              "compute kernels 100% of its 1.63 s")
    assert "Set-up: 966 ms before the range `compute` (no GPU work 89% of it)" in caption


@pytest.mark.slow
def test_nsight_compute_verdicts_leave_a_larger_loss_first() -> None:
    """kernels.cu's five kernels under nsys, and the same kernels under ncu: busy 75% of
    the span with compute, and NVIDIA's metrics put the four long ones at the memory
    ceiling (the fifth is a one-block grid). --ncu decides again from the figures; computing
    under COMPUTE_MOST of the span, the GPU's largest loss (20% idle between launches)
    still leads, the memory verdict kept in the figures."""
    with open_trace(sample("small_kernels.sqlite")) as trace:
        alone = diagnose(gaps_and_times(trace.con, 1_000_000)[1]).to_json()
        ncu = ncu_for_trace(trace, sample("small_kernels.ncu-rep"))
    assert alone["bound"] == "launch" and alone["figures"]["memory_ns"] is None
    assert "; it computed 75%; " in alone["text"]
    assert [k["verdict"] for k in ncu["kernels"]] == ["memory"] * 4 + ["small-grid"]
    diagnosis = with_ncu(alone, ncu)
    assert diagnosis["bound"] == "launch"
    figures = diagnosis["figures"]
    assert figures["compute_ns"] > figures["memory_ns"] >= 0.99 * figures["compute_ns"]
    assert diagnosis["idle_by_cause"] == alone["idle_by_cause"]  # the same idle, told again


def test_one_process_driving_two_gpus_gets_one_sentence_per_device() -> None:
    """The figures of two real traces as the two GPUs of one process (a composed case:
    no two-GPU single-process recording is at hand)."""
    times = []
    for device, name in enumerate(("launch_bound_inference.pt.trace.json.gz",
                                   "gappy_training.pt.trace.json.gz")):
        with open_trace(sample(name)) as trace:
            (time,) = gaps_and_times(trace.con, 1_000_000)[1]
        time.device = time.idle.device = device
        times.append(time)
    diagnosis = diagnose(times).to_json()
    assert [d["bound"] for d in diagnosis["devices"]] == ["launch", "host"]
    assert diagnosis["devices"][1]["text"].startswith("Host-bound: GPU 1 idled")
    assert diagnosis["text"].endswith("By GPU: GPU 0 launch; GPU 1 host.")
    assert diagnosis["figures"]["device"] is None  # the two summed
    assert diagnosis["idle_ns"] == sum(t.idle_ns for t in times) == sum(
        diagnosis["idle_by_cause"].values())


@pytest.mark.parametrize(("name", "bound"), [("bound_memory", "memory"),
                                             ("bound_compute", "compute")])
def test_one_ncu_report_says_which_busy_loop_is_memory_bound(name: str, bound: str) -> None:
    """gen_bounds.py's GEMM and element-wise multiply, three launches each, under ncu
    (its raw CSV): the multiply's memory verdict makes the loop of multiplies memory-bound;
    the GEMM loop stays compute-bound (the GEMM's verdict is compute)."""
    with open_trace(sample(f"{name}.pt.trace.json.gz")) as trace:
        alone = diagnose(gaps_and_times(trace.con, 1_000_000)[1]).to_json()
        ncu = ncu_for_trace(trace, sample("bound_kernels.ncu.raw.csv"))
    assert [k["verdict"] for k in ncu["kernels"]] == ["compute"] * 3 + ["memory"] * 3
    assert alone["bound"] == "compute"
    assert with_ncu(alone, ncu)["bound"] == bound


@pytest.mark.parametrize(("name", "holds"), [("launch_bound_inference.pt.trace.json.gz", True),
                                             ("cuda_graphs.pt.trace.json.gz", False)])
def test_a_window_holding_every_gpu_activity_takes_the_whole_traces_split(name: str,
                                                                          holds: bool) -> None:
    """The inference loop's profiler steps hold all of its kernels; the CUDA graph sample
    has replays outside its steps. Where the window holds them all, the split within it
    (one pass over every activity saved) is the one device_time_split.sql finds there."""
    with open_trace(sample(name), use_cache=False) as t:
        window = work_window(t.con)
        assert window is not None
        assert holds_all_gpu_work(t.con, window) is holds
        within, whole = time_split(t.con, window), time_split(t.con)
        assert (within == whole) is holds
        _, _, work = gaps_and_work(t.con, 1_000_000, window)
        assert [(d.compute_ns, d.copy_ns, d.comm_ns, d.kernels) for d in work] == \
            [(row[1], row[2], row[3], row[5]) for row in within]


@pytest.mark.parametrize("name", ["ddp4/ddp_rank0.pt.trace.json.gz", "ddp4_nsys.sqlite"])
def test_a_trace_of_one_block_of_ids_splits_its_time_as_the_blocks_query(
        monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """device_time_split.sql over device_time_unions_one_block.sql (all GPU ids in the first
    block) gives the rows it gives over device_time_unions_blocks.sql, over the whole trace
    and within its window of work (one GPU, and an nsys report's four); each device's
    all_ns is its busy time (device_busy)."""
    from tui.analysis import diagnosis
    from tui.analysis.window import work_window

    with open_trace(sample(name)) as trace:
        window = work_window(trace.con)
        assert window is not None
        small = [diagnosis.time_split(trace.con), diagnosis.time_split(trace.con, window)]
        monkeypatch.setattr(diagnosis, "SPLIT_BLOCK_IDS", 0)  # the blocks' query
        blocks = [diagnosis.time_split(trace.con), diagnosis.time_split(trace.con, window)]
        busy = {d.id: d.busy_ns for d in device_busy(trace.con)}
    assert small == blocks
    assert {row[0]: row[4] for row in small[0]} == busy
    assert len(small[0]) == (4 if name.endswith(".sqlite") else 1)


@pytest.mark.parametrize("name", ["launch_bound_inference.pt.trace.json.gz",
                                  "ddp4_nsys.sqlite"])
def test_intervals_classified_in_parts_get_the_causes_of_one_statement(
        monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """A big trace's intervals are staged for classifying in parts of the GPU ids that end
    them (idle_gaps_part.sql): in parts of 1,000 ids, every interval of these traces (one
    GPU's 9,600 kernels, an nsys report's four GPUs) gets the cause, blocking call and
    issue gap it gets in one statement."""
    from tui.analysis import idle_causes

    def causes(con) -> list[tuple]:
        with idle_causes.every_interval_classified(con):
            return con.execute("SELECT * FROM idle_causes ORDER BY ALL").fetchall()

    with open_trace(sample(name)) as trace:
        whole = causes(trace.con)
        gpu_ids = trace.con.execute("SELECT count(*) FROM gpu_activities").fetchone()[0]
        monkeypatch.setattr(idle_causes, "intervals_per_part", lambda: 1000)
        parted = causes(trace.con)
    assert gpu_ids > 5000 and parted == whole
    assert len(whole) > 1000 and {row[3] for row in whole} >= {"launch", "host"}


@pytest.mark.parametrize("name", ["gappy_training.pt.trace.json.gz", "gappy_training.sqlite",
                                  "host_sleep.pt.trace.json.gz"])
def test_a_small_traces_gaps_find_their_host_activity_as_the_buckets_do(
        monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """gap_overlaps_small.sql (one interval join, for a trace of few host activities) gives
    every gap the cause, busy_in and class gap_overlaps.sql's buckets of time give it."""
    from tui.analysis import gaps as gaps_module

    def explained() -> list:
        with open_trace(sample(name)) as trace:
            return gaps_module.explained_gaps(trace.con, 1_000_000)

    small = explained()
    monkeypatch.setattr(gaps_module, "GAP_PLAIN_JOIN_ROWS", -1)  # the buckets' query
    assert explained() == small
    assert len(small) >= 4 and sum(1 for g in small if g.busy_in) >= 1


def test_a_copy_bound_gpu_is_told_how_much_it_copied_from_pageable_memory() -> None:
    """bound_copy.sqlite: 128 MB copied from pageable memory every step. The sentence says
    how much of the window's copies' bytes were to or from pageable host memory, as the
    export's memcpy rows say (the window's NVTX range; each copy overlapping it), and
    advises pinning; the same figures with the bytes pinned (a variant, named so) get the
    advice for copies pinned already."""
    import sqlite3
    from dataclasses import replace

    from tui.analysis.remedies import REMEDY, REMEDY_COPY_PINNED

    path = sample("bound_copy.sqlite")
    with open_trace(path) as trace:
        _gaps, _whole, work = gaps_and_work(trace.con, 1_000_000)
    (time,) = work
    window = time.window
    assert window is not None
    db = sqlite3.connect(path)
    (copies, copied, pageable), = db.execute(
        "SELECT count(*), sum(bytes), sum(bytes) FILTER (WHERE srcKind = 0 OR dstKind = 0) "
        "FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE end > ? AND start < ?",
        (window.start_ns, window.end_ns)).fetchall()
    assert (time.copies, time.copy_bytes, time.pageable_bytes) == (copies, copied, pageable)
    assert pageable == copied > 0 and time.pinned_bytes == 0
    text = diagnose(work, "nsys").text
    assert text.startswith("Copy-bound")
    assert "all of it to or from pageable memory); " in text
    assert text.endswith(f"; {REMEDY['copy']}.")
    pinned = replace(time, pageable_bytes=0, pinned_bytes=time.copy_bytes)
    text = diagnose([pinned], "nsys").text
    assert "pageable" not in text and text.endswith(f"; {REMEDY_COPY_PINNED}.")


def test_a_copy_bound_gpu_whose_copies_are_pinned_is_told_to_move_less() -> None:
    """unannotated/pinned.sqlite: recordings/gen_unannotated.py's `pinned`, an MLP fed 256 MB
    batches from pinned host memory with non_blocking=True each step (its counters' table
    dropped for size). Copy-bound; the window's copies and bytes are the export's memcpy
    rows', none to or from pageable memory, most of their bytes from pinned memory: the
    advice is to move less and overlap, not to pin."""
    import sqlite3

    from tui.analysis.remedies import REMEDY_COPY_PINNED

    path = inflated("unannotated/pinned.sqlite")
    with open_trace(path) as trace:
        _gaps, _whole, work = gaps_and_work(trace.con, 1_000_000)
    (time,) = work
    window = time.window
    assert window is not None and window.kind == "iteration"
    db = sqlite3.connect(path)
    (copies, copied, pageable, pinned), = db.execute(
        "SELECT count(*), sum(bytes), coalesce(sum(bytes) FILTER (WHERE srcKind = 0 "
        "OR dstKind = 0), 0), sum(bytes) FILTER (WHERE srcKind = 1 OR dstKind = 1) "
        "FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE end > ? AND start < ?",
        (window.start_ns, window.end_ns)).fetchall()
    assert (time.copies, time.copy_bytes, time.pageable_bytes, time.pinned_bytes) == (
        copies, copied, pageable, pinned)
    assert pageable == 0 and pinned > copied / 2
    text = diagnose(work, "nsys").text
    assert text.startswith("Copy-bound") and "pageable" not in text
    assert text.endswith(f"; {REMEDY_COPY_PINNED}.")
