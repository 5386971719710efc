"""The summary's line on tensor cores: the hardware counters' Tensor Active where the
report has them (the measured figure), then the matrix kernels' time by where their names
say they computed (tui/analysis/tensor_cores.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console

from tui.core.gpu_metric_names import TENSOR
from tui.core.safe_text import plain
from tui.core.units import format_ns


def tensor_core_lines(summary: Mapping[str, Any]) -> list[str]:
    """'Tensor cores (counters): …' per GPU where counted (in the window of work, then
    over its busy span), then 'Matrix kernels: …'; none
    when the trace has neither counters nor matrix kernels."""
    counters = summary.get("gpu_metrics") or {}
    # the window of work's figure first where the summary has one: the busy span holds the
    # set-up's idle stretches too, and reads low beside the diagnosis
    in_window = {w["device"]: w["mean"][TENSOR] for w in counters.get("window", [])
                 if TENSOR in w["mean"]}
    lines = ["Tensor cores (counters): Tensor Active "
             + (f"{in_window[w['device']]:.1f}% in the window of work, "
                if w["device"] in in_window else "")
             + f"{w['mean'][TENSOR]:.1f}% over "
             + (f"rank {w['rank']}'s " if "rank" in w else "")  # a run's: each rank's GPU
             + f"GPU {w['device']}'s busy span"
             for w in counters.get("whole", []) if TENSOR in w["mean"]]
    gemm = summary.get("gemm_tensor_cores")
    if gemm and gemm["gemm_ns"]:
        total = gemm["gemm_ns"]
        parts = [f"{label} {format_ns(gemm[key])} ({100 * gemm[key] / total:.0f}%)"
                 for label, key in (("tensor cores", "tensor_core_ns"),
                                    ("CUDA cores", "cuda_core_ns"), ("unknown", "unknown_ns"))
                 if gemm[key]]
        share = (f", {100 * total / gemm['kernel_ns']:.0f}% of kernel time"
                 if gemm["kernel_ns"] else "")
        lines.append(f"Matrix kernels (by name): {format_ns(total)}{share}: "
                     + ", ".join(parts))
    return lines


def print_tensor_cores(summary: Mapping[str, Any], console: Console) -> None:
    for line in tensor_core_lines(summary):
        console.print(plain(line))
