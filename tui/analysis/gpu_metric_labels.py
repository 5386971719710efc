"""How the GPU metrics are named and told apart in text: short headings, the NVLink figure,
which NVTX ranges are steps. Plain Python: the summary's text imports it without DuckDB."""

from __future__ import annotations

import re

from tui.core.gpu_metric_names import (
    DRAM_READ,
    DRAM_WRITE,
    NVLINK,
    PCIE_RX,
    PCIE_TX,
    SM,
    SM_ISSUE,
    TENSOR,
    WARPS,
)
from tui.core.steps import PROFILER_STEP, STEP_NAME

# short headings for tables and lane labels, by metric name
SHORT = {SM: "SM", SM_ISSUE: "issue", TENSOR: "tensor", WARPS: "warps", DRAM_READ: "DRAM rd",
         DRAM_WRITE: "DRAM wr", PCIE_RX: "PCIe rx", PCIE_TX: "PCIe tx",
         "GR Active [Throughput %]": "GR"}

# the steps' patterns are DuckDB's (RE2, the flag inside); Python's re wants it first
_STEP = re.compile(f"{PROFILER_STEP}|{STEP_NAME.replace('(?i)', '')}", re.IGNORECASE)


def nvlink(mean: dict[str, float]) -> float | None:
    """The busiest NVLink direction's user data (nsys), or its bytes (CUPTI's nvlrx__ /
    nvltx__bytes, as XLA samples them), as a share of its peak."""
    values = [v for k, v in mean.items()
              if k.startswith(NVLINK) and ("User Data" in k or "Bytes" in k)]
    return max(values) if values else None


def is_step(name: str) -> bool:
    return bool(_STEP.search(name))
