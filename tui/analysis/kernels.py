"""Per-kernel-name statistics and per-device busy time."""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from tui.analysis import summary_types
from tui.core.queries import load_query


@dataclass
class KernelStats:
    name: str
    count: int
    total_ns: int
    avg_ns: float
    median_ns: float
    min_ns: int
    max_ns: int
    percent: float

    def as_dict(self) -> summary_types.Kernel:
        return {"name": self.name, "count": self.count, "total_ns": self.total_ns,
                "avg_ns": self.avg_ns, "median_ns": self.median_ns, "min_ns": self.min_ns,
                "max_ns": self.max_ns, "percent": self.percent}


@dataclass
class DeviceBusy:
    id: int
    name: str
    busy_ns: int
    span_ns: int
    kernels: int
    first_ns: int | None = None  # the device's first activity

    @property
    def busy_pct(self) -> float:
        return 100.0 * self.busy_ns / self.span_ns if self.span_ns else 0.0

    def as_dict(self) -> summary_types.Device:
        return {"id": self.id, "name": self.name, "busy_ns": self.busy_ns, "span_ns": self.span_ns}


def kernel_stats(con: duckdb.DuckDBPyConnection) -> list[KernelStats]:
    """Every kernel name, total time descending."""
    return [
        KernelStats(name=name, count=count, total_ns=total, avg_ns=avg, median_ns=median,
                    min_ns=low, max_ns=high, percent=pct)
        for name, count, total, avg, median, low, high, _std, pct in con.execute(
            load_query("kernel_stats")
        ).fetchall()
    ]


def device_busy(con: duckdb.DuckDBPyConnection) -> list[DeviceBusy]:
    return [
        DeviceBusy(device, name, busy, span, kernels, first)
        for device, name, span, busy, first, _last, kernels in con.execute(
            load_query("device_busy")
        ).fetchall()
    ]
