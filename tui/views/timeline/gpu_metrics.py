"""The timeline's GPU metric lanes: under each GPU, its hardware counters (nsys
--gpu-metrics-devices) as bars, each column the mean of the samples in it (a share of the
unit's peak); and the counters under the cursor, for the details."""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from tui.analysis.gpu_metric_labels import SHORT
from tui.core.gpu_metric_names import (
    DRAM_READ,
    DRAM_WRITE,
    PCIE_RX,
    PCIE_TX,
    SM,
    SM_ISSUE,
    TENSOR,
    WARPS,
)
from tui.core.queries import load_query
from tui.views.timeline.bins import Cell, View
from tui.views.timeline.lanes import LANE_METRIC, Lane, LaneKey

METRIC_KIND = "gpu_metric"  # the top_kind of a metric lane's cells (its own colour)
PERIODS_REACH = 2  # a sample's period reaches back over empty columns up to this many periods


@dataclass(frozen=True)
class LaneDef:
    """One metric lane: per column, the largest of its groups' sums (DRAM: read + write;
    PCIe: the busier direction)."""

    label: str
    groups: tuple[tuple[str, ...], ...]

    def names(self) -> list[str]:
        return [n for group in self.groups for n in group]


NVLINK_RX = ("NVLink RX Requests User Data [Throughput %]",
             "NVLink RX Responses User Data [Throughput %]")
NVLINK_TX = ("NVLink TX Requests User Data [Throughput %]",
             "NVLink TX Responses User Data [Throughput %]")
LANES = (
    LaneDef("SM", ((SM,),)),
    LaneDef("tensor", ((TENSOR,),)),
    LaneDef("DRAM", ((DRAM_READ, DRAM_WRITE),)),
    LaneDef("NVLink", (NVLINK_RX, NVLINK_TX)),
    LaneDef("PCIe", ((PCIE_RX,), (PCIE_TX,))),
)
# what the details show under the cursor, in this order
DETAILS = (SM, SM_ISSUE, TENSOR, WARPS, DRAM_READ, DRAM_WRITE, *NVLINK_RX, *NVLINK_TX,
           PCIE_RX, PCIE_TX)


@dataclass(frozen=True)
class MetricInfo:
    """The GPU's counters under the cursor on one of its metric lanes."""

    device: int
    lane: str
    t_ns: int
    values: tuple[tuple[str, float, int], ...]  # (metric, mean, samples), DETAILS' order


class MetricLanes:
    """What the timeline needs for GPU metrics: lanes, their cells per window, lookups."""

    def __init__(self, cur: duckdb.DuckDBPyConnection) -> None:
        try:
            rows = cur.execute(load_query("timeline_metric_lanes")).fetchall()
        except duckdb.CatalogException:  # a store written before GPU metrics were kept
            rows = []
        self.names: dict[int, set[str]] = {}
        self.samples: dict[int, int] = {}
        self.period_ns: dict[int, int] = {}
        self._ids: dict[tuple[int, int], str] = {}  # (device, metric_id) -> name
        for device, metric_id, name, samples, period in rows:
            self._ids[(device, metric_id)] = name
            self.names.setdefault(device, set()).add(name)
            self.samples[device] = max(self.samples.get(device, 0), samples)
            self.period_ns[device] = max(self.period_ns.get(device, 0), period or 0)
        # the lanes each device has: those with at least one of their metrics sampled
        self.shown: dict[int, list[int]] = {
            device: [i for i, d in enumerate(LANES) if set(d.names()) & names]
            for device, names in self.names.items()}

    def lanes(self, device: int) -> list[Lane]:
        """The metric lanes of `device`, to go under its streams."""
        return [Lane(LANE_METRIC, device, i, 0, f"{LANES[i].label} GPU{device}",
                     self.samples.get(device, 0)) for i in self.shown.get(device, [])]

    @property
    def devices(self) -> list[int]:
        return sorted(self.shown)

    def _reach(self) -> int:
        return PERIODS_REACH * max(self.period_ns.values(), default=0) + 1

    def cells(self, cur: duckdb.DuckDBPyConnection,
              view: View) -> dict[LaneKey, list[Cell | None]]:
        """Each metric lane's cells in `view`: a column holds the mean of its samples
        (the lane's groups summed, the largest group shown); a column without a sample
        takes the next sample's value when that sample's period reaches back over it."""
        if not self.shown:
            return {}
        names = sorted({n for d in LANES for n in d.names()})
        rows = cur.execute(load_query("timeline_metric_bins"), {
            "names": names, "npc": view.npc, "t_lo": view.t0, "t_hi": view.t1,
            "reach_ns": self._reach()}).fetchall()
        # (device, name) -> {col: (mean, first_ns)}; col None: the first sample after
        means: dict[tuple[int, str], dict[int | None, tuple[float, int]]] = {}
        for device, metric_id, col, mean, first in rows:
            name = self._ids.get((device, metric_id))
            if name is not None:
                means.setdefault((device, name), {})[col] = (mean, first)
        out: dict[LaneKey, list[Cell | None]] = {}
        for device, lanes in self.shown.items():
            reach_cols = max(1, -(-self.period_ns.get(device, 0) * PERIODS_REACH // view.npc))
            for i in lanes:
                out[(LANE_METRIC, device, i, 0)] = self._lane_cells(
                    LANES[i], device, means, view, reach_cols)
        return out

    def _lane_cells(self, lane: LaneDef, device: int,
                    means: dict[tuple[int, str], dict[int | None, tuple[float, int]]],
                    view: View, reach_cols: int) -> list[Cell | None]:
        per_metric = {n: _filled(means.get((device, n), {}), view, reach_cols)
                      for n in lane.names()}
        cells: list[Cell | None] = []
        for x in range(view.ncols):
            sums = [sum(v for n in group if (v := per_metric[n][x]) is not None)
                    for group in lane.groups
                    if any(per_metric[n][x] is not None for n in group)]
            if not sums:
                cells.append(None)
                continue
            value = max(sums)
            cells.append(Cell(min(1.0, max(0.0, value / 100.0)), None, lane.label,
                              METRIC_KIND, False))
        return cells

    def info_at(self, cur: duckdb.DuckDBPyConnection, lane: Lane, t: int, t_lo: int,
                t_hi: int) -> MetricInfo | None:
        names = [n for n in DETAILS if n in self.names.get(lane.k1, set())]
        rows = cur.execute(load_query("timeline_metric_at"), {
            "device": lane.k1, "names": names, "t": t, "t_lo": t_lo, "t_hi": t_hi,
            "reach_ns": self._reach()}).fetchall()
        values = tuple((name, mean, samples) for name, mean, samples in rows
                       if mean is not None)
        if not values:
            return None
        return MetricInfo(lane.k1, LANES[lane.k2].label, t, values)


def _filled(cols: dict[int | None, tuple[float, int]], view: View,
            reach_cols: int) -> list[float | None]:
    """A metric's mean per screen column; an empty column takes the value of the next
    column with a sample (or of the first sample after the window) within reach_cols."""
    out: list[float | None] = [None] * view.ncols
    after = cols.get(None)  # (value, time) of the first sample after the window
    next_value, next_x = (after[0], view.x_of(after[1])) if after else (None, None)
    for x in range(view.ncols - 1, -1, -1):
        here = cols.get(view.c0 + x)
        if here is not None:
            out[x] = here[0]
            next_value, next_x = here[0], x
        elif next_value is not None and next_x is not None and next_x - x <= reach_cols:
            out[x] = next_value
    return out


def short_name(metric: str) -> str:
    """A metric's short name for the details: 'DRAM rd', 'NVLink RX Requests User Data'."""
    return SHORT.get(metric, metric.split(" [")[0])
