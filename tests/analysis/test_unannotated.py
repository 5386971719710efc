"""Whole programs recorded with no annotations (recordings/gen_unannotated.py under `nsys
profile -t cuda,nvtx,osrt --sample=process-tree --cpuctxsw=process-tree`): what the host
was doing while the GPU waited comes from the CPU samples and OS runtime calls alone. Each
figure is checked against the export read with sqlite3 and NVIDIA's own `gpu_gaps` rows
(tests/data/unannotated/)."""

from __future__ import annotations

import csv
import gzip
import json
import re
import sqlite3
from pathlib import Path

import pytest

from tests.helpers.paths import SAMPLES, inflated
from tests.helpers.summaries import summary_and_gaps
from tests.helpers.window_oracle import ACTIVITY_TABLES, GRAPH_TABLE, gaps_over, nsys_intervals
from tui.analysis.diagnosis import UNRECORDED, decide, diagnose, gaps_and_work
from tui.analysis.framework import source_format
from tui.analysis.gaps import CPU_MATH_FUNCTIONS, DOMINANT_SHARE
from tui.analysis.gpu_metrics import DRAM_NEAR_PEAK
from tui.analysis.host_samples import OTHERS_MIN_SAMPLES, WAIT_CALLS, gaps_host_activity
from tui.analysis.module_names import is_profiler
from tui.analysis.remedies import (
    CPU_MATH,
    GRAPHS,
    LAUNCH_REMEDY,
    REMEDY_DATAPARALLEL,
    REMEDY_WAITED,
    host_work,
    remedy,
)
from tui.analysis.summary import trace_summary
from tui.cli.main import main
from tui.core.units import format_ns
from tui.loading.trace import open_trace

# each loads a whole-program export and reads it again with sqlite3: over a second
pytestmark = pytest.mark.slow
DATA = Path(__file__).parents[1] / "data" / "unannotated"
MS = 1_000_000


def nvidia_gaps(name: str) -> list[tuple[int, int]]:
    """NVIDIA's `nsys analyze -r gpu_gaps:gap=1` rows: (start, duration), by start."""
    with open(DATA / f"{name}.gpu_gaps.csv", newline="") as f:
        return sorted((int(r["Start (ns)"]), int(r["Duration (ns)"])) for r in csv.DictReader(f))


def checked_summary(path: Path, name: str) -> dict:
    """The export's summary, its gaps over 1 ms first checked to be NVIDIA's `gpu_gaps`
    rows of the same recording (nvidia_gaps(name))."""
    with open_trace(path) as trace:
        summed, (gaps, _whole, _work) = summary_and_gaps(trace, MS)
    assert sorted((g.start_ns, g.duration_ns) for g in gaps) == nvidia_gaps(name)
    return dict(summed)


def anchor_at(path: Path, anchor: str) -> tuple[list[tuple[str, int]], list[int]]:
    """The export's kernels (name, start) in start order, as sqlite3 reads them, and the
    positions among them of the kernels named `anchor` (an iteration's)."""
    kernels = sqlite3.connect(path).execute(
        "SELECT n.value, k.start FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN StringIds AS n "
        "ON n.id = k.demangledName ORDER BY k.start").fetchall()
    return kernels, [i for i, (name, _) in enumerate(kernels) if name == anchor]


def leaf_modules(db: sqlite3.Connection, gtid: int | None, start: int, end: int,
                 others: bool = False) -> dict[str, int]:
    """The CPU samples of thread `gtid` (others: of every other thread) in [start, end), by
    the module of their innermost frame, as the export holds them."""
    rows = db.execute(
        "SELECT m.value, count(*) FROM COMPOSITE_EVENTS AS e "
        "JOIN SAMPLING_CALLCHAINS AS c ON c.id = e.id AND c.stackDepth = 0 "
        "JOIN StringIds AS m ON m.id = c.module "
        "WHERE e.start >= ? AND e.start < ? AND (e.globalTid = ?) != ? GROUP BY 1",
        (start, end, gtid, others)).fetchall()
    return {Path(module).name: n for module, n in rows}


def global_tid(pid: int, tid: int) -> int:
    return (pid << 24) | tid | (1 << 48)


def test_a_kernel_compiled_while_the_gpu_waits_is_what_the_host_was_busy_in() -> None:
    """`triton`: softmax's and matmul's first runs each wait for Triton to compile them.
    The second compile (1.03 s) falls in the window of work; its thread spent most of its
    samples in libtriton, so that is what the host was busy in, with the compiler's remedy."""
    path = inflated("unannotated/triton.sqlite")
    with open_trace(path) as trace:
        gaps, _whole, work = gaps_and_work(trace.con, MS)
    assert sorted((g.start_ns, g.duration_ns) for g in gaps) == nvidia_gaps("triton")
    # NVIDIA's second-longest gap: matmul's compile, after softmax's timed runs
    start, duration = sorted(nvidia_gaps("triton"), key=lambda g: -g[1])[1]
    assert duration == 1_030_573_991
    compile_gap = next(g for g in gaps if g.start_ns == start)
    assert compile_gap.busy_in == "Triton's compiler" == work[0].host_busy_in
    # the export's own samples of the launching thread in that gap: libtriton over half
    db = sqlite3.connect(path)
    (gtid,), = db.execute(
        "SELECT r.globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r "
        "JOIN CUPTI_ACTIVITY_KIND_KERNEL AS k USING (correlationId) "
        "WHERE k.start = ?", (start + duration,)).fetchall()
    modules = leaf_modules(db, gtid, start, start + duration)
    assert modules["libtriton.so"] >= 0.5 * sum(modules.values())
    assert f"its thread's {sum(modules.values()):,} samples: Triton's compiler" \
        in compile_gap.cause
    row = host_work("Triton's compiler")
    assert row is not None and row.key == "jit"
    text = diagnose(work, "nsys").text
    assert ("the host busy most in Triton's compiler: compiling GPU kernels while the "
            "program runs") in text
    assert text.endswith(f"; {row.remedy}.")


def test_a_loop_that_tokenizes_in_python_is_not_said_busy_in_its_first_compiles() -> None:
    """`tokenize`: a BERT classifying batches that the serving loop tokenizes itself (a
    Hugging Face fast tokenizer). cuDNN's attention is compiled (NVRTC) in 1 of the
    window's 104 host-wait gaps, 13% of their time; the launching thread's samples in the
    gaps are mostly the Python interpreter's. The host is not said to be busy most in
    NVRTC (it was, before the samples counted as the host's recorded work), and the remedy
    is the data preparation's, not the compiler's."""
    path = inflated("unannotated/tokenize.sqlite")
    summary = checked_summary(path, "tokenize")
    with open_trace(path) as trace:
        gaps, _whole, work = gaps_and_work(trace.con, MS)
    window = summary["diagnosis"]["window"]
    # the window's host-wait gaps, clipped to it (the first compile began before it)
    clipped = [(max(g.start_ns, window["start_ns"]),
                min(g.start_ns + g.duration_ns, window["end_ns"]), g.busy_in)
               for g in gaps if g.kind == "host-wait"]
    inside = [(s, e, busy_in) for s, e, busy_in in clipped if e > s]
    compiled = [e - s for s, e, busy_in in inside if busy_in == "NVRTC"]
    assert len(compiled) == 1 and len(inside) == 104
    waited = sum(e - s for s, e, _ in inside)
    assert 0.1 * waited < sum(compiled) < DOMINANT_SHARE * waited
    assert work[0].host_busy_in is None
    # the export's samples of the launching thread in those gaps: Python's over half
    db = sqlite3.connect(path)
    host = summary["host_samples"]
    gtid = global_tid(host["thread"]["pid"], host["thread"]["tid"])
    modules: dict[str, int] = {}
    for start, end, _ in inside:
        for module, n in leaf_modules(db, gtid, start, end).items():
            modules[module] = modules.get(module, 0) + n
    python = sum(n for m, n in modules.items() if m.startswith(("python3", "libpython3")))
    nvrtc = sum(n for m, n in modules.items() if "nvrtc" in m)
    assert python > 0.5 * sum(modules.values()) > nvrtc > 0
    diagnosis = summary["diagnosis"]
    assert diagnosis["bound"] == "host" and "busy most in" not in diagnosis["text"]
    assert diagnosis["text"].endswith(f"; {remedy('host')}.")
    assert diagnosis["host_where"].startswith(
        "the launching thread was in the Python interpreter (")


def _held_in(db: sqlite3.Connection, gtid: int, call: str,
             spans: list[tuple[int, int]]) -> int:
    """The time thread `gtid`'s OS runtime calls named `call` overlap `spans`, as the
    export's OSRT_API holds them."""
    rows = db.execute(
        "SELECT o.start, o.end FROM OSRT_API AS o JOIN StringIds AS s ON s.id = o.nameId "
        "WHERE s.value = ? AND o.globalTid = ?", (call, gtid)).fetchall()
    return sum(max(0, min(end, e) - max(start, s)) for start, end in rows for s, e in spans)


def _host_waits_in(gaps: list[dict], window: dict) -> list[tuple[int, int]]:
    """The host-wait gaps' spans inside the window."""
    spans = [(max(g["start_ns"], window["start_ns"]),
              min(g["start_ns"] + g["duration_ns"], window["end_ns"]))
             for g in gaps if g["kind"] == "host-wait"]
    return [(s, e) for s, e in spans if e > s]


def test_a_loop_that_reads_its_batches_from_disk_is_told_to_read_ahead() -> None:
    """`diskread`: an MLP trained on batches that the loop reads itself with `np.load`,
    each file dropped from the page cache first. In the window's host-wait gaps the
    launching thread was in fread most of the time (the export's OS runtime calls). That
    is what the host was busy in, with reading ahead as the remedy (no host work was named
    before: the general advice), and its wait is said to be in it."""
    path = inflated("unannotated/diskread.sqlite")
    summary = checked_summary(path, "diskread")
    diagnosis = summary["diagnosis"]
    spans = _host_waits_in(summary["gaps"], diagnosis["window"])
    host = summary["host_samples"]
    gtid = global_tid(host["thread"]["pid"], host["thread"]["tid"])
    waited = sum(e - s for s, e in spans)
    assert _held_in(sqlite3.connect(path), gtid, "fread", spans) >= 0.5 * waited
    assert diagnosis["bound"] == "host"
    assert "; the host busy most in fread: reading input from files)" in diagnosis["text"]
    assert host_work("fread").key == "file_read"  # type: ignore[union-attr]
    assert diagnosis["text"].endswith(f"; {remedy('host', 'fread')}.")
    assert "(most in fread; on a CPU" in diagnosis["host_where"]


def test_a_rank_that_writes_its_checkpoints_itself_is_told_to_write_them_in_the_background(
        capsys) -> None:
    """`ddp_eval_json`: DDP over two H200s whose rank 0 alone evaluates the model and
    writes a checkpoint (`torch.save`) every 10 steps, under one nsys. The run waits for
    rank 0, host-bound; its launching thread's `write` calls hold the largest part of its
    window's host waits that any one call or op holds (37%, the export's OS runtime calls),
    so its advice is the writes' (it was the general host advice). Where its launching
    thread was in those waits is said from its CPU samples, as a trace's own summary says
    it (a run's ranks said nothing of it): PyTorch's libraries, most of its samples there."""
    path = inflated("unannotated/ddp_eval_json.sqlite")
    assert main(["--summary", "--json", str(path)]) == 0
    summary = json.loads(capsys.readouterr().out)
    rank0 = next(r for r in summary["ranks"] if r["rank"] == 0)["diagnosis"]
    db = sqlite3.connect(path)
    (pid,), = db.execute("SELECT DISTINCT (globalPid >> 24) & 16777215 "
                         "FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE deviceId = 0").fetchall()
    spans = _host_waits_in([g for g in summary["gaps"] if g["rank"] == 0], rank0["window"])
    written = _held_in(db, global_tid(pid, pid), "write", spans)
    assert 0.3 * sum(e - s for s, e in spans) < written
    assert rank0["bound"] == "host"
    assert "(41 gaps; the host busy most in write: writing files)" in rank0["text"]
    assert rank0["text"].endswith(f"; {remedy('host', 'write')}.")
    modules: dict[str, int] = {}
    for start, end in spans:
        for module, n in leaf_modules(db, global_tid(pid, pid), start, end).items():
            modules[module] = modules.get(module, 0) + n
    torch = sum(n for m, n in modules.items() if m.startswith("libtorch"))
    assert torch > 0.5 * sum(modules.values())
    assert rank0["host_where"].startswith(
        f"the launching thread was in PyTorch ({100 * torch / sum(modules.values()):.0f}% ")
    text = summary["diagnosis"]["text"]
    assert text.startswith("The run waits for its straggler, rank 0:")
    assert f"; {remedy('host', 'write')}. By rank: 0 host; 1 communication." in text


def test_an_evaluation_run_on_the_cpu_is_named_as_math_on_the_host() -> None:
    """`cpu_eval`: training that stops every 20 steps to evaluate a copy of the model on the
    CPU. The window's host waits are those two evaluations; the launching thread's CPU
    samples in them (the export read with sqlite3) are mostly in MKL's GEMMs and PyTorch's
    CPU kernels: the host was busy in math on the CPU, with that remedy (it had the slow
    steps' "find what they do")."""
    path = inflated("unannotated/cpu_eval.sqlite")
    summary = checked_summary(path, "cpu_eval")
    diagnosis = summary["diagnosis"]
    spans = _host_waits_in(summary["gaps"], diagnosis["window"])
    host = summary["host_samples"]
    db = sqlite3.connect(path)
    functions = db.execute(
        "SELECT f.value, e.start FROM COMPOSITE_EVENTS AS e "
        "JOIN SAMPLING_CALLCHAINS AS c ON c.id = e.id AND c.stackDepth = 0 "
        "JOIN StringIds AS f ON f.id = c.symbol WHERE e.globalTid = ?",
        (global_tid(host["thread"]["pid"], host["thread"]["tid"]),)).fetchall()
    inside = [name for name, at in functions if any(s <= at < e for s, e in spans)]
    math = [name for name in inside if re.search(CPU_MATH_FUNCTIONS, name)]
    assert len(math) > 0.5 * len(inside) > 0
    assert any(name.startswith("mkl_blas_") for name in math)
    assert diagnosis["bound"] == "host"
    assert f"; the host busy most in {CPU_MATH}: computing on the host)" in diagnosis["text"]
    assert diagnosis["text"].endswith(f"; {remedy('host', CPU_MATH)}.")


def test_ranks_that_unpickle_each_others_tensors_are_still_a_rank_each(capsys) -> None:
    """`ddp_gather_json`: DDP over two GPUs under one nsys, each step's loss tensor gathered
    to every rank with `all_gather_object`, which unpickles each tensor onto the GPU it
    came from: each process also copies a few bytes onto the other's GPU (the export read
    with sqlite3). Each process is still the rank of its own GPU (the report read as one
    rank of two GPUs before: a process with work on two GPUs was no rank)."""
    path = inflated("unannotated/ddp_gather_json.sqlite")
    db = sqlite3.connect(path)
    time_by = {(pid, device): ns for pid, device, ns in db.execute(
        "SELECT (globalPid >> 24) & 16777215, deviceId, sum(end - start) FROM "
        "(SELECT globalPid, deviceId, start, end FROM CUPTI_ACTIVITY_KIND_KERNEL UNION ALL "
        " SELECT globalPid, deviceId, start, end FROM CUPTI_ACTIVITY_KIND_MEMCPY UNION ALL "
        " SELECT globalPid, deviceId, start, end FROM CUPTI_ACTIVITY_KIND_MEMSET) GROUP BY 1, 2")}
    pids = sorted({pid for pid, _ in time_by})
    assert len(pids) == 2 and len(time_by) == 4  # each process on both GPUs
    own = {pid: max((ns, device) for (p, device), ns in time_by.items() if p == pid)[1]
           for pid in pids}
    for pid in pids:
        elsewhere = sum(ns for (p, device), ns in time_by.items()
                        if p == pid and device != own[pid])
        assert 0 < elsewhere < 0.01 * time_by[(pid, own[pid])]
    assert sorted(own.values()) == [0, 1]
    assert main(["--summary", "--json", str(path)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["source"]["ranks"] == 2
    assert sorted(r["rank"] for r in summary["ranks"]) == [0, 1]
    assert all(f"rank {r['rank']}'s GPU " in r["diagnosis"]["text"] for r in summary["ranks"])


def test_a_repeats_anchor_launched_on_two_streams_gives_each_step_once(capsys) -> None:
    """`ddp_barrier_json`: DDP over two GPUs with `dist.barrier()` after each step. The
    iteration's anchor is the NCCL all-reduce kernel that the barrier runs once a step on
    the compute stream; DDP's gradient all-reduces have its name too, five a step on
    NCCL's stream, launched from the backward's thread (the export read with sqlite3). A
    rank's steps are the barrier's, one a repeat: those of both streams were counted
    together before (232 steps, "194% of the window")."""
    path = inflated("unannotated/ddp_barrier_json.sqlite")
    assert main(["--summary", "--json", str(path)]) == 0
    summary = json.loads(capsys.readouterr().out)
    db = sqlite3.connect(path)
    for rank in summary["ranks"]:
        diagnosis = rank["diagnosis"]
        window = diagnosis["window"]
        assert window["kind"] == "iteration"
        per_stream = dict(db.execute(
            "SELECT k.streamId, count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL AS k "
            "JOIN StringIds AS n ON n.id = k.demangledName WHERE k.deviceId = ? "
            "AND n.value = ? AND k.start >= ? AND k.start < ? GROUP BY 1",
            (rank["rank"], window["name"], window["start_ns"], window["end_ns"])).fetchall())
        assert sorted(per_stream.values()) == [40, 195]  # the barrier's, DDP's
        steps = diagnosis["figures"]["steps"]
        assert steps["count"] == 39 and steps["slow"] == 0
        assert steps["count"] * steps["mean_ns"] <= window["end_ns"] - window["start_ns"]


def test_copies_on_a_side_stream_beside_the_compute_are_not_what_bounds_it() -> None:
    """`sidestream`: batches in pinned memory copied to the GPU one step ahead on a side
    stream, as the guides advise. In the window the copies take over a third of its time
    (the export read with sqlite3), over 90% of it while a kernel ran: compute-bound,
    the copies' own time (with no compute beside them, memsets too) under 5% of it."""
    path = inflated("unannotated/sidestream.sqlite")
    summary = checked_summary(path, "sidestream")
    diagnosis = summary["diagnosis"]
    start, end = diagnosis["window"]["start_ns"], diagnosis["window"]["end_ns"]
    db = sqlite3.connect(path)
    copies = db.execute("SELECT start, end FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 1 "
                        "AND start >= ? AND end <= ?", (start, end)).fetchall()
    kernels = db.execute("SELECT start, end FROM CUPTI_ACTIVITY_KIND_KERNEL "
                         "WHERE end > ? AND start < ?", (start, end)).fetchall()
    copied = sum(e - s for s, e in copies)
    beside = sum(max(0, min(e, ke) - max(s, ks)) for s, e in copies for ks, ke in kernels)
    assert copied > 0.3 * (end - start) and beside > 0.9 * copied
    assert diagnosis["bound"] == "compute"
    assert diagnosis["figures"]["copy_ns"] < 0.05 * (end - start)


def test_a_gpu_kept_busy_at_the_memorys_limit_is_memory_bound_by_its_counters() -> None:
    """`bandwidth_small`: fp32 LayerNorms and element-wise ops, recorded with
    `--gpu-metrics-devices=all` on a host of two GPUs, the program on GPU 0 alone. Over the
    window, GPU 0's samples (the export read with sqlite3) put DRAM (read + write) near
    its peak: memory-bound, with the memory remedy (it read compute-bound: "lower
    precision (bf16, TF32)"). The idle GPU 1's samples count nowhere: averaged in, the
    window's SMs read half as active ("poor"), and its tensor cores' 0% said to run the
    math on CUDA cores."""
    path = inflated("unannotated/bandwidth_small.sqlite")
    with open_trace(path) as trace:
        summary = trace_summary(trace, MS)
    diagnosis = summary["diagnosis"]
    window = diagnosis["window"]
    db = sqlite3.connect(path)

    def means(gpu: int) -> dict[str, float]:  # a typeId's low byte: its PerfWorks GPU id
        return dict(db.execute(
            "SELECT m.metricName, avg(g.value) FROM GPU_METRICS AS g "
            "JOIN TARGET_INFO_GPU_METRICS AS m ON m.typeId = g.typeId AND m.metricId = g.metricId "
            "JOIN TARGET_INFO_GPU AS d ON d.pwGpuId = g.typeId & 255 "
            "WHERE d.cuDevice = ? AND g.timestamp >= ? AND g.timestamp <= ? GROUP BY 1",
            (gpu, window["start_ns"], window["end_ns"])).fetchall())

    busy, idle = means(0), means(1)
    dram = busy["DRAM Read Bandwidth [Throughput %]"] + busy["DRAM Write Bandwidth [Throughput %]"]
    assert dram >= DRAM_NEAR_PEAK and idle["SMs Active [Throughput %]"] < 1
    assert diagnosis["bound"] == "memory"
    assert diagnosis["figures"]["dram_pct"] == pytest.approx(dram, abs=0.5)
    sm = busy["SMs Active [Throughput %]"]
    assert sm > 90
    assert (f", DRAM at {diagnosis['figures']['dram_pct']:.0f}% of its peak bandwidth (read + "
            "write) by the GPU's counters;") in diagnosis["text"]
    assert diagnosis["text"].endswith(
        f"; {remedy('memory')}. Hardware counters: SMs active {sm:.0f}% (good).")


def test_an_export_that_lost_its_kernels_gets_no_diagnosis() -> None:
    """`jax_log`: 300 steps of a jitted JAX MLP whose loss is read back each step, under
    an nsys that dropped the XLA program's kernels and graph launches (its import logged
    "Cannot find string for an exterior index"): the export keeps 455 CUDA API calls, no
    kernel table and one memset. No bound is said of that memset (it read copy-bound)."""
    path = inflated("unannotated/jax_log.sqlite")
    db = sqlite3.connect(path)
    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
    assert "CUPTI_ACTIVITY_KIND_KERNEL" not in tables
    (calls,), = db.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME").fetchall()
    (memsets,), = db.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET").fetchall()
    assert (calls, memsets) == (455, 1)
    with open_trace(path) as trace:
        summary = trace_summary(trace, MS)
    assert any(f"holds {calls:,} CUDA API calls" in w for w in summary["warnings"])
    assert summary["diagnosis"]["bound"] is None
    assert summary["diagnosis"]["text"].startswith("No diagnosis: the trace holds the "
                                                   "program's CUDA calls but none of its kernels")


def test_a_rank_that_lost_its_kernels_gets_no_bound_in_a_run(capsys) -> None:
    """`jax_log` (its kernels dropped by nsys' import) and `jax_log_no_cb` (the same program,
    its kernels kept) opened together as a run. Its rank 0 is decided again over the run
    from its figures: it read copy-bound there from its one memset. It keeps its own "No
    diagnosis"; the run is judged by rank 1, the one rank with kernels, in JAX's words."""
    paths = [str(inflated(f"unannotated/{name}.sqlite")) for name in ("jax_log", "jax_log_no_cb")]
    assert main(["--summary", "--json", *paths]) == 0
    summary = json.loads(capsys.readouterr().out)
    ranks = {r["rank"]: r["diagnosis"] for r in summary["ranks"]}
    assert ranks[0]["bound"] is None and ranks[0]["text"] == UNRECORDED
    assert ranks[1]["bound"] == "host"
    assert summary["diagnosis"]["bound"] == "host"
    assert "rank 1's GPU idled" in summary["diagnosis"]["text"]
    assert "By rank" not in summary["diagnosis"]["text"]
    # in JAX's words, as each trace's own summary says it (XLA's NVTX ranges in the export):
    # the run's ranks took PyTorch's DataLoader advice from their format, nsys, before
    assert ranks[1]["text"].endswith(f"; {remedy('host', None, 'xla')}.")
    assert summary["diagnosis"]["text"].endswith(f"; {remedy('host', None, 'xla')}.")


def test_a_launching_thread_that_waited_is_not_said_to_wait_for_the_profiler() -> None:
    """`jax_log_no_cb`: a jitted JAX step a few hundred µs long, its loss read back each
    step. In the window's gaps the launching thread was mostly off a CPU; the other
    threads' samples there are two, one of them in nsys' own injection library. Neither
    is said to be what it waited for (it read "busy most in libToolsInjection64.so on
    other threads", with the input pipeline's remedy)."""
    path = inflated("unannotated/jax_log_no_cb.sqlite")
    with open_trace(path) as trace:
        summary = trace_summary(trace, MS)
    window = summary["diagnosis"]["window"]
    gaps = [(max(g["start_ns"], window["start_ns"]),
             min(g["start_ns"] + g["duration_ns"], window["end_ns"]))
            for g in summary["gaps"] if g["kind"] == "host-wait"]
    gaps = [(s, e) for s, e in gaps if e > s]
    db = sqlite3.connect(path)
    host = summary["host_samples"]
    gtid = global_tid(host["thread"]["pid"], host["thread"]["tid"])
    others: dict[str, int] = {}
    for start, end in gaps:
        for module, n in leaf_modules(db, gtid, start, end, others=True).items():
            others[module] = others.get(module, 0) + n
    assert 0 < sum(others.values()) < OTHERS_MIN_SAMPLES and "libToolsInjection64.so" in others
    diagnosis = summary["diagnosis"]
    assert diagnosis["bound"] == "host"
    assert "other threads" not in diagnosis["text"] + diagnosis["host_where"]
    assert diagnosis["host_where"].startswith("the launching thread waited ")
    assert is_profiler("libToolsInjection64.so") and not is_profiler("xla_cuda_plugin.so")


def test_a_set_up_spent_compiling_says_so() -> None:
    """`multiscale`: ResNet-18 on six image sizes in turn under cuDNN's benchmark mode. Its
    first six steps (a size each) compile and benchmark each size's convolutions, ~28 s;
    the window is the 43 repeats after them. The set-up is said apart, and where its
    launching thread was over it: NVRTC, as the export's own samples of that thread say."""
    path = inflated("unannotated/multiscale.sqlite")
    summary = checked_summary(path, "multiscale")
    diagnosis = summary["diagnosis"]
    assert diagnosis["bound"] == "launch" and diagnosis["window"]["kind"] == "iteration"
    assert diagnosis["setup_ns"] > 25 * (diagnosis["window"]["end_ns"]
                                          - diagnosis["window"]["start_ns"])
    start = diagnosis["window"]["start_ns"] - diagnosis["setup_ns"]
    db = sqlite3.connect(path)
    (first,), = db.execute(
        "SELECT min(start) FROM (SELECT min(start) AS start FROM CUPTI_ACTIVITY_KIND_RUNTIME "
        "UNION ALL SELECT min(start) FROM CUPTI_ACTIVITY_KIND_KERNEL)").fetchall()
    assert start <= first
    host = summary["host_samples"]
    gtid = global_tid(host["thread"]["pid"], host["thread"]["tid"])
    modules = leaf_modules(db, gtid, start, diagnosis["window"]["start_ns"])
    nvrtc = sum(n for m, n in modules.items() if m.startswith("libnvrtc"))
    assert nvrtc == max(modules.values()) and nvrtc > 0.8 * sum(modules.values())
    assert diagnosis["setup_where"].startswith(
        f"the launching thread was in NVRTC ({100 * nvrtc / sum(modules.values()):.0f}% of "
        "its samples)")


@pytest.fixture(scope="module")
def vision() -> tuple[Path, dict, list]:
    path = inflated("unannotated/vision.sqlite")
    with open_trace(path) as trace:
        summed, (gaps, _whole, _work) = summary_and_gaps(trace, MS)
        return path, dict(summed), gaps


def test_a_loader_bound_loop_waits_on_its_workers_numpy(vision) -> None:
    """`vision`: each batch of 64 images is augmented in NumPy by two DataLoader worker
    processes, slower than the GPU trains on it. While the GPU idles, the launching thread
    mostly waits (in the loader's queue: sem_clockwait) and the other threads' samples are
    in NumPy: the host was busy in that, and the remedy is the workers'."""
    path, summary, gaps = vision
    assert sorted((g.start_ns, g.duration_ns) for g in gaps) == nvidia_gaps("vision")
    host = summary["host_samples"]
    assert host["range_ns"] == sum(d for _, d in nvidia_gaps("vision"))
    pid, tid = host["thread"]["pid"], host["thread"]["tid"]
    db = sqlite3.connect(path)
    gtid = global_tid(pid, tid)
    # the sentence is of the window of work: NVIDIA's gaps clipped to it (the set-up's
    # gaps, imports and the model's build, left out)
    window = summary["diagnosis"]["window"]
    stretches = [(max(s, window["start_ns"]), min(s + d, window["end_ns"]))
                 for s, d in nvidia_gaps("vision")]
    stretches = [(s, e) for s, e in stretches if e > s]
    assert len(stretches) < len(nvidia_gaps("vision"))
    # the launching thread's waiting calls inside them, clipped to them
    waited = 0
    for start, end in stretches:
        for name, s, e in db.execute(
                "SELECT n.value, o.start, o.end FROM OSRT_API AS o "
                "JOIN StringIds AS n ON n.id = o.nameId "
                "WHERE o.globalTid = ? AND o.start < ? AND o.end > ?",
                (gtid, end, start)):
            if WAIT_CALLS.match(name):
                waited += min(e, end) - max(s, start)
    total = sum(e - s for s, e in stretches)
    numpy = {f"{m}.cpython-312-x86_64-linux-gnu.so"
             for m in ("_multiarray_umath", "_pcg64", "_bounded_integers", "bit_generator",
                       "_generator")}
    others: dict[str, int] = {}  # the program's threads: not nsys' own (is_profiler)
    for start, end in stretches:
        for module, n in leaf_modules(db, gtid, start, end, others=True).items():
            if not is_profiler(module):
                others[module] = others.get(module, 0) + n
    in_numpy = sum(n for m, n in others.items() if m in numpy)
    assert in_numpy == max(in_numpy, *others.values()) and in_numpy > 0.5 * sum(others.values())
    where = summary["diagnosis"]["host_where"]
    assert where.startswith(f"the launching thread waited {100 * waited / total:.0f}% of "
                            "the time (most in sem_clockwait; on a CPU ")
    assert f"other threads were in NumPy ({100 * in_numpy / sum(others.values()):.0f}% of " \
           "their samples)" in where
    text = summary["diagnosis"]["text"]
    row = host_work("NumPy on other threads")
    assert row is not None and row.key == "elsewhere"
    assert summary["diagnosis"]["bound"] == "host"
    assert ("the host busy most in NumPy on other threads: what the launching thread waited "
            "for") in text
    assert text.endswith(f"; {row.remedy}.")


def test_without_os_calls_the_time_off_a_cpu_tells_the_wait(vision) -> None:
    """The same gaps with the OS runtime calls left out: the context switches still show
    the launching thread off a CPU most of the time (no call named); without them too,
    nothing tells a wait, and its samples are all that is said."""
    path, _summary, _gaps = vision
    with open_trace(path) as trace:
        trace.con.execute("CREATE TEMP TABLE os_calls AS SELECT * FROM main.os_calls LIMIT 0")
        host = gaps_host_activity(trace.con, MS)
    assert host is not None and host.on_cpu_ns is not None
    waiting = host.waiting()
    assert waiting is not None and waiting.call is None
    off_cpu = 100 * (host.range_ns - host.on_cpu_ns) / host.range_ns
    assert host.where().startswith(
        f"the launching thread waited {off_cpu:.0f}% of the time (on a CPU "
        f"{100 - off_cpu:.0f}%); other threads were in NumPy")
    # and with neither OS calls nor context switches, its samples are all that is said
    with open_trace(path) as trace:
        trace.con.execute("CREATE TEMP TABLE os_calls AS SELECT * FROM main.os_calls LIMIT 0")
        trace.con.execute("CREATE TEMP TABLE thread_sched AS "
                          "SELECT * FROM main.thread_sched LIMIT 0")
        host = gaps_host_activity(trace.con, MS)
    assert host is not None and host.waiting() is None and host.busy_elsewhere() is None
    assert host.where().startswith("the launching thread was in ")


def test_a_jax_program_under_nsys_is_judged_over_its_steps_in_xlas_words() -> None:
    """`jax` with XLA's command buffers off: a jitted MLP's 200 steps, each batch made in
    NumPy on the Python thread while XLA's thread that launches the kernels waits. XLA's
    own NVTX ranges (its compiles, their GEMM autotuning's kernels on a dozen threads) are
    neither the window nor what the host was busy in; the window is the 200 steps; the
    advice is XLA's, and names the NumPy the launching thread waited for."""
    path = inflated("unannotated/jax_no_cb.sqlite")
    with open_trace(path) as trace:
        summed, (gaps, _whole, work) = summary_and_gaps(trace, MS)
        assert source_format(trace.con) == "xla"
        summary = dict(summed)
        warnings = list(trace.warnings)
    # nsys' import of this report logged errors (as warnings of its Analysis source)
    errors = sqlite3.connect(path).execute(
        "SELECT text FROM DIAGNOSTIC_EVENT WHERE source = 3 AND text LIKE 'Error%'").fetchall()
    assert len(errors) == 4
    assert all(t.rstrip().endswith("= Cannot find string for an exterior index")
               for (t,) in errors)
    assert ("nsys logged 4 errors importing the report (“Cannot find string for an exterior "
            "index”): the events they dropped are missing from this export") in warnings
    assert sorted((g.start_ns, g.duration_ns) for g in gaps) == nvidia_gaps("jax_no_cb")
    window = work[0].window
    assert window is not None and window.kind == "iteration"
    assert summary["diagnosis"]["text"].startswith(
        "Host-bound in 200 repeats of its kernel sequence")
    assert not any(g.busy_in and g.busy_in.startswith(("Xla", "[Unknown]")) for g in gaps)
    row = host_work("NumPy on other threads")
    assert row is not None and row.remedy_xla is not None
    text = summary["diagnosis"]["text"]
    assert "the host busy most in NumPy on other threads" in text
    assert text.endswith(f"; {row.remedy_xla}.")
    assert "other threads were in NumPy" in summary["diagnosis"]["host_where"]


def test_a_rank_that_sleeps_before_each_step_is_the_straggler_and_its_sleep_named() -> None:
    """`ddp` (two processes under one nsys): the last rank sleeps 20 ms before each step,
    the other waits for it in the all-reduce. Each of its gaps whose launching thread was
    held in `clock_nanosleep` for most of it says so, as many as the export's own OS
    calls over NVIDIA's gaps on that GPU give; the rank is host-bound on a sleep, with
    the sleep's remedy."""
    import io
    import json
    from contextlib import redirect_stdout

    from tui.cli.main import main

    path = inflated("unannotated/ddp.sqlite")
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["--summary", "--json", str(path)]) == 0
    summary = json.loads(out.getvalue())
    assert summary["straggler"] == 1
    rank = next(r for r in summary["ranks"] if r["rank"] == 1)
    row = host_work("clock_nanosleep")
    assert row is not None and row.key == "sleep"
    assert "the host busy most in clock_nanosleep: a sleep" in rank["diagnosis"]["text"]
    assert rank["diagnosis"]["text"].endswith(f"; {row.remedy}.")
    # NVIDIA's gaps on GPU 1 over 1 ms, and the sleeps of that rank's process in each
    with open(DATA / "ddp.gpu_gaps.csv", newline="") as f:
        nvidia = [(int(r["Start (ns)"]), int(r["Duration (ns)"]), int(r["PID"]))
                  for r in csv.DictReader(f) if r["Device ID"] == "1"]
    db = sqlite3.connect(path)
    sleeps = db.execute(
        "SELECT o.globalTid >> 24 & 16777215, o.start, o.end FROM OSRT_API AS o "
        "JOIN StringIds AS n ON n.id = o.nameId WHERE n.value = 'clock_nanosleep'").fetchall()
    slept = 0
    for start, duration, pid in nvidia:
        held = max((min(e, start + duration) - max(s, start) for p, s, e in sleeps
                    if p == pid and s < start + duration and e > start), default=0)
        slept += held >= 0.3 * duration
    said = [g for g in summary["gaps"] if g["rank"] == 1
            and "its thread slept in clock_nanosleep" in g["cause"]]
    assert slept >= 90 and len(said) == slept


def test_the_repeats_of_a_program_that_marks_nothing_are_its_steps() -> None:
    """`triton`: nothing marks the steps, so the window is the kernel sequence's repeats
    and each repeat is a step on the host, from one launch call of the kernel that comes
    once a repeat (the L2 flush before each timed run) to the next. Their times are the
    export's own launch calls' (sqlite3); the slowest is the one that waited for the
    matmul's compile, and the diagnosis says how much of the loss it holds."""
    from tui.analysis.window import work_window

    path = inflated("unannotated/triton.sqlite")
    with open_trace(path) as trace:
        window = work_window(trace.con)
        assert window is not None and window.kind == "iteration" and window.name
        _gaps, _whole, work = gaps_and_work(trace.con, MS)
    steps = work[0].steps
    assert steps is not None
    db = sqlite3.connect(path)
    starts = [s for (s,) in db.execute(
        "SELECT r.start FROM CUPTI_ACTIVITY_KIND_KERNEL AS k "
        "JOIN StringIds AS n ON n.id = k.demangledName "
        "JOIN CUPTI_ACTIVITY_KIND_RUNTIME AS r USING (correlationId) "
        "WHERE n.value = ? AND k.start >= ? AND k.start < ? ORDER BY r.start",
        (window.name, window.start_ns, window.end_ns))]
    lengths = [b - a for a, b in zip(starts[:-1], starts[1:], strict=True)]
    assert steps["count"] == len(lengths) > 7000
    assert steps["max_ns"] == max(lengths) > 1_000_000_000
    slowest = steps["listed"][0]
    assert slowest["duration_ns"] == max(lengths)
    assert slowest["name"] == f"repeat {lengths.index(max(lengths)) + 1}"
    assert f"in {steps['slow']} steps over twice the median step" in \
        diagnose(work, "nsys").text


def test_a_loop_of_new_shapes_is_its_steps_and_a_gaps_cuda_call_is_named() -> None:
    """`churn`: 60 steps on batches of a new size each, `empty_cache()` after each: the
    GEMMs' kernels change with the shapes, but each step's 75 kernels come in the same
    places, the optimizer's step count once a step: the window is the loop's steps but
    its first, slow (the model's weights, copied 4.8 s before the first kernel, and that
    step are set-up). A gap's launching
    thread held in one CUDA call for most of it says so: loading the modules of kernels a
    new shape needs (cuLibraryLoadData), as the export's own calls over NVIDIA's gaps give."""
    path = inflated("unannotated/churn.sqlite")
    db = sqlite3.connect(path)
    (first_kernel,), = db.execute("SELECT min(start) FROM CUPTI_ACTIVITY_KIND_KERNEL")
    (first_any,), = db.execute("SELECT min(start) FROM CUPTI_ACTIVITY_KIND_MEMCPY")
    assert first_kernel - first_any > 4_000_000_000
    with open_trace(path) as trace:
        gaps, _whole, work = gaps_and_work(trace.con, MS)
    window = work[0].window
    # its first step, slow (the new shapes' first kernels loaded), is the set-up's
    assert window is not None and window.kind == "iteration"
    assert (window.ranges, window.warm_up) == (59, 1)
    once_a_step = [start for (start,) in db.execute(
        "SELECT k.start FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN StringIds AS n "
        "ON n.id = k.demangledName WHERE n.value = ? ORDER BY k.start", (window.name,))]
    assert len(once_a_step) == 60 and once_a_step[0] < window.start_ns < once_a_step[1]
    (per_step,), = db.execute(
        "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE start >= ? AND start < ?",
        (once_a_step[1], once_a_step[2])).fetchall()
    assert per_step == 75
    assert sorted((g.start_ns, g.duration_ns) for g in gaps) == nvidia_gaps("churn")
    longest = max((g for g in gaps if g.start_ns >= first_kernel), key=lambda g: g.duration_ns)
    (gtid,), = db.execute(
        "SELECT r.globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r "
        "JOIN CUPTI_ACTIVITY_KIND_KERNEL AS k USING (correlationId) WHERE k.start = ? "
        "UNION SELECT r.globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r "
        "JOIN CUPTI_ACTIVITY_KIND_MEMSET AS k USING (correlationId) WHERE k.start = ? "
        "UNION SELECT r.globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r "
        "JOIN CUPTI_ACTIVITY_KIND_MEMCPY AS k USING (correlationId) WHERE k.start = ?",
        (longest.start_ns + longest.duration_ns,) * 3).fetchall()
    start, end = longest.start_ns, longest.start_ns + longest.duration_ns
    (loading,), = db.execute(
        "SELECT sum(min(r.end, ?) - max(r.start, ?)) FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r "
        "JOIN StringIds AS n ON n.id = r.nameId "
        "WHERE n.value LIKE 'cuLibraryLoadData%' AND r.globalTid = ? AND r.start < ? "
        "AND r.end > ?", (end, start, gtid, end, start)).fetchall()
    assert loading >= 0.3 * longest.duration_ns
    assert longest.cause.endswith(
        f"; its thread in cuLibraryLoadData ({format_ns(loading)} of "
        f"{format_ns(longest.duration_ns)})")
    # the longest load is the first step's: set-up, before the loop's first full repeat
    assert longest.start_ns < window.start_ns
    assert decide(work[0]) == "host"


def test_a_report_with_pythons_stacks_has_nvidias_gaps_and_the_lines_it_waited_on() -> None:
    """`churn_py`, recorded with Python samples and backtraces (their NVTX marks and
    payload schemas besides the usual tables): its GPU-idle gaps are NVIDIA's, and where
    the launching thread's Python samples in them were (each at its innermost line of the
    program's own code) is what the export's JSON text says."""
    path = inflated("unannotated/churn_py.sqlite")
    with open_trace(path) as trace:
        gaps, _whole, _work = gaps_and_work(trace.con, MS)
        host = gaps_host_activity(trace.con, MS)
        states = dict(trace.con.execute(
            "SELECT state, count(*) FROM python_samples GROUP BY state").fetchall())
    db = sqlite3.connect(path)
    assert states == dict(db.execute(
        "SELECT json_extract(jsonText, '$.\"Python Periodic Sampling\".\"Thread state\"'), "
        "count(*) FROM NVTX_EVENTS WHERE eventType = 34 AND domainId IN (SELECT domainId "
        "FROM NVTX_PAYLOAD_SCHEMAS WHERE name = 'Python Periodic Sampling') GROUP BY 1"))
    assert sum(states.values()) == 10_249
    assert len(gaps) >= 100
    assert sorted((g.start_ns, g.duration_ns) for g in gaps) == nvidia_gaps("churn_py")
    assert host is not None and host.thread is not None
    samples = python_sample_lines(db)
    expected = python_lines(samples, global_tid(*host.thread), nvidia_gaps("churn_py"))
    assert {s.name: s.value for s in host.python} == expected
    top = host.python[0]
    # line 182 builds the fused AdamW: the first gap, 4 s long, is spent there
    assert top.name == "gen_unannotated.py(182): churn" and top.pct > 80
    assert "; in Python at gen_unannotated.py(182): churn (87% of its Python samples)" \
        in host.where()
    # each host-wait gap says the line of its launching thread's samples in it, as the
    # export's give it (none for a gap whose work autograd's thread launched: no Python)
    said = 0
    for gap in gaps:
        end = gap.start_ns + gap.duration_ns
        launchers = {gtid for table in ("KERNEL", "MEMSET", "MEMCPY") for (gtid,) in db.execute(
            "SELECT r.globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r "
            f"JOIN CUPTI_ACTIVITY_KIND_{table} AS k USING (correlationId) WHERE k.start = ?",
            (end,))}
        assert len(launchers) == 1
        lines = python_lines(samples, launchers.pop(), [(gap.start_ns, gap.duration_ns)])
        if gap.kind != "host-wait" or not lines:
            assert "in Python at" not in gap.cause
            continue
        top = max(lines, key=lambda name: (lines[name], name))
        assert (f"; in Python at {top} ({lines[top]:,} of its {sum(lines.values()):,} Python "
                "samples)") in gap.cause, gap.cause
        said += 1
    assert said >= 50


def python_sample_lines(db: sqlite3.Connection) -> list[tuple[int, int, str]]:
    """Each Python sample of the export (globalTid, time, line): its innermost frame of the
    program's own code (else its innermost), named as Kineto names frames; the JSON text
    read with json."""
    import html
    import json
    import re

    from tui.derived.backtrace_frames import LIBRARY_MODULES

    strings = dict(db.execute("SELECT id, value FROM StringIds"))
    found = []
    for gtid, ts, text in db.execute(
            "SELECT globalTid, start, jsonText FROM NVTX_EVENTS WHERE eventType = 34 "
            "AND domainId IN (SELECT domainId FROM NVTX_PAYLOAD_SCHEMAS "
            "WHERE name = 'Python Periodic Sampling')"):
        frames = [(html.unescape(strings[f["Function"]]), html.unescape(strings[f["File"]]),
                   f["Line"]) for f in json.loads(text)["Python Periodic Sampling"]["Frames"]]
        own = [f for f in frames
               if not re.search(LIBRARY_MODULES, f[1]) and not f[1].startswith("<")]
        function, file, line = (own or frames)[0]
        below = file.split("-packages/", 1)[1] if "-packages/" in file else file.rsplit("/")[-1]
        found.append((gtid, ts, f"{below}({line}): {function}"))
    return sorted(found, key=lambda sample: sample[1])


def python_lines(samples: list[tuple[int, int, str]], gtid: int,
                 gaps: list[tuple[int, int]]) -> dict[str, int]:
    """Thread `gtid`'s samples (python_sample_lines) inside `gaps` (start, duration), by
    line; the samples in time order."""
    import bisect

    times = [ts for thread, ts, _ in samples]
    counts: dict[str, int] = {}
    for start, duration in gaps:
        for thread, _, name in samples[bisect.bisect_left(times, start):
                                       bisect.bisect_left(times, start + duration)]:
            if thread == gtid:
                counts[name] = counts.get(name, 0) + 1
    return counts


def test_a_compiled_decode_replayed_as_cuda_graphs_is_told_to_bring_the_rest_in() -> None:
    """`decode`: Hugging Face's generate() with a static cache, its forward compiled and
    replayed as a CUDA graph (traced whole): the GPU's gaps are NVIDIA's but for the
    replays, which NVIDIA's rule counts as idle and tui as busy; the window is the
    repeating decode step, after 20 s of imports and compiling; it is launch-bound by the
    decoding loop's own small kernels between the replays, which hold most of its GPU time
    (the export's graph activities against its kernels, over the window), so the advice
    is not to compile or capture what is compiled and captured already."""
    path = inflated("unannotated/decode.sqlite")
    with open_trace(path) as trace:
        gaps, _whole, work = gaps_and_work(trace.con, MS)
        diagnosis = diagnose(work, source_format(trace.con))
    # NVIDIA's gpu_gaps counts a graph traced whole as idle; tui as busy (docs/formats.md)
    assert nvidia_gaps("decode") == sorted(gaps_over(nsys_intervals(path, ACTIVITY_TABLES), MS))
    assert sorted((g.start_ns, g.duration_ns) for g in gaps) == sorted(
        gaps_over(nsys_intervals(path, (*ACTIVITY_TABLES, GRAPH_TABLE)), MS))
    window = work[0].window
    assert window is not None and window.kind == "iteration" and window.setup_ns > 15e9
    db = sqlite3.connect(path)
    (replayed,), = db.execute("SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_GRAPH_TRACE "
                              "WHERE start >= ? AND start < ?", (window.start_ns, window.end_ns))
    (kernels,), = db.execute("SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL "
                             "WHERE start >= ? AND start < ?", (window.start_ns, window.end_ns))
    assert replayed > kernels  # over half the window's GPU time
    assert diagnosis.bound == "launch" and work[0].launched_as == GRAPHS
    assert diagnosis.text.endswith(f"; {LAUNCH_REMEDY[GRAPHS]}.")
    # traced whole, each replay is one activity and one launch: the issue rate counts
    # every kernel and copy, and the graphs (those overlapping the window) are some
    (graphs,), = db.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_GRAPH_TRACE "
                            "WHERE end > ? AND start < ?", (window.start_ns, window.end_ns))
    assert work[0].graph_kernels == graphs > 100
    assert work[0].host_launches == work[0].kernels + work[0].copies
    assert "run by CUDA graphs' replays" not in diagnosis.text


def test_cccls_own_nvtx_ranges_are_not_the_programs_loop() -> None:
    """`bert`: BERT-base fine-tuned 12 steps, nothing annotated; CUDA 13's CUB opens an NVTX
    range (domain CCCL) around each device-wide algorithm, here the embeddings' backward's
    sorts, scans and unique-by-keys: 6 a step. Those ranges are the library's, not phases
    of the program's loop: the window is the kernel sequence's repeats, steps 2 to 12 (the
    first compiles cuDNN's attention), whose 66 CUB ranges lie inside it and the first
    step's 6 before it; eager dispatch of ~1,100 small kernels a step leaves it
    launch-bound."""
    path = inflated("unannotated/bert.sqlite")
    db = sqlite3.connect(path)
    ranges = db.execute(
        "SELECT n.start, n.end, coalesce(n.text, s.value), d.text FROM NVTX_EVENTS AS n "
        "LEFT JOIN StringIds AS s ON s.id = n.textId "
        "LEFT JOIN (SELECT domainId, text FROM NVTX_EVENTS WHERE eventType = 75) AS d "
        "USING (domainId) WHERE n.eventType IN (59, 60) ORDER BY n.start").fetchall()
    assert len(ranges) == 72 and {r[3] for r in ranges} == {"CCCL"}
    assert all(r[2].startswith("cub::") for r in ranges)
    summary = checked_summary(path, "bert")
    window = summary["diagnosis"]["window"]
    assert window["kind"] == "iteration"
    inside = [r for r in ranges if r[0] >= window["start_ns"] and r[1] <= window["end_ns"]]
    before = [r for r in ranges if r[1] <= window["start_ns"]]
    assert (len(inside), len(before)) == (66, 6)
    assert summary["diagnosis"]["bound"] == "launch"
    assert summary["diagnosis"]["text"].startswith("Launch-bound in 11 repeats of its kernel "
                                                   "sequence")


def _queued_idle(db: sqlite3.Connection, device: int, start: int, end: int) -> tuple[int, int]:
    """(queued, late): the device's idle in [start, end), read from the export, split by
    whether the activity ending each stretch had been launched (its runtime call started)
    before the GPU ran dry."""
    called = dict(db.execute("SELECT correlationId, start FROM CUPTI_ACTIVITY_KIND_RUNTIME"))
    acts = sorted(row for table in ACTIVITY_TABLES for row in db.execute(
        f"SELECT start, end, correlationId FROM {table} WHERE deviceId = ?", (device,)))
    queued = late = 0
    reach = None
    for s, e, correlation in acts:
        if reach is not None and s > reach:
            lo, hi = max(reach, start), min(s, end)
            if hi > lo:
                if called.get(correlation, s) <= reach:
                    queued += hi - lo
                else:
                    late += hi - lo
        reach = e if reach is None else max(reach, e)
    return queued, late


def test_a_model_split_across_two_gpus_waits_on_the_other_gpu() -> None:
    """`split`: one process trains an MLP whose first half is on GPU 0 and second on GPU 1;
    activations and their gradients cross by peer copies each step. Each GPU's idle in the
    window is almost all with its next work queued already (the export: the launching call
    came before the GPU ran dry), waiting for the other GPU: the diagnosis says so, and
    advises micro-batches or data parallelism, not recording the runtime calls (which the
    trace has)."""
    path = inflated("unannotated/split.sqlite")
    summary = checked_summary(path, "split")
    diagnosis = summary["diagnosis"]
    window = diagnosis["window"]
    db = sqlite3.connect(path)
    assert diagnosis["bound"] == "other"
    assert diagnosis["text"].startswith("Waiting on another GPU in ")
    assert diagnosis["text"].endswith(f"; {REMEDY_WAITED['gpus']}.")
    for device in diagnosis["devices"]:
        number = device["figures"]["device"]
        assert device["figures"]["waited_on"] == "gpus"
        assert not device["figures"]["dataparallel"]  # no NCCL: a model split by hand
        (peer,), = db.execute(
            "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE deviceId = ? AND "
            "copyKind = 10 AND start < ? AND end > ?",
            (number, window["end_ns"], window["start_ns"])).fetchall()
        assert peer >= 38  # a peer copy each step (of 40; the window's first is the 2nd)
        queued, late = _queued_idle(db, number, window["start_ns"], window["end_ns"])
        assert queued >= 0.95 * (queued + late)
        other = device["idle_by_cause"]["other_ns"]
        assert 0.9 * queued <= other <= queued
    assert not [f for f in summary["findings"] if f["rule"] == "dataparallel"]


def test_the_split_model_under_torch_profiler_waits_on_the_other_gpu_too() -> None:
    """`split`'s steps 10-14 under torch.profiler (Kineto): its copies name the peer
    copies (`Memcpy PtoP`, two a step) and most GPU events carry a runtime call's
    correlation id, so the same diagnosis as the nsys export's."""
    path = SAMPLES / "unannotated" / "split.pt.trace.json.gz"
    with gzip.open(path, "rt") as f:
        events = json.load(f)["traceEvents"]
    peer = [e for e in events if e.get("cat") == "gpu_memcpy" and "PtoP" in e["name"]]
    assert len(peer) >= 10
    called = {e["args"]["correlation"] for e in events
              if e.get("cat") in ("cuda_runtime", "cuda_driver")}
    gpu = [e for e in events if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    assert sum(e["args"].get("correlation") in called for e in gpu) > 0.5 * len(gpu)
    with open_trace(path) as trace:
        diagnosis = dict(trace_summary(trace, MS))["diagnosis"]
    assert diagnosis["bound"] == "other"
    assert diagnosis["text"].startswith("Waiting on another GPU in 5 profiler steps")
    assert [d["figures"]["waited_on"] for d in diagnosis["devices"]] == ["gpus", "gpus"]


def test_an_export_whose_import_dropped_the_kernels_says_so() -> None:
    """`jax_dp` (a JAX mesh over two GPUs, XLA's command buffers on): nsys' import of the
    report failed on its events ("Cannot find string for an exterior index"), and the
    export has the CUDA API calls but no kernel table. The load says both, not that the
    CUDA API went unrecorded."""
    path = inflated("unannotated/jax_dp.sqlite")
    db = sqlite3.connect(path)
    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
    assert "CUPTI_ACTIVITY_KIND_KERNEL" not in tables
    (calls,), = db.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME").fetchall()
    (errors,), = db.execute("SELECT count(*) FROM DIAGNOSTIC_EVENT "
                            "WHERE source = 3 AND text LIKE 'Error%'").fetchall()
    assert calls > 1000 and errors > 0
    with open_trace(path) as trace:
        warnings = list(trace.warnings)
    assert f"nsys logged {errors:,} errors importing the report (“Cannot find string for an " \
           "exterior index”): the events they dropped are missing from this export" in warnings
    assert (f"the export has no CUDA kernel table though it holds {calls:,} CUDA API calls: "
            "its kernels were not recorded, or nsys' import dropped them; for an XLA "
            "program, record with its command buffers off "
            "(XLA_FLAGS=--xla_gpu_enable_command_buffer=) and `--cuda-graph-trace=node`, "
            "or with jax.profiler, whose trace tui reads") in warnings


def test_dataparallel_over_two_gpus_is_told_to_use_a_process_per_gpu() -> None:
    """`dataparallel`: torch.nn.DataParallel over two GPUs of one process. The export says
    what it did each step: the one process launched NCCL Broadcast kernels (the weights,
    replicated) on both GPUs and Reduce kernels (the gradients, summed onto GPU 0). The
    GPUs waited on that process's host work; the remedy is DistributedDataParallel, not
    the data loader's workers the other threads' samples would suggest."""
    path = inflated("unannotated/dataparallel.sqlite")
    db = sqlite3.connect(path)
    launched = db.execute(
        "SELECT r.globalTid >> 24 & 16777215 AS pid, k.deviceId, s.value FROM "
        "CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN CUPTI_ACTIVITY_KIND_RUNTIME AS r USING "
        "(correlationId) JOIN StringIds AS s ON s.id = k.shortName "
        "WHERE r.globalTid >> 24 = k.globalPid >> 24 AND s.value LIKE 'ncclDevKernel%'"
        ).fetchall()
    assert {pid for pid, _, _ in launched} == {1134}
    assert {(d, n.split("_")[1]) for _, d, n in launched} == {
        (0, "Broadcast"), (1, "Broadcast"), (0, "Reduce"), (1, "Reduce")}
    kinds = dict(((kind, (count, ns)) for kind, count, ns in db.execute(
        "SELECT substr(s.value, 15, instr(substr(s.value, 15), '_') - 1), count(*), "
        "sum(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN StringIds AS s "
        "ON s.id = k.shortName WHERE s.value LIKE 'ncclDevKernel%' GROUP BY 1")))
    summary = checked_summary(path, "dataparallel")
    diagnosis = summary["diagnosis"]
    assert diagnosis["bound"] == "host"
    assert diagnosis["text"].endswith(f"; {REMEDY_DATAPARALLEL}.")
    assert [d["figures"]["dataparallel"] for d in diagnosis["devices"]] == [True, True]
    # the finding: what the weights' copies and the gradients' sums cost the GPUs
    (found,) = [f for f in summary["findings"] if f["rule"] == "dataparallel"]
    (row,) = found["rows"]
    assert (row["pid"], row["devices"]) == (1134, [0, 1])
    assert (row["broadcasts"], row["broadcast_ns"]) == kinds["Broadcast"] == (720, 142676074)
    assert (row["reduces"], row["reduce_ns"]) == kinds["Reduce"]
    assert found["cost_ns"] == kinds["Broadcast"][1] + kinds["Reduce"][1]


def test_a_trainers_loop_is_its_steps_though_it_logs_and_evaluates() -> None:
    """`trainer`: Hugging Face's Trainer fine-tuning BERT-base 60 steps, logging every 10
    (those steps launch two kernels more), evaluating every 20 and saving a checkpoint
    every 30. The loop's kernel that comes once a step is 1,160 kernels from the next in
    most steps and 1,162 in the logging ones, evaluations between some: the window is the
    training loop's repeats, and its slow steps are those holding the evaluations and the
    checkpoint (each over twice the typical step)."""
    from collections import Counter

    path = inflated("unannotated/trainer.sqlite")
    diagnosis = checked_summary(path, "trainer")["diagnosis"]
    window = diagnosis["figures"]["window"]
    assert window["kind"] == "iteration"
    kernels, at = anchor_at(path, window["name"])
    apart = Counter(b - a for a, b in zip(at, at[1:], strict=False))
    assert apart.most_common(1)[0][0] == 1160
    assert apart[1160] + apart[1162] >= 0.9 * (len(at) - 1) > apart[1160]
    # its repeats: the anchor's from the window's start, the first 1,160 from the next
    first = next(a for a, b in zip(at, at[1:], strict=False) if b - a == 1160)
    assert window["start_ns"] == kernels[first][1]
    assert window["ranges"] == sum(i >= first for i in at) == 59
    assert diagnosis["bound"] == "host"
    steps = diagnosis["figures"]["steps"]
    assert steps["slow"] == 3


def test_dataparallel_under_torch_profiler_is_told_the_same() -> None:
    """`dataparallel`'s steps 10-14 under torch.profiler: the NCCL Broadcast and Reduce
    kernels on both GPUs, each launched by a runtime call of the one process, so the same
    remedy as the nsys export's, whatever bounds each GPU."""
    path = SAMPLES / "unannotated" / "dataparallel.pt.trace.json.gz"
    with gzip.open(path, "rt") as f:
        events = json.load(f)["traceEvents"]
    calls = {e["args"]["correlation"]: e["pid"] for e in events
             if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {})}
    nccl = {(e["args"]["device"], e["name"].split("_")[1], calls.get(e["args"]["correlation"]))
            for e in events if e.get("cat") == "kernel" and e["name"].startswith("ncclDev")}
    assert {(d, kind) for d, kind, _ in nccl} == {
        (0, "Broadcast"), (1, "Broadcast"), (0, "Reduce"), (1, "Reduce")}
    assert len({pid for _, _, pid in nccl}) == 1
    with open_trace(path) as trace:
        summary = dict(trace_summary(trace, MS))
    diagnosis = summary["diagnosis"]
    (found,) = [f for f in summary["findings"] if f["rule"] == "dataparallel"]
    kernels = [e for e in events if e.get("cat") == "kernel"]
    assert found["rows"][0]["broadcasts"] == sum("Broadcast" in e["name"] for e in kernels)
    assert diagnosis["text"].startswith("Communication-bound in 5 profiler steps")
    assert f"; {REMEDY_DATAPARALLEL}. By GPU: " in diagnosis["text"]
    assert [d["figures"]["dataparallel"] for d in diagnosis["devices"]] == [True, True]


def test_a_capture_of_the_loop_alone_cut_mid_step_is_judged_over_its_repeats() -> None:
    """`bert_mid`: `bert` for 300 steps under nsys --delay=15 --duration=3, as users skip
    a program's start-up: the capture (3.0 s, the export's ANALYSIS_DETAILS) starts and
    ends inside the loop, the program stopped mid-step. The window is the loop's repeats
    from its first step in the capture, with no set-up to speak of, and the gaps are
    NVIDIA's."""
    path = inflated("unannotated/bert_mid.sqlite")
    db = sqlite3.connect(path)
    (duration, start, stop), = db.execute(
        "SELECT duration, startTime, stopTime FROM ANALYSIS_DETAILS").fetchall()
    assert 2.9e9 < duration < 3.1e9 and stop - start == duration
    (first, last), = db.execute(
        "SELECT min(start), max(end) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchall()
    assert first < 50 * MS and duration - last < 50 * MS  # kernels from end to end
    diagnosis = checked_summary(path, "bert_mid")["diagnosis"]
    window = diagnosis["figures"]["window"]
    assert window["kind"] == "iteration" and window["end_ns"] == last
    assert window["start_ns"] - first < 100 * MS  # within the first two steps
    assert diagnosis["setup_text"] is None
    assert diagnosis["bound"] == "launch"


def test_gradient_accumulation_is_judged_over_its_optimizer_steps() -> None:
    """`accum` (STEPS=5): BERT-base fine-tuned with gradient accumulation, 5 optimizer
    steps of 8 micro-batches. No kernel comes once a step: the micro-batches' kernels
    come 8 times, the optimizer's in several launches of one name, and the micro-batches'
    own period is broken by each step's optimizer and first backward. The iteration is
    found at a stride of a kernel's occurrences: its repeats are the 5 optimizer steps,
    each the same number of kernels as sqlite3 counts them, and the gaps are NVIDIA's."""
    from collections import Counter

    from tui.analysis.window import (
        MIN_REPEATS,
        REGULAR,
        REPEATING,
        TOLERANCE,
        iteration_query,
    )

    path = inflated("unannotated/accum.sqlite")
    with open_trace(path) as trace:
        once = trace.con.execute(
            iteration_query("work_iteration"),
            {"min_repeats": MIN_REPEATS, "regular": REGULAR, "repeating": REPEATING,
             "tolerance": TOLERANCE, "stream_nth": 0}).fetchone()
        summed, (gaps, _whole, _work) = summary_and_gaps(trace, MS)
        diagnosis = dict(summed)["diagnosis"]
    assert once is None  # no kernel comes once an iteration
    assert sorted((g.start_ns, g.duration_ns) for g in gaps) == nvidia_gaps("accum")
    window = diagnosis["figures"]["window"]
    assert window["kind"] == "iteration" and window["ranges"] == 5
    stride = window["stride"]
    kernels, at = anchor_at(path, window["name"])
    first = next(k for k, i in enumerate(at) if kernels[i][1] == window["start_ns"])
    # the anchor comes `stride` times an optimizer step, 5 steps from the window's start
    assert len(at) - first == 5 * stride
    apart = Counter(at[k + stride] - at[k] for k in range(first, len(at) - stride))
    assert len(apart) == 1  # every optimizer step the same number of kernels
    assert diagnosis["bound"] == "launch"
    assert diagnosis["figures"]["steps"]["count"] == 4
    assert diagnosis["text"].startswith("Launch-bound in 5 repeats of its kernel sequence")


def test_two_jobs_on_one_gpu_are_one_trace_that_says_they_shared_it() -> None:
    """`shared`: two processes training at once on GPU 0. They are no ranks of one job
    (each would be 'rank 0'): the report opens as one trace, and the finding `shared_gpu`
    gives each process's work and the time both had work in flight, as the export's
    activities (kernels, copies, sets) give them read with sqlite3. NVIDIA's `gpu_gaps`
    are each process's own (its PID and context), tui's the GPU's: where neither ran."""
    from tui.loading.resolve import resolve

    path = inflated("unannotated/shared.sqlite")
    assert resolve([path]).kind == "trace"
    db = sqlite3.connect(path)
    spans: dict[int, list[tuple[int, int]]] = {}
    for table in ("KERNEL", "MEMCPY", "MEMSET"):
        for pid, start, end in db.execute(
                f"SELECT globalPid >> 24 & 16777215, start, end "
                f"FROM CUPTI_ACTIVITY_KIND_{table} WHERE end > start"):
            spans.setdefault(pid, []).append((start, end))
    assert len(spans) == 2
    overlap = overlap_of(*(union_of(spans[pid]) for pid in sorted(spans)))
    with open_trace(path) as trace:
        summary = dict(trace_summary(trace, MS))
    (found,) = [f for f in summary["findings"] if f["rule"] == "shared_gpu"]
    assert found["cost_ns"] == overlap > 1000 * MS
    assert [(r["pid"], r["device"], r["activities"], r["busy_ns"]) for r in found["rows"]] == [
        (pid, 0, len(spans[pid]), sum(e - s for s, e in spans[pid])) for pid in sorted(spans)]
    first, second = sorted(spans)
    assert summary["diagnosis"]["shared_text"].startswith(
        f"GPU 0 ran the work of processes {first} and {second} at once for "
        f"{format_ns(overlap)} of the trace: ")
    with open(DATA / "shared.gpu_gaps.csv", newline="") as f:
        assert {int(r["PID"]) for r in csv.DictReader(f)} == set(spans)
    # tui's gaps: where no process had work on the GPU
    busy = union_of([s for pid in spans for s in spans[pid]])
    idle = [(a[1], b[0] - a[1]) for a, b in zip(busy, busy[1:], strict=False)
            if b[0] - a[1] > MS]
    assert sorted((g["start_ns"], g["duration_ns"]) for g in summary["gaps"]) == idle


def union_of(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Time spans merged where they touch or overlap, by start."""
    out: list[list[int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return [(s, e) for s, e in out]


def overlap_of(first: list[tuple[int, int]], second: list[tuple[int, int]]) -> int:
    """The time two lists of disjoint spans (by start) share."""
    i = j = shared = 0
    while i < len(first) and j < len(second):
        shared += max(0, min(first[i][1], second[j][1]) - max(first[i][0], second[j][0]))
        if first[i][1] < second[j][1]:
            i += 1
        else:
            j += 1
    return shared


def test_an_iteration_whose_kernels_change_in_number_is_found() -> None:
    """`moe`: a mixture of experts (4 layers of 8 experts, top-1 routing) trained 40 steps.
    Each expert runs the kernels of the tokens routed to it, and cuBLAS picks its GEMMs'
    kernels by their shape: a step is 1,209 to 2,126 kernels as the routing changes, so
    no kernel comes at one distance, nor at a stride. The iteration is found from a kernel
    that comes once a step at a varying distance (the batch's `randn`): the window's
    repeats are its occurrences from there on, as sqlite3 lists them, and the gaps are
    NVIDIA's."""
    from tui.analysis.window import (
        MAX_STRIDE,
        MIN_REPEATS,
        REGULAR,
        REPEATING,
        SPREAD,
        TOLERANCE,
        iteration_query,
    )

    rules = {"min_repeats": MIN_REPEATS, "regular": REGULAR, "repeating": REPEATING,
             "tolerance": TOLERANCE, "stream_nth": 0}
    path = inflated("unannotated/moe.sqlite")
    with open_trace(path) as trace:
        once = trace.con.execute(iteration_query("work_iteration"), rules).fetchone()
        strided = trace.con.execute(iteration_query("work_iteration_strided"),
                                    rules | {"max_stride": MAX_STRIDE}).fetchone()
        summed, (gaps, _whole, _work) = summary_and_gaps(trace, MS)
        diagnosis = dict(summed)["diagnosis"]
    assert once is None and strided is None
    assert sorted((g.start_ns, g.duration_ns) for g in gaps) == nvidia_gaps("moe")
    window = diagnosis["figures"]["window"]
    assert window["kind"] == "iteration"
    kernels, at = anchor_at(path, window["name"])
    assert len(at) == 40  # once a step
    # the repeats from the window's start (its first repeat, slow, put in the set-up)
    first = sum(kernels[i][1] < window["start_ns"] for i in at)
    assert window["warm_up"] == first == 1
    assert window["ranges"] == len(at) - first
    apart = [b - a for a, b in zip(at[first:], at[first + 1:], strict=False)]
    assert max(apart) > 1.2 * min(apart)  # the steps' kernels change in number
    median = sorted(apart)[len(apart) // 2]
    assert all(median / SPREAD <= d <= median * SPREAD for d in apart)
    assert diagnosis["figures"]["steps"]["count"] == window["ranges"] - 1


def test_a_loop_without_the_caching_allocator_is_told_to_keep_it() -> None:
    """`nocache`: an MLP trained 40 steps with PyTorch's caching allocator off
    (PYTORCH_NO_CUDA_MEMORY_CACHING=1; the export's GPU_METRICS table dropped for size).
    Every tensor is a cudaMalloc and a cudaFree: sqlite3 finds the launching thread in
    them for most of the window, dozens of each a step, its launches a fraction of that.
    The diagnosis is host-bound, names cudaFree, and gives the allocator's remedy, not the
    data loader's; the gaps are NVIDIA's."""
    from tui.analysis.remedies import HOST_WORK

    path = inflated("unannotated/nocache.sqlite")
    diagnosis = checked_summary(path, "nocache")["diagnosis"]
    window = diagnosis["figures"]["window"]
    assert window["kind"] == "iteration" and window["ranges"] == 40
    start, end = window["start_ns"], window["end_ns"]
    db = sqlite3.connect(path)
    held = dict(db.execute(
        "SELECT n.value, sum(min(r.end, ?) - max(r.start, ?)) FROM CUPTI_ACTIVITY_KIND_RUNTIME "
        "AS r JOIN StringIds AS n ON n.id = r.nameId WHERE r.end > ? AND r.start < ? "
        "GROUP BY 1", (end, start, start, end)).fetchall())
    calls = dict(db.execute(
        "SELECT n.value, count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r JOIN StringIds AS n "
        "ON n.id = r.nameId WHERE r.start >= ? AND r.start < ? GROUP BY 1",
        (start, end)).fetchall())
    allocator = held["cudaMalloc_v3020"] + held["cudaFree_v3020"]
    assert allocator > 0.5 * (end - start)
    assert min(calls["cudaMalloc_v3020"], calls["cudaFree_v3020"]) > 40 * 40
    assert allocator > 10 * held["cudaLaunchKernel_v7000"]
    assert diagnosis["bound"] == "host"
    assert diagnosis["figures"]["host_busy_in"] == "cudaFree"
    row = next(row for row in HOST_WORK if row.key == "allocator")
    assert diagnosis["text"].endswith(f"; {row.remedy}.")


def test_the_iteration_ends_with_its_last_repeat_not_with_what_the_program_did_after(
        capsys: pytest.CaptureFixture[str]) -> None:
    """unannotated/cp_json.sqlite: `cp` over two H200s under one nsys, nothing marked. After
    its 30 steps each rank tears its process group down and then reads its loss back, a
    copy 0.48 s after its last kernel (sqlite3). Each rank's window of repeats ran to that
    copy, the teardown's idle in it (0.53 s of host-bound idle on rank 0, the host 'busy
    most in ncclCommDestroy'); it now ends with the last repeat, at the rank's last
    kernel."""
    from tui.cli.main import main

    path = inflated("unannotated/cp_json.sqlite")
    db = sqlite3.connect(path)
    last_kernel = dict(db.execute(
        "SELECT deviceId, max(\"end\") FROM CUPTI_ACTIVITY_KIND_KERNEL GROUP BY 1").fetchall())
    copies = dict(db.execute(
        "SELECT deviceId, max(start) FROM CUPTI_ACTIVITY_KIND_MEMCPY GROUP BY 1").fetchall())
    assert all(copies[d] - end > 400_000_000 for d, end in last_kernel.items())
    assert main(["--summary", "--json", str(path)]) == 0
    summary = json.loads(capsys.readouterr().out)
    for rank in summary["ranks"]:
        window = rank["diagnosis"]["window"]
        assert window["kind"] == "iteration"
        assert window["end_ns"] == last_kernel[rank["rank"]]  # the ranks are numbered as their GPUs
        assert rank["diagnosis"]["idle_ns"] < 150_000_000


def test_a_process_that_sees_one_gpu_is_on_that_gpu_not_on_its_device_0(
        capsys: pytest.CaptureFixture[str]) -> None:
    """unannotated/sweep.sqlite: two trainings at once, a process on each of two H200s, the
    second started with CUDA_VISIBLE_DEVICES=1. Both processes' kernels carry deviceId 0,
    each process's own number for its GPU; the export's TARGET_INFO_CUDA_DEVICE maps the
    second's device 0 to GPU 1. Read as one GPU, the two were jobs sharing GPU 0 (the
    finding shared_gpu, one trace); they are two ranks, one a GPU, each gap NVIDIA's
    `gpu_gaps` row of its process (which gpu_gaps keeps apart by process), and no
    collective between them."""
    from tui.cli.main import main

    path = inflated("unannotated/sweep.sqlite")
    db = sqlite3.connect(path)
    kernels = dict(db.execute(
        "SELECT DISTINCT (globalPid >> 24) & 16777215, deviceId "
        "FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchall())
    assert sorted(kernels.values()) == [0, 0]
    gpu_of = {pid: dict(db.execute("SELECT cudaId, gpuId FROM TARGET_INFO_CUDA_DEVICE "
                                   "WHERE pid = ?", (pid,)).fetchall())[0] for pid in kernels}
    assert sorted(gpu_of.values()) == [0, 1]
    assert main(["--summary", "--json", str(path)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert sorted(r["rank"] for r in summary["ranks"]) == [0, 1]
    assert not [f for f in summary["findings"] if f["rule"] == "shared_gpu"]
    assert [f["rule"] for f in summary["findings"]].count("no_collectives") == 1
    with open(DATA / "sweep.gpu_gaps.csv", newline="") as f:
        nvidia = sorted((gpu_of[int(r["PID"])], int(r["Start (ns)"]), int(r["Duration (ns)"]))
                        for r in csv.DictReader(f))
    assert len(nvidia) == 43
    assert sorted((g["rank"], g["start_ns"], g["duration_ns"]) for g in summary["gaps"]) == nvidia


def test_ranks_that_each_see_one_gpu_are_a_run_on_their_own_gpus(
        capsys: pytest.CaptureFixture[str]) -> None:
    """unannotated/ddp_bound_json.sqlite: `ddp` under one nsys, its two ranks each started
    seeing one H200 alone, as SLURM binds them: both ranks' kernels say device 0
    (sqlite3). Read as one GPU they were one trace of two jobs sharing it; on their GPUs
    (TARGET_INFO_CUDA_DEVICE) they are the run's two ranks, the sleeping last rank the
    straggler, data-parallel, each rank's GPU work its process's."""
    from tui.cli.main import main

    path = inflated("unannotated/ddp_bound_json.sqlite")
    db = sqlite3.connect(path)
    kernels = db.execute("SELECT (globalPid >> 24) & 16777215, deviceId, count(*) "
                         "FROM CUPTI_ACTIVITY_KIND_KERNEL GROUP BY 1, 2").fetchall()
    assert [device for _, device, _ in kernels] == [0, 0]
    gpu_of = {pid: dict(db.execute("SELECT cudaId, gpuId FROM TARGET_INFO_CUDA_DEVICE "
                                   "WHERE pid = ?", (pid,)).fetchall())[0]
              for pid, _, _ in kernels}
    assert sorted(gpu_of.values()) == [0, 1]
    assert main(["--summary", "--json", str(path)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["straggler"] == 1 and [g["kind"] for g in summary["parallelism"]] == ["data"]
    ranks = {r["rank"]: r for r in summary["ranks"]}
    for pid, _, count in kernels:
        rank = ranks[gpu_of[pid]]
        assert rank["comm_kernels"] + rank["compute_kernels"] == count
    assert "the host busy most in clock_nanosleep" in ranks[1]["diagnosis"]["text"]


def test_a_reduce_overhead_compile_is_judged_over_its_replays_not_its_recording() -> None:
    """unannotated/compiled_ro.sqlite: BERT-base under torch.compile(mode="reduce-overhead")
    recorded whole by nsys (its CUDA graphs traced whole). The warm-up and the graphs'
    recording ran 3,117 kernels on a stream of their own, more than the 2,045 of the stream
    that then replays the graphs and runs the optimizer (sqlite3). The iteration was
    searched on the busiest stream alone: none was found, and the window ran from the first
    kernel, 7.56 s of it compiling (host-bound, 94% idle). It is now the replays' steps,
    after the recording stream's last kernel."""
    from tui.analysis.window import work_window

    path = inflated("unannotated/compiled_ro.sqlite")
    db = sqlite3.connect(path)
    streams = db.execute("SELECT streamId, count(*), max(\"end\") FROM CUPTI_ACTIVITY_KIND_KERNEL "
                         "GROUP BY 1 ORDER BY 2 DESC").fetchall()
    (recording, recorded, recording_end), (_replays, replayed, _end) = streams
    assert recorded == 3_117 and replayed == 2_045
    (graphs,) = db.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_GRAPH_TRACE").fetchone()
    assert graphs == 56  # two a step, 28 steps replayed
    with open_trace(path) as trace:
        window = work_window(trace.con)
    assert window is not None and window.kind == "iteration"
    assert window.name is not None and window.name.startswith("CUDA graph ")
    assert window.start_ns > recording_end and window.ranges >= 25
    # the graphs traced whole hold most of the compute time, their inside idle counted busy
    # (torch.profiler's kernels of the same steps: 76% compute), and the diagnosis says so
    with open_trace(path) as trace:
        _gaps, _whole, (work,) = gaps_and_work(trace.con, MS)
    (graphs_ns,) = db.execute(
        "SELECT sum(min(\"end\", ?) - max(start, ?)) FROM CUPTI_ACTIVITY_KIND_GRAPH_TRACE "
        "WHERE start < ? AND \"end\" > ?",
        (window.end_ns, window.start_ns, window.end_ns, window.start_ns)).fetchone()
    assert work.whole_graph_ns == graphs_ns > 0.5 * work.compute_ns
    share = round(100 * graphs_ns / work.compute_ns)
    assert f"{share}% of that time in CUDA graphs traced whole" in diagnose([work], "nsys").text
