"""What the collectives of a distributed run achieved: algorithm and bus bandwidth per
(collective, message size), as nccl-tests defines them, beside the GPUs' link peak.

The figures come from queries/analysis/rank_collective_bandwidth.sql over the instances
matched across ranks (tui/analysis/ranks.py); sizes need the calls: c10d's (Kineto's
record_param_comms), an XLA program's HLO collectives, or NCCL's NVTX payloads in an nsys
export that kept them (tui/sources/nsys_collectives.py); a run without any has no rows.
"""

from __future__ import annotations

import re

import duckdb

from tui.analysis.ranks import ensure_rank_tables
from tui.analysis.summary_types import CollectiveBandwidth
from tui.core.queries import load_query

# The peak of one GPU's NVLink, per direction (GB/s), by its name: NVIDIA's datasheets
# give the total of both directions (H100/H200 SXM, GH200: NVLink 4, 900 GB/s; A100 SXM:
# NVLink 3, 600 GB/s; B200: NVLink 5, 1.8 TB/s). nccl-tests' bus bandwidth is one
# direction's, so it is compared with half. First match wins; PCIe and NVL cards (whose
# links depend on the bridge fitted) are not named.
LINK_PEAK_GBPS: tuple[tuple[str, float], ...] = (
    (r"PCIe|NVL\b", 0.0),
    (r"GH200|H200|H100", 450.0),
    (r"B200|B100|GB200", 900.0),
    (r"A100.*SXM|A100-SXM", 300.0),
)


def link_peak_gbps(device: str | None) -> float | None:
    """The NVLink peak per direction of a GPU named `device`, or None when unknown."""
    for pattern, peak in LINK_PEAK_GBPS:
        if device and re.search(pattern, device):
            return peak or None
    return None


def collective_bandwidth(con: duckdb.DuckDBPyConnection) -> list[CollectiveBandwidth]:
    """One row per (collective, bytes, group size): {name, bytes, group_size, instances,
    transfer_ns_median, algbw_gbps_median, busbw_gbps_median, wait_ns_median, device,
    link_peak_gbps}; largest total transfer time first."""
    ensure_rank_tables(con)
    cursor = con.execute(load_query("rank_collective_bandwidth"))
    names = [d[0] for d in cursor.description]
    out: list[CollectiveBandwidth] = []
    for values in cursor.fetchall():
        row = dict(zip(names, values, strict=True))
        out.append({
            "name": row["name"], "bytes": int(row["bytes"]),
            "group_size": int(row["group_size"]), "instances": int(row["instances"]),
            "transfer_ns_median": int(row["transfer_ns_median"]),
            "algbw_gbps_median": round(float(row["algbw_gbps_median"]), 3),
            "busbw_gbps_median": round(float(row["busbw_gbps_median"]), 3),
            "wait_ns_median": int(row["wait_ns_median"]),
            "device": row["device"], "link_peak_gbps": link_peak_gbps(row["device"]),
        })
    return out
