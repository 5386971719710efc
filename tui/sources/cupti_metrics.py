"""CUPTI's PM-sampling metrics (as XLA's `gpu_pm_sample_counters` asks for them) under the
names tui keeps GPU counters by, Nsight Systems' (tui/core/gpu_metric_names.py).

Nsight Systems' GPU metrics are themselves CUPTI PM-sampling metrics; CUPTI's guide lists
which one each of nsys's names is (its "PM sampling" metrics table): SMs Active is
sm__cycles_active.avg.pct_of_peak_sustained_elapsed, Tensor Active
sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed, DRAM Read / Write
Bandwidth dramc__read_throughput / dramc__write_throughput (.avg.pct_of_peak_sustained_elapsed),
PCIe RX / TX pcie__read_bytes / pcie__write_bytes (.avg.pct_of_peak_sustained_elapsed), and
so on. A metric named here is read under its name; where a recording holds two metrics of one
name (the tensor pipe's `_realtime` form and its HMMA-only form), the first of METRICS wins.

Left out, on purpose: byte counts (`pcie__read_bytes.sum`, `nvlrx__bytes.sum`): a share of
the link's peak needs the link's generation and width, which nsys reads from the GPU and
an XSpace does not record; ask CUPTI for the `.avg.pct_of_peak_sustained_elapsed` form
instead. Any metric not named here is not loaded.
"""

from __future__ import annotations

from tui.core.gpu_metric_names import (
    DRAM_READ,
    DRAM_WRITE,
    GR,
    PCIE_RX,
    PCIE_TX,
    SM,
    SM_ISSUE,
    TENSOR,
)

NVLINK_RX = "NVLink RX Bytes [Throughput %]"
NVLINK_TX = "NVLink TX Bytes [Throughput %]"
_PCT = ".avg.pct_of_peak_sustained_elapsed"

# CUPTI metric -> tui's name, in the order of preference among metrics of one name
METRICS: dict[str, str] = {
    "gr__cycles_active.sum.pct_of_peak_sustained_elapsed": GR,
    "gr__cycles_active" + _PCT: GR,
    "sm__cycles_active" + _PCT: SM,
    "sm__inst_executed_realtime" + _PCT: SM_ISSUE,
    # the tensor pipes, all instruction kinds; then the HMMA (fp16/bf16/tf32) pipe alone,
    # which is Tensor Active for programs that use no int8 or fp64 tensor instructions
    "sm__pipe_tensor_cycles_active_realtime" + _PCT: TENSOR,
    "sm__pipe_tensor_cycles_active" + _PCT: TENSOR,
    "sm__pipe_tensor_op_hmma_cycles_active_realtime" + _PCT: TENSOR,
    "sm__pipe_tensor_op_hmma_cycles_active" + _PCT: TENSOR,
    # the DRAM controller's view (nsys's), then the DRAM's own bytes over its peak
    "dramc__read_throughput" + _PCT: DRAM_READ,
    "dram__read_throughput" + _PCT: DRAM_READ,
    "dramc__write_throughput" + _PCT: DRAM_WRITE,
    "dram__write_throughput" + _PCT: DRAM_WRITE,
    "pcie__read_bytes" + _PCT: PCIE_RX,
    "pcie__write_bytes" + _PCT: PCIE_TX,
    "nvlrx__bytes" + _PCT: NVLINK_RX,
    "nvltx__bytes" + _PCT: NVLINK_TX,
}


def kept_names(metrics: list[str]) -> dict[str, str]:
    """{CUPTI metric: tui's name} of the `metrics` a recording holds that tui keeps, one
    metric per name (the first of METRICS); the others are left out."""
    order = list(METRICS)
    chosen: dict[str, str] = {}
    for metric in sorted((m for m in set(metrics) if m in METRICS), key=order.index):
        if METRICS[metric] not in chosen.values():
            chosen[metric] = METRICS[metric]
    return chosen
