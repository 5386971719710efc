"""What the host was busy in while the GPU waited, and the remedy that fits it
(tui/analysis/remedies.py): each row of the table on a real trace whose host work is
known from how it was recorded, and a run of four ranks judged rank by rank, each over its
own profiler steps."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from tests.conftest import inflated, sample
from tests.helpers.window_oracle import kineto_expected
from tui.analysis.diagnosis import diagnose, gaps_and_work
from tui.analysis.remedies import GENERAL, HOST_WORK, WARM_UP, host_remedy, host_work
from tui.loading.trace import open_trace

# (trace, where the time is taken: the window of work or the whole capture, the host work
# the GPU waited for most, the table's row for it)
CASES = [
    # recordings/gen_host_waits.py: time.sleep(5 ms) before each step, no annotations
    ("host_sleep.pt.trace.json.gz", "work", "<built-in function sleep>", "sleep"),
    # the same with ~5 ms of pure Python (`featurize`) before each step
    ("host_python.pt.trace.json.gz", "work", "g.py(12): featurize", "python"),
    # gen_bounds.py's loader: a sleep and a NumPy sort in a `dataloader` range
    ("bound_loader.pt.trace.json.gz", "work", "dataloader", "data"),
    # gen_loops.py's host loop (nsys, whole program): NumPy and a tokenizer under `prepare`
    ("loop_host.sqlite", "work", "prepare › linalg › tokenize", "data"),
    # 4-process DDP under one nsys: before its steps, NCCL's communicator set-up
    ("ddp4_nsys.sqlite", "whole", "ncclCommInitRankConfig", "init"),
    # GPT-2-like inference under torch.profiler: the host's side of the model's ops
    ("launch_bound_inference.pt.trace.json.gz", "work", "aten::clamp_min", "host_op"),
    # recordings/gen_compiled_lm.py: torch.save of the model and optimizer in step 20,
    # PyTorch's zip writer writing each tensor's record (the pin-memory thread meanwhile in
    # `poll`, waiting: not what held the launching thread up)
    ("compiled_lm/compiled_lm.pt.trace.json.gz", "work",
     "<built-in method write_record of pybind11_builtins.pybind11_detail_function_record_"
     "v1_system_libstdcpp_gxx_abi_1xxx_use_cxx11_abi_1 object>", "checkpoint"),
    # recordings/gen_unannotated.py's Triton kernels (nsys, no annotations): the matmul
    # kernel's compile, its thread's CPU samples mostly in libtriton
    ("unannotated/triton.sqlite", "work", "Triton's compiler", "jit"),
    # gen_unannotated.py's nocache (nsys, no annotations): PyTorch's caching allocator off,
    # every tensor a cudaMalloc and a cudaFree
    ("unannotated/nocache.sqlite", "work", "cudaFree", "allocator"),
    # gen_unannotated.py's compiled with COMPILE_MODE=reduce-overhead, steps 10-14 under
    # torch.profiler: its forward and backward Inductor's CUDA graphs (two cudaGraphLaunch a
    # step), its AdamW for-each step issued from the host between them
    ("compiled_ro.pt.trace.json.gz", "work", "Optimizer.step#AdamW.step", "optimizer"),
    # gen_unannotated.py's jax_callback, steps 20-24 under jax.profiler: a
    # jax.pure_callback of ~3 ms of NumPy inside the jitted step, the GPU waiting for it
    ("jax_callback/plugins/profile/2026_11_30_18_43_18/vm.trace.json.gz", "work",
     "pure_callback.N", "callback"),
    # gen_unannotated.py's diskread (nsys, no annotations): each batch read with np.load
    # in the loop, its launching thread in fread through the gaps
    ("unannotated/diskread.sqlite", "work", "fread", "file_read"),
    # gen_unannotated.py's ddp_eval under torchrun (two processes in one report): rank 0
    # writes a checkpoint (torch.save) every 10 steps, its launching thread in write
    ("unannotated/ddp_eval_json.sqlite", "work", "write", "file_write"),
    # gen_unannotated.py's cpu_eval (nsys, no annotations): an evaluation on the CPU every
    # 20 steps, the launching thread's samples in MKL's GEMMs and PyTorch's CPU kernels
    ("unannotated/cpu_eval.sqlite", "work", "CPU math kernels", "cpu_math"),
]
# Rows found from the host's CPU samples and OS runtime calls over the whole summary
# (host_samples.HostActivity.busy_elsewhere): tests/analysis/test_unannotated.py
SUMMARY_ROWS = {"elsewhere"}


@pytest.mark.parametrize(("name", "where", "busy_in", "row"), CASES)
def test_the_host_work_and_its_remedy(name: str, where: str, busy_in: str, row: str) -> None:
    path = inflated(name) if name.endswith(".sqlite") and not name.startswith("ddp4") \
        else sample(name)
    with open_trace(path) as trace:
        _gaps, whole, work = gaps_and_work(trace.con, 1_000_000)
        source_format = trace.format
    times = work if where == "work" else whole
    assert times[0].host_busy_in == busy_in
    found = host_work(busy_in)
    assert found is not None and found.key == row
    diagnosis = diagnose(times, source_format)
    if diagnosis.bound == "host":  # the sentence names the work and gives its remedy
        assert f"the host busy most in {busy_in}: {found.what}" in diagnosis.text
        said = found.remedy_xla if source_format == "xla" and found.remedy_xla else found.remedy
        assert diagnosis.text.endswith(f"; {said}.")


def test_every_row_is_checked_on_a_trace() -> None:
    assert {row for *_, row in CASES} | SUMMARY_ROWS == {row.key for row in HOST_WORK}


def test_one_time_set_up_falls_outside_the_window() -> None:
    """The DDP export's largest host waits are NCCL's communicator set-up; its window, the
    processes' `step N` ranges, starts after it and after each process's first step (DDP's
    first iteration, over twice a typical step), and the GPUs' host waits there are not in
    any range the trace names. The steady steps are what recordings/dist_train.py made
    them: rank 3's data loader sleeps 15 ms a step, the others wait for it in NCCL."""
    with open_trace(sample("ddp4_nsys.sqlite")) as trace:
        _gaps, whole, work = gaps_and_work(trace.con, 1_000_000)
    assert all(t.host_busy_in == "ncclCommInitRankConfig" for t in whole)
    assert all(t.window and t.window.kind == "steps" and t.window.warm_up == 4
               and t.window.name == "step 1 … step 5" and t.host_busy_in is None
               for t in work)
    diagnosis = diagnose(work, "nsys")
    assert diagnosis.bound == "communication"
    assert diagnosis.text.endswith("By GPU: GPU 0 communication; GPU 1 communication; "
                                   "GPU 2 communication; GPU 3 host.")
    assert WARM_UP not in diagnosis.text and host_remedy(None) == GENERAL


@pytest.fixture(scope="module")
def ddp4() -> dict:
    from tui.runs.run import open_run
    from tui.runs.summary import run_summary

    paths = [sample(f"ddp4/ddp_rank{r}.pt.trace.json.gz") for r in range(4)]
    with open_run(paths, min_gap_ns=1_000_000) as run:
        return run_summary(run, 1_000_000, "ddp4")


def test_each_rank_is_judged_over_its_own_steps(ddp4) -> None:
    """dist_train.py's DDP run: rank 3's data loader sleeps 15 ms a step, the others wait
    for it in NCCL. Each rank's window is its own profiler steps (from its trace), and the
    straggler is host-bound on its data preparation."""
    for row in ddp4["ranks"]:
        expected = kineto_expected(Path(row["path"]))
        window = row["diagnosis"]["window"]
        assert window["kind"] == "profiler_steps"
        assert (window["start_ns"], window["end_ns"]) == (expected["start"], expected["end"])
        diagnosis = row["diagnosis"]
        assert sum(diagnosis["idle_by_cause"].values()) == diagnosis["idle_ns"]
    bounds = {row["rank"]: row["diagnosis"]["bound"] for row in ddp4["ranks"]}
    assert bounds == {0: "communication", 1: "communication", 2: "communication", 3: "host"}
    top = ddp4["diagnosis"]
    assert top["bound"] == "host"
    assert top["text"].startswith("The run waits for its straggler, rank 3: ")
    assert "the host busy most in dataloader: data preparation" in top["text"]


def test_the_straggler_waits_on_the_batch_being_made() -> None:
    """Rank 3's host waits, by time: its `dataloader` range holds most of them (the batch
    made with torch.randn on the host and the sleep), the optimizer step a few ms only."""
    path = sample("ddp4/ddp_rank3.pt.trace.json.gz")
    with gzip.open(path, "rt") as f:
        names = {e.get("name") for e in json.load(f)["traceEvents"]}
    assert "dataloader" in names
    with open_trace(path) as trace:
        gaps, _whole, work = gaps_and_work(trace.con, 1_000_000)
    waited: dict[str | None, int] = {}
    for gap in gaps:
        if gap.kind == "host-wait":
            waited[gap.busy_in] = waited.get(gap.busy_in, 0) + gap.duration_ns
    assert max(waited, key=lambda k: waited[k]) == "dataloader" == work[0].host_busy_in
    assert waited["dataloader"] > 10 * waited.get("Optimizer.step#AdamW.step", 0)
