"""A finding as data: which rule found it, how bad, what it costs, and the rows behind it.

`--summary --json` writes each as {rule, severity, text, cost_ns, rows}; the terminal prints
`text`. `rule` uses Nsight Systems' rule names where one exists (cuda_memcpy_async,
cuda_memcpy_sync, cuda_memset_sync, cuda_api_sync, gpu_gaps, gpu_time_util), else tui's own
(e.g. gpu_idle, top_kernel, launch_overhead, straggler).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tui.analysis import summary_types

SEVERITIES = ("error", "warning", "info")


@dataclass(frozen=True)
class Finding:
    rule: str
    severity: str  # one of SEVERITIES
    text: str  # one plain-language sentence or two: what, what it costs, what to do
    cost_ns: int | None = None  # GPU-idle or host time the finding explains; None if not a time
    # every row, each e.g. {start_ns, duration_ns, device, pid, tid, api, ...}: a list, or
    # a RowSet (tui.analysis.row_sets) where there can be many
    rows: Sequence[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> summary_types.Finding:
        return {"rule": self.rule, "severity": self.severity, "text": self.text,
                "cost_ns": self.cost_ns, "rows": self.rows}
