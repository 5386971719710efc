"""The GPU hardware counters tui keeps, named as Nsight Systems writes them
(`--gpu-metrics-devices`), the vocabulary of gpu_metric_names for every source (an XLA
profile's CUPTI metrics are mapped to them by tui/sources/cupti_metrics.py).

A GPU samples 20-30 metrics; the summary, the tables and the timeline read the shares of
peak below and NVLink's. The rest (clocks, graphics warps, the warp counts also given
as '[Throughput %]', unallocated warps) are not loaded: at 10 kHz they would be over half
of a report's rows and of its load time, for nothing shown.
"""

from __future__ import annotations

GR = "GR Active [Throughput %]"
SM = "SMs Active [Throughput %]"
SM_ISSUE = "SM Issue [Throughput %]"
TENSOR = "Tensor Active [Throughput %]"
WARPS = "Compute Warps in Flight [Throughput %]"
DRAM_READ = "DRAM Read Bandwidth [Throughput %]"
DRAM_WRITE = "DRAM Write Bandwidth [Throughput %]"
PCIE_RX = "PCIe RX Throughput [Throughput %]"
PCIE_TX = "PCIe TX Throughput [Throughput %]"
# the metrics the summary reports, in this order, where the report has them; NVLink's
# come after them, as many as the GPU samples ('NVLink RX Responses User Data [...]')
REPORTED = (GR, SM, SM_ISSUE, TENSOR, WARPS, DRAM_READ, DRAM_WRITE, PCIE_RX, PCIE_TX)
NVLINK = "NVLink"
SHARE = "[Throughput %]"


def is_kept(name: str) -> bool:
    """Whether the metric of this name is loaded: one of REPORTED, or an NVLink share."""
    return name in REPORTED or (name.startswith(NVLINK) and name.endswith(SHARE))
