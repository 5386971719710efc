"""How a collective is named and shown in text: the NCCL kernel's short name, the columns
of the bandwidth table. Plain Python: a kept run's text imports it without DuckDB."""

from __future__ import annotations

import re

from tui.analysis.summary_types import CollectiveBandwidth
from tui.core.units import format_ns

COLUMNS = ("collective", "bytes", "ranks", "instances", "transfer", "algbw", "busbw",
           "link peak", "wait")
_NCCL_KERNEL = re.compile(r"nccl(?:Dev)?Kernel_([A-Za-z0-9_]+)")


def collective_label(name: str | None) -> str:
    """'ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)' -> 'AllReduce_Sum_f32_RING_LL'."""
    if not name:
        return "-"
    match = _NCCL_KERNEL.search(name)
    return match.group(1) if match else (name if len(name) <= 60 else name[:59] + "…")


def bandwidth_cells(row: CollectiveBandwidth) -> tuple[str, ...]:
    """A row as the text of COLUMNS (GB/s; busbw with its share of the link's peak)."""
    peak = row["link_peak_gbps"]
    share = f" ({100 * row['busbw_gbps_median'] / peak:.0f}%)" if peak else ""
    return (row["name"], f"{row['bytes']:,}", str(row["group_size"]),
            f"{row['instances']:,}", format_ns(row["transfer_ns_median"]),
            f"{row['algbw_gbps_median']:.1f} GB/s",
            f"{row['busbw_gbps_median']:.1f} GB/s{share}",
            f"{peak:.0f} GB/s" if peak else "-", format_ns(row["wait_ns_median"]))
