"""The report's launches on one roofline: the device's ceilings and the launches as points.

Each launch's point is Nsight Compute's (figures.roofline: FLOP/s from the SASS FP
instruction rates, arithmetic intensity against DRAM bytes). The ceilings are the
device's DRAM bandwidth and FP peaks; ncu computes them per launch at the clocks it
measured, which differ by a few percent between launches, so the chart takes their
median. The ridge is where the bandwidth roof meets a compute roof.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Point:
    launch_id: int
    name: str
    precision: str  # 'fp32' | 'fp64'
    intensity: float  # FLOP per DRAM byte
    flop_per_s: float
    pct_of_peak: float
    side: str  # 'memory' | 'compute'


@dataclass
class Chart:
    """Points and ceilings; `bandwidth` in bytes/s, `peaks` FLOP/s by precision."""

    points: list[Point] = field(default_factory=list)
    bandwidth: float | None = None
    peaks: dict[str, float] = field(default_factory=dict)
    device: str = ""

    def ridge(self, precision: str) -> float | None:
        peak = self.peaks.get(precision)
        return peak / self.bandwidth if peak and self.bandwidth else None

    def roof(self, intensity: float, precision: str) -> float | None:
        """The attainable FLOP/s at an arithmetic intensity: min(peak, bandwidth x AI)."""
        peak = self.peaks.get(precision)
        if not peak or not self.bandwidth:
            return None
        return min(peak, self.bandwidth * intensity)

    def bounds(self) -> tuple[float, float, float, float]:
        """(x min, x max, y min, y max) in whole decades around the points, the ridges and
        the peaks: the axes of a log-log plot."""
        xs = [p.intensity for p in self.points if p.intensity > 0]
        ys = [p.flop_per_s for p in self.points if p.flop_per_s > 0]
        for precision, peak in self.peaks.items():
            ys.append(peak)
            ridge = self.ridge(precision)
            if ridge:
                xs.append(ridge)
        if not xs or not ys:
            return 0.01, 1000.0, 1e9, 1e14
        x0, x1 = math.floor(math.log10(min(xs))), math.ceil(math.log10(max(xs)))
        y0, y1 = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
        return 10.0 ** x0, 10.0 ** max(x1, x0 + 1), 10.0 ** y0, 10.0 ** max(y1, y0 + 1)


def chart(summary: dict[str, Any]) -> Chart:
    """The chart of an `ncu_summary` (launches without roofline inputs are left out)."""
    out = Chart(device=str(summary.get("source", {}).get("device_name") or ""))
    peaks: dict[str, list[float]] = {}
    bandwidths: list[float] = []
    for k in summary.get("kernels", []):
        r = k.get("roofline")
        if not r or not r.get("flop_per_s") or not r.get("arithmetic_intensity"):
            continue
        out.points.append(Point(k["launch_id"], k["short_name"] or k["name"], r["precision"],
                                r["arithmetic_intensity"], r["flop_per_s"],
                                r["pct_of_peak"], r["side"]))
        peaks.setdefault(r["precision"], []).append(r["peak_flop_per_s"])
        bandwidths.append(r["peak_flop_per_s"] / r["ridge_point"])
    out.peaks = {p: statistics.median(v) for p, v in peaks.items()}
    out.bandwidth = statistics.median(bandwidths) if bandwidths else None
    return out
