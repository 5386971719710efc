"""Reading NVIDIA's own SpeedOfLight finding, to set it beside our verdict."""

from __future__ import annotations

import re

# Phrases of the SOLBottleneck rule's messages (Nsight Compute 2023-2025) -> our verdict.
_SOL_PHRASES = (
    ("too small to fill", "small-grid"),
    ("low compute throughput and memory bandwidth", "latency"),
    ("Memory is more heavily utilized", "memory"),
    ("Compute is more heavily utilized", "compute"),
    ("well-balanced", "balanced"),
)
# "High Throughput" (a unit above 80%) names the section of the busier side.
_HIGH = "greater than 80.0%"
_UNIT = re.compile(r"(?:identify the|Start by analyzing) (DRAM|L1|L2) ")


def sol_kind(statement: str) -> str | None:
    """Our verdict word for NVIDIA's SpeedOfLight statement, None if not recognised."""
    for phrase, kind in _SOL_PHRASES:
        if phrase in statement:
            return kind
    if _HIGH in statement:
        if "Memory Workload Analysis" in statement:
            return "memory"
        if "Compute Workload Analysis" in statement:
            return "compute"
    return None


def sol_unit(statement: str) -> str | None:
    """The memory unit NVIDIA names ('DRAM', 'L1', 'L2'), if any."""
    match = _UNIT.search(statement)
    return match.group(1) if match else None
