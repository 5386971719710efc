"""Which matrix kernels (GEMMs, convolutions, attention) ran on tensor cores and which on
CUDA cores, read from the kernels' names: for the traces without hardware counters (most
Kineto and XLA traces, nsys without --gpu-metrics-devices). docs/tensor_cores.md gives each
rule with the names it was checked on.

The rules are tried in order and the first whose pattern the name contains (any case)
decides; a name no rule matches is not a matrix kernel. The specific marker comes before
the general one: `sm80_xmma_gemm_f32f32_f32f32_f32_…_ffma_…` says xmma (a cuBLAS/cuDNN
kernel family with and without tensor cores) and ffma (FP32 fused multiply-add, CUDA
cores), and ffma decides. A name that looks like a matrix kernel but says nothing of how it
computes is "unknown", never guessed.

The patterns are RE2 and Python `re` alike (no look-around): DuckDB runs them over the
trace's kernels (gemm_cores.sql); `cores_of` runs them in Python over names from elsewhere.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

import duckdb

from tui.analysis.finding import Finding
from tui.analysis.summary_types import Diagnosis, GemmTensorCores, NamedTime
from tui.core.queries import load_query
from tui.core.units import format_ns

Cores = Literal["tensor", "cuda", "unknown", "none"]


@dataclass(frozen=True)
class Rule:
    pattern: str  # searched for in the kernel's name, any case
    cores: Cores  # 'none': not a matrix multiply, though named like one
    why: str


# Markers of precision inside a GEMM or convolution kernel's name (cuBLAS and cuDNN's
# `sm90_xmma_gemm_f32f32_tf32f32_…`, `ampere_bf16_s16816gemm_…`): each is a tensor-core type
_HALF_TYPES = r"(tf32|bf16|f16|fp16|e4m3|e5m2|fp8|i8i8|int8)"
_MATRIX_WORDS = r"(gemm|xmma|cutlass|matmul|fprop|dgrad|wgrad)"

RULES: tuple[Rule, ...] = (
    Rule(r"splitkreduce|splitk_reduce|reducesplitk", "none",
         "the split-K reduction after a GEMM (cublasLt::splitKreduce_kernel, CUTLASS "
         "ReduceSplitK): it adds the partial products, it multiplies no matrices"),
    Rule(r"im2col|col2im", "none",
         "the copies that lay a convolution's input out for a GEMM"),
    Rule(r"triton_(poi|red|per)_", "none",
         "torch.compile's pointwise and reduction kernels, named after the ops they fuse "
         "(triton_poi_fused_addmm_gelu_0, triton_red_fused_convolution_backward_0): no "
         "matrix product"),
    Rule(r"simt", "cuda",
         "CUTLASS's SIMT kernels (OpClassSimt: cutlass_80_simt_sgemm_…): FMA on CUDA cores"),
    Rule(r"ffma", "cuda",
         "cuBLAS/cuDNN xmma kernels name their math instruction: ffma is the FP32 fused "
         "multiply-add of the CUDA cores (sm80_xmma_gemm_f32f32_f32f32_f32_…_ffma_…)"),
    Rule(r"gemv", "cuda",
         "matrix-vector products (cuBLAS gemv, gemvx::kernel): memory-bound FMA loops"),
    Rule(r"depthwise", "cuda",
         "PyTorch's depthwise convolutions (conv_depthwise2d_…): direct FMA loops"),
    Rule(r"wgmma|hmma|imma|dmma", "tensor",
         "the tensor-core instruction in the name: wgmma (Hopper's warpgroup MMA, e.g. "
         "cuDNN's …_sdpa_sm90_flash_fprop_wgmma_f16_…), hmma (FP16/BF16/TF32), imma (INT8), "
         "dmma (FP64)"),
    Rule(r"tensorop|tensor_op", "tensor",
         "CUTLASS's tensor-op kernels (OpClassTensorOp: cutlass_tensorop_s1688fprop_…_tf32_…, "
         "cutlass_80_tensorop_…)"),
    Rule(r"tensor[0-9]+x[0-9]+x[0-9]+", "tensor",
         "cuBLAS/cuDNN xmma kernels that name their MMA instruction's shape (…_tensor16x8x16_…)"),
    Rule(r"(884|1688|16816|8816|16832)(gemm|fprop|dgrad|wgrad)", "tensor",
         "the tensor-op instruction shape before gemm/fprop/dgrad/wgrad in cuBLAS and CUTLASS "
         "names (ampere_bf16_s16816gemm_…, volta_h884gemm_…, turing_s1688gemm_…)"),
    Rule(r"nvjet", "tensor",
         "cuBLAS 12.x/13's kernels for Hopper and Blackwell (nvjet_sm90_tst_…): warpgroup "
         "MMA for BF16/FP16/FP8/TF32 GEMMs; cuBLAS runs plain FP32 GEMMs in ffma kernels"),
    Rule(r"fmha_cutlass[fb]_f32.*_sm(50|70|75)", "cuda",
         "PyTorch's memory-efficient attention (xFormers' kernels), FP32 before sm80: "
         "DefaultGemmType falls back to SIMT"),
    Rule(r"fmha_cutlass[fb]_.*_sm50", "cuda",
         "the same attention kernels on sm50: no tensor cores"),
    Rule(r"fmha_cutlass[fb]_", "tensor",
         "the same kernels on sm80 and later in FP32 (OpClassTensorOp with "
         "OpMultiplyAddFastF32: TF32 tensor cores at FP32 accuracy) and in FP16/BF16"),
    Rule(r"flash_fwd|flash_bwd|flash_attn|flashattn", "tensor",
         "FlashAttention's kernels: FP16/BF16 only, mma.sync or wgmma"),
    Rule(f"{_MATRIX_WORDS}.*{_HALF_TYPES}|{_HALF_TYPES}.*{_MATRIX_WORDS}", "tensor",
         "a GEMM or convolution kernel named for a tensor-core type (TF32, BF16, FP16, FP8, "
         "INT8: sm90_xmma_gemm_f32f32_tf32f32_…, …_bf16bf16_…); its CUDA-core variants "
         "carry simt or ffma and are decided above"),
    Rule(r"dgemm", "cuda",
         "FP64 GEMMs without a tensor-core marker (FP64 tensor-core kernels say dmma or d884)"),
    Rule(r"sgemm", "cuda",
         "FP32 GEMMs without a tensor-core marker (ampere_sgemm_…, a hand-written naive_sgemm)"),
    Rule(r"gemm|xmma|cutlass|matmul|conv([^e]|$)|fprop|dgrad|wgrad|triton_tem|fmha|"
         r"attention|sdpa", "unknown",
         "named like a matrix kernel (XLA's gemm_fusion_dot_… Triton GEMMs, torch.compile's "
         "triton_tem_… templates, cuBLAS xmma kernels in FP32 without a math tag) but "
         "saying nothing of how it computes"),
)

TOP_CUDA_CORE = 10  # kernel names in top_cuda_core, the longest first
# CUDA-core matrix kernels taking this share of the summed kernel time or more: a finding
CUDA_CORE_FINDING_PCT = 5.0

# What a matrix kernel on CUDA cores is, from its name, for the advice that fits it: the
# first pattern found decides; a name none matches is 'other' (FP16 SIMT kernels, say).
CudaKind = Literal["gemv", "fp64", "fp32", "other"]
_CUDA_KINDS: tuple[tuple[re.Pattern[str], CudaKind], ...] = (
    (re.compile(r"gemv", re.IGNORECASE), "gemv"),  # in any precision
    (re.compile(r"depthwise", re.IGNORECASE), "other"),  # direct loops in any precision
    (re.compile(r"dgemm|dfma|f64|fp64|double", re.IGNORECASE), "fp64"),
    (re.compile(r"sgemm|ffma|f32|fp32|float", re.IGNORECASE), "fp32"),
)
_KIND_LABEL = {"fp32": "FP32 GEMMs", "gemv": "matrix-vector products (gemv)",
               "fp64": "FP64 GEMMs", "other": "other matrix kernels"}
# What makes FP32 matrix math use tensor cores, in the framework that made the trace
# (shared/reading: TF32 via allow_tf32 on A100/H100; mixed precision via autocast)
_FP32_ADVICE = {
    "xla": "TF32 (jax.default_matmul_precision('tensorfloat32')) or bf16 inputs would use "
           "tensor cores",
}
_FP32_ADVICE_DEFAULT = ("TF32 (torch.backends.cuda.matmul.allow_tf32 = True or "
                        "torch.set_float32_matmul_precision('high')) or bf16 autocast would "
                        "use tensor cores")
_KIND_ADVICE = {
    # a vector's worth of math per matrix element read: memory decides, not the cores
    "gemv": "bound by memory, not by the math: tensor cores would not speed them; batching "
            "the vectors into matrices (one GEMM) would",
    # FP64 tensor cores (dmma) are on data-centre GPUs from A100 on only
    "fp64": "FP64 on CUDA cores is expected on most GPUs (FP64 tensor cores, dmma, are on "
            "A100/H100-class GPUs only); no TF32 for them, lower precision only where the "
            "numerics allow",
    "other": "direct loops on CUDA cores (depthwise convolutions and the like): a "
             "tensor-core kernel would need the work laid out as a GEMM",
}


def cuda_kind(name: str) -> CudaKind:
    """What a matrix kernel on CUDA cores computes, for its advice: 'gemv', 'fp64', 'fp32'
    or 'other'."""
    for pattern, kind in _CUDA_KINDS:
        if pattern.search(name):
            return kind
    return "other"


_COMPILED = tuple((re.compile(r.pattern, re.IGNORECASE), r.cores) for r in RULES)


def cores_of(name: str) -> Cores | None:
    """Where the kernel named `name` did its matrix math: 'tensor', 'cuda' or 'unknown';
    None: not a matrix kernel (as the first matching rule says; gemm_cores.sql the same)."""
    for pattern, cores in _COMPILED:
        if pattern.search(name):
            return None if cores == "none" else cores
    return None


@dataclass(frozen=True)
class MatrixKernel:
    name: str
    cores: Cores
    count: int
    ns: int


def matrix_kernels(con: duckdb.DuckDBPyConnection) -> list[MatrixKernel]:
    """Every matrix kernel name with where it computed and its summed time, longest first."""
    rows = con.execute(load_query("gemm_cores"), {
        "patterns": [r.pattern for r in RULES], "cores": [r.cores for r in RULES],
    }).fetchall()
    return [MatrixKernel(*row) for row in rows]


def gemm_tensor_cores(kernels: list[MatrixKernel], kernel_ns: int) -> GemmTensorCores:
    """The summed time of the matrix kernels, on tensor cores, on CUDA cores and unknown,
    with the longest CUDA-core names; kernel_ns: every kernel's time, for the shares."""
    by = {c: sum(k.ns for k in kernels if k.cores == c) for c in ("tensor", "cuda", "unknown")}
    return {"gemm_ns": sum(by.values()), "tensor_core_ns": by["tensor"],
            "cuda_core_ns": by["cuda"], "unknown_ns": by["unknown"], "kernel_ns": kernel_ns,
            "top_cuda_core": [NamedTime(name=k.name, ns=k.ns)
                              for k in kernels if k.cores == "cuda"][:TOP_CUDA_CORE]}


def cuda_core_finding(kernels: list[MatrixKernel], kernel_ns: int,
                      source_format: str | None) -> Finding | None:
    """Matrix kernels on CUDA cores taking CUDA_CORE_FINDING_PCT of the kernel time or more,
    with the advice for each kind of them (FP32 GEMMs, gemv, FP64), the longest kind first.
    Cost: their time but FP64's (expected on CUDA cores); a warning where FP32 GEMMs alone
    reach the threshold, else an info. Rows: each name with its kind, launches and time."""
    cuda = [k for k in kernels if k.cores == "cuda"]
    cuda_ns = sum(k.ns for k in cuda)
    if not kernel_ns or 100 * cuda_ns / kernel_ns < CUDA_CORE_FINDING_PCT:
        return None
    by_kind: dict[CudaKind, int] = {}
    for k in cuda:
        by_kind[cuda_kind(k.name)] = by_kind.get(cuda_kind(k.name), 0) + k.ns
    advice = {**_KIND_ADVICE,
              "fp32": _FP32_ADVICE.get(source_format or "", _FP32_ADVICE_DEFAULT)}
    kinds = " ".join(f"{_upper_first(_KIND_LABEL[kind])}, {format_ns(ns)}: {advice[kind]}."
                     for kind, ns in sorted(by_kind.items(), key=lambda kv: -kv[1]))
    top = cuda[0]
    fp32_pct = 100 * by_kind.get("fp32", 0) / kernel_ns
    return Finding(
        "gemm_cuda_cores", "warning" if fp32_pct >= CUDA_CORE_FINDING_PCT else "info",
        f"{100 * cuda_ns / kernel_ns:.0f}% of GPU kernel time ({format_ns(cuda_ns)}) in "
        f"matrix kernels on CUDA cores, the longest {_short(top.name)} "
        f"({100 * top.ns / kernel_ns:.0f}%). {kinds}",
        cuda_ns - by_kind.get("fp64", 0),
        [{"name": k.name, "kind": cuda_kind(k.name), "count": k.count, "total_ns": k.ns}
         for k in cuda])


def with_matrix_phrase(diagnosis: Diagnosis, kernels: list[MatrixKernel]) -> Diagnosis:
    """A compute-bound diagnosis (its JSON) with where its matrix kernels computed, by their
    names, appended as context: for traces without hardware counters, whose Tensor Active
    would say it better (gpu_metrics.with_metrics_phrase). The advice is the findings'."""
    gemm_ns = sum(k.ns for k in kernels)
    if diagnosis.get("bound") != "compute" or not gemm_ns:
        return diagnosis
    cuda = [k for k in kernels if k.cores == "cuda"]
    cuda_ns = sum(k.ns for k in cuda)
    if 2 * cuda_ns >= gemm_ns:  # most of it on CUDA cores: say what runs there
        by_kind: dict[CudaKind, int] = {}
        for k in cuda:
            by_kind[cuda_kind(k.name)] = by_kind.get(cuda_kind(k.name), 0) + k.ns
        kind = max(by_kind, key=lambda c: by_kind[c])
        where = f"on CUDA cores ({_KIND_LABEL[kind]})"
        share = cuda_ns
    else:
        share = sum(k.ns for k in kernels if k.cores == "tensor")
        where = "on tensor cores"
    diagnosis["text"] = (f"{diagnosis['text']} Over the trace, by the kernels' names, "
                         f"{100 * share / gemm_ns:.0f}% of the matrix kernels' "
                         f"{format_ns(gemm_ns)} ran {where}.")
    return diagnosis


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def _short(name: str, width: int = 60) -> str:
    return name if len(name) <= width else name[: width - 1] + "…"


# GEMM dimensions tensor cores want: multiples of 8 (FP16/BF16), of 16 for 8-bit types
# (shared/reading: "Tensor Cores require dimensions aligned to 8 (FP16) or 16 (INT8)")
ALIGN = 8
ALIGN_8BIT = 16


@dataclass(frozen=True)
class UnalignedGemm:
    op: str
    m: int
    n: int
    k: int
    dtype: str | None
    multiple: int
    calls: int
    kernels: int
    ns: int
    names: list[str]  # the kernels' distinct names

    @property
    def cores(self) -> Cores | None:
        """Where its kernels computed: 'tensor' if any did on tensor cores, 'cuda' if all
        its matrix kernels ran on CUDA cores; None where it launched no matrix kernel."""
        found = {cores_of(n) for n in self.names} - {None}
        if not found:
            return None
        return "tensor" if "tensor" in found else "cuda" if found == {"cuda"} else "unknown"


def unaligned_gemms(con: duckdb.DuckDBPyConnection, multiple: int = ALIGN,
                    multiple_8bit: int = ALIGN_8BIT) -> list[UnalignedGemm]:
    """PyTorch's GEMM ops whose m, n or k is not a multiple of `multiple` (8-bit types:
    `multiple_8bit`), per op and shape, with the time of the kernels they launched; none
    where the trace recorded no shapes."""
    try:
        rows = con.execute(load_query("gemm_unaligned"),
                           {"multiple": multiple, "multiple_8bit": multiple_8bit}).fetchall()
    except duckdb.CatalogException:  # a store written before shapes were kept
        return []
    return [UnalignedGemm(op, m, n, k, dtype, multiple, calls, kernels, ns, list(names or []))
            for op, m, n, k, dtype, multiple, calls, kernels, ns, names in rows]


def unaligned_finding(gemms: list[UnalignedGemm]) -> Finding | None:
    """GEMMs whose dimensions are not multiples of 8 (16 for 8-bit types): tensor cores
    run them padded or on slower kernels. Cost: their kernels' time. Those whose kernels all
    ran on CUDA cores (FP32 without TF32) are named apart at no cost: alignment is a
    tensor-core matter, and what speeds them is TF32 or bf16 first (gemm_cuda_cores)."""
    if not gemms:
        return None
    on_tensor = [g for g in gemms if g.cores != "cuda"]
    on_cuda = [g for g in gemms if g.cores == "cuda"]
    rows = [{"op": g.op, "m": g.m, "n": g.n, "k": g.k, "dtype": g.dtype,
             "multiple": g.multiple, "cores": g.cores, "calls": g.calls,
             "kernels": g.kernels, "total_ns": g.ns} for g in on_tensor + on_cuda]
    if not on_tensor:
        return Finding("gemm_alignment", "info",
                       f"{_calls_text(on_cuda)}, {_on_cuda_cores_text('all')}.", 0, rows)
    ns = sum(g.ns for g in on_tensor)
    more = f"; {_on_cuda_cores_text(f'{sum(g.calls for g in on_cuda):,} more')}" \
        if on_cuda else ""
    return Finding("gemm_alignment", "warning" if ns else "info", (
        f"{_calls_text(on_tensor)}: tensor cores want multiples of 8 (16 for int8/fp8); pad "
        f"the hidden, vocabulary or batch sizes to them{more}."
    ), ns, rows)


def _calls_text(gemms: list[UnalignedGemm]) -> str:
    calls = sum(g.calls for g in gemms)
    top = gemms[0]
    return (f"{calls:,} GEMM call{'s' if calls != 1 else ''} "
            f"({format_ns(sum(g.ns for g in gemms))} of kernels) with a dimension not a "
            f"multiple of {top.multiple}, e.g. {top.op} m={top.m} n={top.n} k={top.k} "
            f"({top.dtype or '?'}, {format_ns(top.ns)})")


def _on_cuda_cores_text(which: str) -> str:
    return (f"{which} on CUDA cores (FP32 without TF32), where alignment is not what limits "
            f"them: TF32 or bf16 first (gemm_cuda_cores), then pad them")
