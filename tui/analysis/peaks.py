"""The GPUs' peak arithmetic throughput per precision, for MFU (tui/analysis/flops.py).

Dense figures in TFLOP/s (TOPS for int8), from NVIDIA's datasheets: where a datasheet
gives the tensor-core figures with sparsity (marked there with an asterisk: H100, H200,
L4, L40S), half of it, the dense rate, which is what a dense GEMM can reach. fp32 is the
CUDA cores' rate (no tensor cores); fp64 the FP64 tensor cores' where the GPU has them
(A100, H100, H200), left out where the datasheet gives none. docs/summary.md prints the
table. A GPU not named here, or a precision it has no figure for, gets achieved FLOP/s but
no MFU.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PRECISIONS = ("bf16", "fp16", "tf32", "fp32", "fp64", "fp8", "int8")


@dataclass(frozen=True)
class GpuPeaks:
    name: str  # as the docs name it: 'H200 SXM'
    pattern: str  # a regular expression over the device name the trace gives
    tflops: dict[str, float]  # precision -> dense peak, TFLOP/s


def _peaks(bf16: float, tf32: float, fp32: float, fp64: float | None, fp8: float | None,
           int8: float | None) -> dict[str, float]:
    """fp16's dense tensor-core rate is bf16's on all of these; None: no figure given."""
    given = {"bf16": bf16, "fp16": bf16, "tf32": tf32, "fp32": fp32, "fp64": fp64,
             "fp8": fp8, "int8": int8}
    return {precision: tflops for precision, tflops in given.items() if tflops is not None}


# First match wins: the NVL and PCIe cards before the SXM parts of the same name
# ('NVIDIA H100 80GB HBM3' is the SXM5 part; 'NVIDIA H200' the SXM one).
GPUS: tuple[GpuPeaks, ...] = (
    GpuPeaks("H200 NVL", r"H200 NVL", _peaks(835.5, 417.5, 60, 60, 1670.5, 1670.5)),
    GpuPeaks("H200 SXM", r"H200", _peaks(989.5, 494.5, 67, 67, 1979, 1979)),
    GpuPeaks("H100 NVL", r"H100 NVL", _peaks(835.5, 417.5, 60, 60, 1670.5, 1670.5)),
    GpuPeaks("H100 PCIe", r"H100.*PCIe", _peaks(756.5, 378, 51, 51, 1513, 1513)),
    GpuPeaks("H100 SXM", r"H100", _peaks(989.5, 494.5, 67, 67, 1979, 1979)),
    GpuPeaks("A100", r"A100", _peaks(312, 156, 19.5, 19.5, None, 624)),
    GpuPeaks("L40S", r"L40S", _peaks(362.05, 183, 91.6, None, 733, 733)),
    GpuPeaks("L4", r"\bL4\b", _peaks(121, 60, 30.3, None, 242.5, 242.5)),
    GpuPeaks("A10", r"\bA10\b", _peaks(125, 62.5, 31.2, None, None, 250)),
)


def gpu_peaks(device: str | None) -> GpuPeaks | None:
    """The peaks of the GPU named `device` (as the trace names it), None when unknown."""
    for gpu in GPUS:
        if device and re.search(gpu.pattern, device, re.IGNORECASE):
            return gpu
    return None


def peak_flops_per_s(device: str | None, precision: str | None) -> float | None:
    """The dense peak in FLOP/s of `device` for `precision`; None when unknown."""
    gpu = gpu_peaks(device)
    if gpu is None or precision is None or precision not in gpu.tflops:
        return None
    return gpu.tflops[precision] * 1e12
