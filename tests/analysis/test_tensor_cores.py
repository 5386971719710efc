"""Matrix kernels on tensor cores and on CUDA cores, from the kernels' names: the time of
each kind equals NVIDIA's kernel sums (`nsys stats -r cuda_gpu_kern_sum`) summed by the same
names, and the sources' own kernel times on a Kineto and an XLA trace."""

from __future__ import annotations

import csv
import re
import sqlite3
from pathlib import Path

import pytest

from tests.helpers import oracle, xla_oracle
from tests.helpers.paths import DATA, NSYS_REFERENCE, ROOT, inflated, sample
from tests.helpers.xla_samples import run_folder
from tui.analysis.findings import findings
from tui.analysis.gpu_metrics import gpu_metrics_summary
from tui.analysis.kernels import device_busy, kernel_stats
from tui.analysis.summary import trace_summary
from tui.analysis.tensor_cores import (
    RULES,
    cores_of,
    cuda_core_finding,
    cuda_kind,
    gemm_tensor_cores,
    matrix_kernels,
    unaligned_finding,
    unaligned_gemms,
)
from tui.loading.trace import open_trace
from tui.views.reports.tensor_cores import tensor_core_lines

KINDS = {"tensor": "tensor_core_ns", "cuda": "cuda_core_ns", "unknown": "unknown_ns"}


def _by_kind(times: dict[str, int]) -> dict[str, int]:
    """{figure: summed time} of names -> time, each name put where cores_of says."""
    out = dict.fromkeys(KINDS.values(), 0)
    for name, ns in times.items():
        kind = cores_of(name)
        if kind is not None:
            out[KINDS[kind]] += ns
    return out


def _nsys_kernel_sums(csv_path: Path) -> dict[str, int]:
    with open(csv_path, newline="") as f:
        return {r["Name"]: int(r["Total Time (ns)"]) for r in csv.DictReader(f)}


def _figures(path: Path) -> tuple[dict, list, list[str]]:
    """The figures, the matrix kernels and the summary's text lines of the trace."""
    with open_trace(path) as trace:
        kernels = matrix_kernels(trace.con)
        stats = kernel_stats(trace.con)
        total = sum(k.total_ns for k in stats)
        names = [n for (n,) in trace.con.execute(
            "SELECT DISTINCT name FROM gpu_activities WHERE kind = 'kernel'").fetchall()]
        counters = gpu_metrics_summary(trace.con, 1_000_000, [k.name for k in stats])
    # DuckDB's RE2 and Python's re decide every name alike
    assert {k.name: k.cores for k in kernels} == {
        n: cores_of(n) for n in names if cores_of(n) is not None}
    figures = gemm_tensor_cores(kernels, total)
    return figures, kernels, tensor_core_lines({"gpu_metrics": counters,
                                                "gemm_tensor_cores": figures})


NSYS_CASES = {
    # export: NVIDIA's cuda_gpu_kern_sum CSV of it
    "gappy_training": NSYS_REFERENCE / "gappy_training.kern_sum.csv",
    "gappy_then_tuned": NSYS_REFERENCE / "gappy_then_tuned.kern_sum.csv",
    "multistream": NSYS_REFERENCE / "multistream.kern_sum.csv",
    "small_kernels": NSYS_REFERENCE / "small_kernels.kern_sum.csv",  # naive_sgemm
    "ncu_kernels": NSYS_REFERENCE / "ncu_kernels.kern_sum.csv",  # a CUTLASS simt sgemm
    "loop_compute": DATA / "loops" / "loop_compute_cuda_gpu_kern_sum.csv",
    # one model in bf16, tf32 and fp32 in turn
    "flops/flops_nsys": DATA / "flops" / "flops_nsys_cuda_gpu_kern_sum.csv",
}


@pytest.fixture(scope="module")
def nsys_loaded() -> dict[str, tuple[dict, list, list[str]]]:
    return {name: _figures(inflated(f"{name}.sqlite") if name.startswith(("loop_", "flops/"))
                           else sample(f"{name}.sqlite"))
            for name in NSYS_CASES}


@pytest.fixture(scope="module")
def nsys_figures(nsys_loaded: dict) -> dict[str, dict]:
    return {name: loaded[0] for name, loaded in nsys_loaded.items()}


@pytest.mark.slow
@pytest.mark.parametrize("trace", list(NSYS_CASES))
def test_times_equal_nvidia_kernel_sums_by_kind(trace: str, nsys_figures: dict) -> None:
    reference = _nsys_kernel_sums(NSYS_CASES[trace])
    expected = _by_kind(reference)
    got = nsys_figures[trace]
    for figure, ns in expected.items():
        assert got[figure] == pytest.approx(ns, rel=0.001), figure
    assert got["gemm_ns"] == sum(expected.values())
    assert got["kernel_ns"] == sum(reference.values())


@pytest.mark.slow
def test_what_each_recording_ran_on(nsys_figures: dict) -> None:
    gappy = nsys_figures["gappy_training"]  # fp32: cuBLAS ffma and CUTLASS simt kernels
    reference = _nsys_kernel_sums(NSYS_CASES["gappy_training"])
    assert gappy["cuda_core_ns"] == sum(
        ns for n, ns in reference.items() if "_ffma_" in n or "_simt_sgemm_" in n)
    # only the memory-efficient attention, TF32 tensor cores at FP32 accuracy on sm80+
    assert gappy["tensor_core_ns"] == sum(
        ns for n, ns in reference.items() if n.startswith("fmha_cutlass"))
    assert gappy["unknown_ns"] == 0
    assert gappy["top_cuda_core"][0] == {
        "name": "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x128x8_stage3_warpsize4x2x1"
                "_ffma_aligna4_alignc4_execute_kernel__5x_cublas", "ns": 30_555_965}
    # bf16 GEMMs in cuBLAS's nvjet kernels: every kernel of the loop
    assert nsys_figures["loop_compute"]["tensor_core_ns"] == 1_691_907_343
    assert nsys_figures["loop_compute"]["cuda_core_ns"] == 0
    # six fp32 steps then six bf16 ones: both kinds
    mixed = nsys_figures["gappy_then_tuned"]
    assert mixed["cuda_core_ns"] > mixed["tensor_core_ns"] > 0


def _sqlite_matrix_time_by_range(path: Path) -> dict[str, dict[str, int]]:
    """{NVTX range: {cores: summed time}} of the matrix kernels launched inside the ranges
    bf16, tf32 and fp32, read with sqlite3 on the export: a kernel belongs to the range in
    which its runtime call started (on any thread: autograd launches the backward from its
    own thread)."""
    with sqlite3.connect(path) as db:
        rows = db.execute("""
            SELECT n.text, s.value, sum(k."end" - k.start)
            FROM NVTX_EVENTS AS n
            JOIN CUPTI_ACTIVITY_KIND_RUNTIME AS r ON r.start >= n.start AND r.start < n."end"
            JOIN CUPTI_ACTIVITY_KIND_KERNEL AS k ON k.correlationId = r.correlationId
            JOIN StringIds AS s ON s.id = k.demangledName
            WHERE n.text IN ('bf16', 'tf32', 'fp32')
            GROUP BY n.text, s.value""").fetchall()
    out: dict[str, dict[str, int]] = {}
    for range_name, name, ns in rows:
        if (kind := cores_of(name)) is not None:
            by = out.setdefault(range_name, {})
            by[kind] = by.get(kind, 0) + ns
    return out


@pytest.mark.slow
def test_each_precision_on_the_cores_it_uses(nsys_figures: dict) -> None:
    """flops_nsys: bf16 on tensor cores (nvjet, cuDNN's wgmma attention, CUTLASS's bf16
    tensorop), tf32 on tensor cores (cuBLAS's tf32 xmma, CUTLASS's s1688 tensorop), fp32 on
    CUDA cores (cuBLAS's ffma, CUTLASS's simt sgemm) but for the memory-efficient attention,
    TF32 tensor cores at FP32 accuracy. Every matrix name of NVIDIA's kernel sums is decided,
    none unknown, and the ranges hold every matrix kernel of the report."""
    reference = _nsys_kernel_sums(NSYS_CASES["flops/flops_nsys"])
    assert {cores_of(n) for n in reference} == {"tensor", "cuda", None}
    by_range = _sqlite_matrix_time_by_range(inflated("flops/flops_nsys.sqlite"))
    assert set(by_range["bf16"]) == set(by_range["tf32"]) == {"tensor"}
    fp32 = by_range["fp32"]
    assert fp32["cuda"] > 0.9 * (fp32["cuda"] + fp32["tensor"])
    assert fp32["cuda"] == sum(ns for n, ns in reference.items()
                               if "_ffma_" in n or "_simt_sgemm_" in n) == 497_552_216
    got = nsys_figures["flops/flops_nsys"]
    assert got["cuda_core_ns"] == fp32["cuda"]
    assert got["tensor_core_ns"] == sum(r.get("tensor", 0) for r in by_range.values())
    assert got["unknown_ns"] == 0


def test_kineto_equals_the_traces_own_kernel_times() -> None:
    path = sample("gappy_training.pt.trace.json.gz")
    times: dict[str, int] = {}
    for e in oracle.chrome_events(path):
        if e.get("ph") == "X" and e.get("cat") == "kernel":
            times[e["name"]] = times.get(e["name"], 0) + oracle.ns(e["dur"])
    got, _, _ = _figures(path)
    for figure, ns in _by_kind(times).items():
        assert got[figure] == pytest.approx(ns, rel=0.001), figure
    assert got["cuda_core_ns"] > 0.8 * got["gemm_ns"]


def test_xla_equals_xprofs_kernel_times() -> None:
    """cuBLAS's TF32 kernels on tensor cores; XLA's Triton GEMM fusions unknown by name."""
    folder = run_folder("jax_train")
    events = xla_oracle.read_events(folder / "vm.trace.json.gz")
    times = {n: t for n, (_, t) in xla_oracle.kernels_by_name(events).items()}
    got, kernels, _ = _figures(folder / "vm.xplane.pb")
    expected = _by_kind(times)
    for figure, ns in expected.items():
        assert got[figure] == pytest.approx(ns, rel=0.001), figure
    assert expected["tensor_core_ns"] > 0 and expected["unknown_ns"] > 0
    assert {k.cores for k in kernels if k.name.startswith("gemm_fusion_dot")} == {"unknown"}


def test_the_specific_marker_wins() -> None:
    assert cores_of("sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x128x8_stage3_warpsize"
                    "4x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas") == "cuda"
    assert cores_of("sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32_warpgroupsize"
                    "1x1x1_execute_segment_k_off_kernel__5x_cublas") == "tensor"
    assert cores_of("fmha_cutlassF_f32_aligned_64x64_rf_sm80(PyTorchMemEffAttention::"
                    "AttentionKernel<float, cutlass::arch::Sm80, true, 64, 64, 64, true, "
                    "true>::Params)") == "tensor"
    assert cores_of("fmha_cutlassF_f32_aligned_64x64_rf_sm75(x)") == "cuda"
    assert cores_of("void cublasLt::splitKreduce_kernel<32, 16, int, float>(x)") is None
    assert cores_of("void cudnn::fusion::convert_dq_to_16bits<true>(void const*)") is None
    assert cores_of("void at::native::GammaBetaBackwardCUDAKernelTemplate<float>(x)") is None
    assert cores_of("gemm_fusion_dot_10") == "unknown"
    # torch.compile's kernels: its GEMM templates unknown, its fused pointwise ones none
    assert cores_of("triton_tem_fused_mm_0") == "unknown"
    assert cores_of("triton_poi_fused_addmm_gelu_0") is None


def test_fp32_gemms_on_cuda_cores_are_a_finding() -> None:
    with open_trace(sample("gappy_training.sqlite")) as trace:
        stats = kernel_stats(trace.con)
        found, _ = findings(trace.con, device_busy(trace.con), stats, [], 1_000_000, 0)
        figures = gemm_tensor_cores(matrix_kernels(trace.con), sum(k.total_ns for k in stats))
    (finding,) = [f for f in found if f.rule == "gemm_cuda_cores"]
    assert finding.severity == "warning"
    assert finding.cost_ns == figures["cuda_core_ns"] == 104_068_713
    assert finding.text.startswith("75% of GPU kernel time (104 ms) in matrix kernels on "
                                   "CUDA cores, the longest sm80_xmma_gemm_f32f32_f32f32")
    assert "FP32 GEMMs, 104 ms: TF32 (torch.backends.cuda.matmul.allow_tf32" in finding.text
    assert "bf16 autocast would use tensor cores." in finding.text
    assert "gemv" not in finding.text and "FP64" not in finding.text
    assert [r["name"] for r in finding.rows][:1] == [figures["top_cuda_core"][0]["name"]]
    assert {r["kind"] for r in finding.rows} == {"fp32"}
    assert sum(r["total_ns"] for r in finding.rows) == finding.cost_ns


def test_matrix_vector_products_get_no_precision_advice() -> None:
    """launch_bound_inference: cuBLAS's gemvx::kernel<…float…>, 68% of its kernel time, on
    CUDA cores in FP32, yet memory-bound: no TF32 advice, an info."""
    with open_trace(sample("launch_bound_inference.pt.trace.json.gz")) as trace:
        kernels = matrix_kernels(trace.con)
        total = sum(k.total_ns for k in kernel_stats(trace.con))
    finding = cuda_core_finding(kernels, total, "kineto")
    assert finding is not None and finding.severity == "info"
    assert finding.cost_ns == 10_016_563
    assert "Matrix-vector products (gemv), 10 ms: bound by memory" in finding.text
    assert "TF32" not in finding.text and "FP32 GEMMs" not in finding.text


def test_the_kind_of_each_cuda_core_name() -> None:
    """The names as cuBLAS, CUTLASS and PyTorch spell them (FP64 from cuBLAS's Volta and
    Ampere kernels: no bundled recording runs FP64)."""
    assert cuda_kind("sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x128x8_stage3_"
                     "warpsize4x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas") == "fp32"
    assert cuda_kind("void cutlass::Kernel2<cutlass_80_simt_sgemm_128x256_8x4_nt_align1>"
                     "(T1::Params)") == "fp32"
    assert cuda_kind("naive_sgemm(float const*, float const*, float*, int)") == "fp32"
    assert cuda_kind("std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, "
                     "float, float, float, float, false, true, true, false, 7, false, "
                     "cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<float const>, "
                     "cublasGemvTensorStridedBatched<float const>, "
                     "cublasGemvTensorStridedBatched<float>, float> >(x)") == "gemv"
    assert cuda_kind("volta_dgemm_64x64_nn") == "fp64"
    assert cuda_kind("void cutlass::Kernel2<cutlass_80_simt_dgemm_128x128_8x4_nn_align1>"
                     "(T1::Params)") == "fp64"
    assert cuda_kind("void at::native::conv_depthwise2d_forward_kernel<1, float, int>(x)"
                     ) == "other"


def test_no_finding_where_the_gemms_use_tensor_cores() -> None:
    with open_trace(sample("multistream.sqlite")) as trace:
        kernels = matrix_kernels(trace.con)
        total = sum(k.total_ns for k in kernel_stats(trace.con))
    assert {k.cores for k in kernels} == {"tensor"}
    assert cuda_core_finding(kernels, total, "nsys") is None


@pytest.mark.slow
def test_the_text_lines_put_the_counters_first(nsys_loaded: dict) -> None:
    assert nsys_loaded["loop_compute"][2] == [
        "Tensor cores (counters): Tensor Active 65.8% over GPU 0's busy span",
        "Matrix kernels (by name): 1.69 s, 100% of kernel time: tensor cores 1.69 s (100%)"]
    assert nsys_loaded["gappy_training"][2] == [  # no counters recorded
        "Matrix kernels (by name): 113 ms, 81% of kernel time: tensor cores 8.6 ms (8%), "
        "CUDA cores 104 ms (92%)"]


def test_every_rule_is_documented() -> None:
    page = (ROOT / "docs" / "tensor_cores.md").read_text()
    listed = re.findall(r"^\d+\. `([^`]+)` → \*\*(\w+)\*\*", page, re.MULTILINE)
    assert listed == [(r.pattern, r.cores) for r in RULES]


def _oracle_gemm_kernels(path: Path, multiple: int) -> dict[tuple, tuple[int, int, int]]:
    """(op, m, n, k) -> (calls, kernels, ns) of the trace's aten::mm and aten::addmm events
    with a dimension not a multiple of `multiple`, read with Python's json module: the
    kernels of the runtime calls on the op's thread inside its span."""
    events = [e for e in oracle.chrome_events(path) if e.get("ph") == "X"]
    runtime = [e for e in events if e.get("cat") in ("cuda_runtime", "cuda_driver")]
    kernels: dict[int, list[int]] = {}
    for e in events:
        if e.get("cat") == "kernel":
            kernels.setdefault(int(e["args"]["correlation"]), []).append(oracle.ns(e["dur"]))
    out: dict[tuple, list[int]] = {}
    for e in events:
        if e.get("cat") != "cpu_op" or e["name"] not in ("aten::mm", "aten::addmm"):
            continue
        dims = e["args"]["Input Dims"]
        a, b = dims[1:3] if e["name"] == "aten::addmm" else dims[:2]
        key = (e["name"], a[-2], b[-1], a[-1])
        if all(v % multiple == 0 for v in key[1:]):
            continue
        start, end = oracle.ns(e["ts"]), oracle.ns(e["ts"]) + oracle.ns(e["dur"])
        times = [t for r in runtime
                 if (r["pid"], r["tid"]) == (e["pid"], e["tid"])
                 and start <= oracle.ns(r["ts"]) and oracle.ns(r["ts"]) + oracle.ns(r["dur"]) <= end
                 for t in kernels.get(int(r["args"]["correlation"]), [])]
        row = out.setdefault(key, [0, 0, 0])
        row[0] += 1
        row[1] += len(times)
        row[2] += sum(times)
    return {key: (calls, n, ns) for key, (calls, n, ns) in out.items()}


VOCAB = 50_257  # flops_*'s vocabulary: the output projection's n, and m or k in backward


def test_unaligned_gemms_and_their_kernels_equal_the_traces_own() -> None:
    """flops_bf16 (record_shapes on): the output projection and its two backward GEMMs
    have the vocabulary, 50,257, as a dimension; each op and shape with its kernels' time
    equals the raw JSON's. cuBLAS ran them in CUTLASS's sm75 align1 kernels, the aligned
    GEMMs in nvjet."""
    path = sample("flops/flops_bf16.pt.trace.json.gz")
    with open_trace(path) as trace:
        gemms = unaligned_gemms(trace.con)
        stats = kernel_stats(trace.con)
        found, _ = findings(trace.con, device_busy(trace.con), stats, [], 1_000_000, 0)
    expected = _oracle_gemm_kernels(path, 8)
    assert {(g.op, g.m, g.n, g.k): (g.calls, g.kernels, g.ns) for g in gemms} == expected
    assert set(expected) == {("aten::mm", 4096, VOCAB, 1024), ("aten::mm", 4096, 1024, VOCAB),
                             ("aten::mm", VOCAB, 1024, 4096)}
    assert {g.cores for g in gemms} == {"tensor"}
    assert all("_tensorop_bf16_s1688gemm_" in n and "_align1>" in n
               for g in gemms for n in g.names)
    (finding,) = [f for f in found if f.rule == "gemm_alignment"]
    assert finding.severity == "warning"
    assert finding.cost_ns == sum(ns for _, _, ns in expected.values()) == 41_601_042
    assert finding.text.startswith("12 GEMM calls (41.6 ms of kernels) with a dimension not "
                                   "a multiple of 8, e.g. aten::mm m=4096 n=50257 k=1024 "
                                   "(c10::BFloat16, 17.7 ms): tensor cores want multiples of 8")


def test_unaligned_fp32_gemms_on_cuda_cores_cost_nothing() -> None:
    """flops_fp32 (no TF32): the same three shapes ran in CUDA-core kernels (simt, ffma):
    padding is not what speeds them, TF32 or bf16 is; an info at no cost."""
    with open_trace(sample("flops/flops_fp32.pt.trace.json.gz")) as trace:
        gemms = unaligned_gemms(trace.con)
    assert len(gemms) == 3 and {g.cores for g in gemms} == {"cuda"}
    finding = unaligned_finding(gemms)
    assert finding is not None and finding.severity == "info" and finding.cost_ns == 0
    assert "all on CUDA cores (FP32 without TF32)" in finding.text
    assert "tensor cores want" not in finding.text
    assert [r["cores"] for r in finding.rows] == ["cuda"] * 3


def test_no_alignment_finding_where_every_gemm_is_aligned() -> None:
    """gappy_training's aten::mm/addmm are all of the model's 1024/2048/3072/4096."""
    with open_trace(sample("gappy_training.pt.trace.json.gz")) as trace:
        assert trace.con.execute("SELECT count(*) FROM gemm_shapes").fetchone() == (240,)
        assert unaligned_gemms(trace.con) == []
        stats = kernel_stats(trace.con)
        found, _ = findings(trace.con, device_busy(trace.con), stats, [], 1_000_000, 0)
    assert "gemm_alignment" not in {f.rule for f in found}


def test_shapes_are_kept_where_recorded() -> None:
    with open_trace(sample("tuned_training.pt.trace.json.gz")) as trace:
        assert trace.con.execute("SELECT count(*) FROM gemm_shapes").fetchone() == (240,)
    with open_trace(sample("bound_compute.pt.trace.json.gz")) as trace:  # aten::mm, no shapes
        assert trace.con.execute("SELECT count(*) FROM gemm_shapes").fetchone() == (0,)
        assert unaligned_gemms(trace.con) == []


def test_a_compute_bound_diagnosis_says_where_the_matrix_math_ran() -> None:
    """flops_fp32 (no TF32, no counters) is compute-bound; its diagnosis adds, as context,
    the CUDA cores' share of the matrix kernels' time, read here from the raw JSON."""
    path = sample("flops/flops_fp32.pt.trace.json.gz")
    times: dict[str, int] = {}
    for e in oracle.chrome_events(path):
        if e.get("ph") == "X" and e.get("cat") == "kernel":
            times[e["name"]] = times.get(e["name"], 0) + oracle.ns(e["dur"])
    expected = _by_kind(times)
    with open_trace(path) as trace:
        diagnosis = trace_summary(trace, 1_000_000)["diagnosis"]
    assert diagnosis["bound"] == "compute"
    share = 100 * expected["cuda_core_ns"] / sum(expected.values())
    assert f"{share:.0f}" == "95"
    assert diagnosis["text"].endswith(
        "Over the trace, by the kernels' names, 95% of the matrix kernels' 209 ms ran on "
        "CUDA cores (FP32 GEMMs).")
