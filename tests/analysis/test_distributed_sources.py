"""Distributed figures beyond HTA's Kineto traces: an nsys report over the four processes
of a 4-GPU DDP job (sample_traces/ddp4_nsys.sqlite; the process on GPU 3 has the slow data
loader), checked against NVIDIA's own `nsys stats -r cuda_kern_exec_sum` of the same
report (tests/data/distributed/nsys/), and a JAX data-parallel run over four GPUs in one
process (sample_traces/jax_dp)."""

from __future__ import annotations

import csv
import re
import sqlite3

import pytest

from tests.helpers.paths import DATA, sample
from tui.analysis.distributed import critical_path, prepare, trace_figures
from tui.analysis.distributed.critical_path import critical_paths
from tui.analysis.distributed.queues import queue_series
from tui.loading.trace import open_trace

NSYS_STATS = DATA / "distributed" / "nsys"
JAX_DP = "jax_dp/plugins/profile/2026_11_27_05_46_00/vm.xplane.pb"


@pytest.fixture(scope="module")
def nsys():
    with open_trace(sample("ddp4_nsys.sqlite")) as trace:
        figures = trace_figures(trace.con)
        prepare(trace.con)  # the work tables the tests read, whichever runs first
        yield trace, figures


def test_launch_delays_equal_nsys_kernel_exec_summary(nsys) -> None:
    """Every row of nsys' "CUDA Kernel Launch & Exec Time Summary" (per process, thread,
    GPU, API and kernel): the launches, those queued (the kernel started after its call
    returned), the mean queue time (our launch delay) and the mean API time, exactly.
    Each process numbers its own correlation ids: this holds only if every kernel is
    linked to its own process's call."""
    trace, _figures = nsys
    rows = list(csv.DictReader(open(NSYS_STATS / "ddp_nsys_cuda_kern_exec_sum.csv")))
    assert len(rows) == 192
    for row in rows:
        count, queued, queue_avg, api_avg = trace.con.execute(
            """SELECT count(*), count(*) FILTER (WHERE w.start_ns > w.call_end_ns),
                      avg(w.start_ns - w.call_end_ns) FILTER (WHERE w.start_ns > w.call_end_ns),
                      avg(w.call_end_ns - w.call_start_ns)
               FROM dist_work AS w JOIN gpu_activities AS g USING (id)
               JOIN host_activities AS call ON call.id = w.call_id
               WHERE w.call_pid = ? AND w.call_tid = ? AND w.device = ?
                 AND regexp_replace(call.name, '_v[0-9]+$', '') = ? AND g.name = ?""",
            [int(row["PID"]), int(row["TID"]), int(row["DevId"]),
             re.sub(r"_v\d+$", "", row["API Name"]), row["Kernel Name"]]).fetchone()
        assert (count, queued) == (int(row["Count"]), int(row["QCount"]))
        assert api_avg == pytest.approx(float(row["AAvg (ns)"]), abs=0.1)
        if queued:
            assert queue_avg == pytest.approx(float(row["QAvg (ns)"]), abs=0.1)


def test_one_report_of_four_processes_has_each_gpu(nsys) -> None:
    _trace, figures = nsys
    devices = {d["device"]: d for d in figures["per_device"]}
    assert sorted(devices) == [0, 1, 2, 3]
    for d in devices.values():
        b = d["breakdown"]
        assert b["idle_ns"] + b["compute_ns"] + b["non_compute_ns"] == b["kernel_ns"]
    # the slow process's GPU waits in no collective: its communication is all but exposed
    # for nobody, the others' collectives hold their streams
    exposed = {k: d["communication"]["exposed_ns"] for k, d in devices.items()}
    assert min(exposed, key=exposed.get) == 3
    assert devices[3]["overlap_pct"] < 1 < min(devices[k]["overlap_pct"] for k in (0, 1, 2))


def test_each_process_has_its_own_critical_paths(nsys) -> None:
    """Six NVTX steps in each of the four processes; the slow process's steps are bound by
    its host, and wait in no collective; the others (whose hosts make their batches too)
    spend about half of each step waiting in collectives for it (once past step 0,
    NCCL's warm-up)."""
    trace, figures = nsys
    slow = trace.con.execute("SELECT call_pid FROM dist_work WHERE device = 3 "
                             "AND call_pid IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC "
                             "LIMIT 1").fetchone()[0]
    paths = figures["critical_path"]
    assert len(paths) == 24 and len({p["pid"] for p in paths}) == 4
    for p in paths:
        if p["step"] == "step 0":
            continue
        kinds = p["by_kind"]
        if p["pid"] == slow:
            assert kinds["cpu_ns"] > 0.9 * p["length_ns"] and kinds["communication_ns"] == 0
        else:
            assert kinds["communication_ns"] > 0.4 * p["length_ns"]


def test_jax_mesh_in_one_process_has_each_gpu() -> None:
    """One XSpace, four GPUs: XLA's gradient all-reduce (NCCL kernels) is communication on
    each; the 76 ms host-side batch makes every step host-bound."""
    with open_trace(sample(JAX_DP)) as trace:
        figures = trace_figures(trace.con)
    assert [d["device"] for d in figures["per_device"]] == [0, 1, 2, 3]
    for d in figures["per_device"]:
        assert d["communication"]["comm_ns"] > 0 and 0 < d["overlap_pct"] < 100
        assert d["launch_stats"]["launches"] == 200
    assert [p["step"] for p in figures["critical_path"]] == [f"train step {i}"
                                                             for i in range(5)]
    for p in figures["critical_path"]:
        assert p["by_kind"]["cpu_ns"] > 0.9 * p["length_ns"]


def test_an_nsys_report_names_the_host_it_was_taken_on(nsys) -> None:
    """A straggler group's host comes from each rank's trace: nsys keeps it in
    TARGET_INFO_SYSTEM_ENV (read here with sqlite3)."""
    from tui.analysis.distributed.stragglers import rank_host

    path = sample("ddp4_nsys.sqlite")
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        expected = db.execute("SELECT value FROM TARGET_INFO_SYSTEM_ENV "
                              "WHERE name = 'Hostname'").fetchone()[0]
    trace, _figures = nsys
    meta = dict(trace.con.execute("SELECT key, value FROM trace_meta").fetchall())
    assert meta["hostname"] == expected == "vm"
    assert rank_host(meta, path.name) == "vm"


def test_each_kernel_is_linked_to_a_call_of_its_own_process(nsys) -> None:
    """Each process of the report numbers its own correlation ids (the four share 1, 2,
    …): every kernel's launch call is one of the process nsys names in the kernel's
    globalPid (read here with sqlite3), for the launch stacks, gap causes and rules too."""
    path = sample("ddp4_nsys.sqlite")
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        expected = db.execute(
            "SELECT deviceId, (globalPid >> 24) & 16777215, count(*) "
            "FROM CUPTI_ACTIVITY_KIND_KERNEL GROUP BY 1, 2 ORDER BY 1, 2").fetchall()
    trace, _figures = nsys
    linked = trace.con.execute(
        "SELECT g.device, h.pid, count(*) FROM launches AS l "
        "JOIN gpu_activities AS g ON g.id = l.gpu_id "
        "JOIN host_activities AS h ON h.id = l.runtime_id "
        "WHERE g.kind = 'kernel' GROUP BY 1, 2 ORDER BY 1, 2").fetchall()
    assert linked == expected
    assert len({pid for _, pid, _ in expected}) == 4


def test_quantiles_from_counts_equal_quantile_cont(nsys) -> None:
    """The launch delays' quantiles and the queue lengths' medians are worked out from the
    count of each distinct value (a big trace's values held at once outgrow the summary's
    memory): they equal DuckDB's quantile_cont over every value, device by device and
    stream by stream."""
    trace, figures = nsys
    delays = trace.con.execute(
        "SELECT device, quantile_cont(greatest(start_ns - call_end_ns, 0), [0.5, 0.9, 0.99]) "
        "FROM dist_work WHERE stat_launch GROUP BY device ORDER BY device").fetchall()
    got = {d["device"]: [d["launch_stats"][f"delay_ns_p{p}"] for p in (50, 90, 99)]
           for d in figures["per_device"]}
    assert got == {device: [round(v) for v in q] for device, q in delays}
    assert len(got) == 4 and all(q[0] > 0 for q in got.values())
    queue_series(trace.con)
    medians = trace.con.execute(
        "SELECT device, stream, quantile_cont(queue, 0.5) FROM dist_queue_series "
        "GROUP BY ALL ORDER BY ALL").fetchall()
    assert [(q["device"], q["stream"], q["median"]) for q in figures["queue_length"]] == [
        (device, stream, round(median, 3)) for device, stream, median in medians]
    assert len(medians) >= 4


def test_critical_paths_walk_the_steps_whose_work_fits(nsys, monkeypatch) -> None:
    """The walk holds each step's GPU work in Python: past MAX_WORK_ROWS activities from
    the first step on, the later steps are left without a path, the first ones unchanged."""
    trace, _figures = nsys
    every = critical_paths(trace.con)
    work = trace.con.execute("SELECT count(*) FROM dist_work WHERE call_start_ns >= ?",
                             [every[0].start_ns]).fetchone()[0]
    monkeypatch.setattr(critical_path, "MAX_WORK_ROWS", work // 2)
    fewer = critical_paths(trace.con)
    assert 0 < len(fewer) < len(every)
    assert [p.as_dict() for p in fewer] == [p.as_dict() for p in every[:len(fewer)]]
