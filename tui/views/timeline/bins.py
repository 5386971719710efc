"""The timeline's window binned to screen columns, and the level-of-detail summary that
keeps coarse zoom fast on traces of millions of kernels.

A view is `ncols` columns of `npc` ns each, starting at absolute column `c0` (column c
covers [c * npc, (c + 1) * npc) ns). Because columns are anchored at 0 ns, not at the
window's edge, a column means the same time span whatever the window: the summary's bins
line up with screen columns exactly when npc is a multiple of the bin width.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple, Protocol

import duckdb

from tui.core.db import CursorSource
from tui.core.queries import load_query
from tui.views.timeline import lod
from tui.views.timeline.lanes import LANE_GAP, LaneKey, opened_kind

LOD_MIN_ROWS = 200_000  # below this, binning the whole trace takes a few ms: no summary
LOD_MIN_PER_COL = 4  # use a level once a column spans at least this many of its bins


@dataclass(frozen=True)
class View:
    npc: int  # ns per column
    c0: int  # first column shown (absolute)
    ncols: int

    @property
    def t0(self) -> int:
        return self.c0 * self.npc

    @property
    def t1(self) -> int:
        return (self.c0 + self.ncols) * self.npc

    def x_of(self, t_ns: int) -> int:
        """Screen column (0 = left edge) holding time `t_ns`; may be off screen."""
        return t_ns // self.npc - self.c0


class Cell(NamedTuple):
    """One lane in one column."""

    busy: float  # share of the column something ran in, 0..1
    top_id: int | None  # the interval with the largest piece of the column
    top_name: str | None
    top_kind: str | None
    solid: bool  # that interval covers most of the column


@dataclass
class Bins:
    view: View
    lanes: dict[LaneKey, list[Cell | None]] = field(default_factory=dict)
    gaps: dict[int, list[float]] = field(default_factory=dict)  # device -> share in a gap
    source: str = "raw"  # 'raw' | 'lod<level>': which query answered

    def cells(self, key: LaneKey) -> list[Cell | None]:
        return self.lanes.get(key) or [None] * self.view.ncols

    def gap_cover(self, device: int) -> list[float]:
        return self.gaps.get(device) or [0.0] * self.view.ncols


class MemoryCells(Protocol):
    """The memory lanes' cells of a window (tui/views/timeline/memory.py)."""

    def cells(self, cur: duckdb.DuckDBPyConnection,
              view: View) -> dict[LaneKey, list[Cell | None]]: ...


class BinSource:
    """Answers a view with one query: from the tables, or from the summary when coarse."""

    def __init__(self, con: CursorSource, min_gap_ns: int,
                 span: tuple[int, int], rows: int) -> None:
        self._con = con
        self.min_gap_ns = min_gap_ns
        self._span = span
        self._rows = rows
        self._widths: list[int] = []  # bin width of each summary level, finest first
        self.memory: MemoryCells | None = None  # the memory lanes, drawn beside the rest
        self.metrics: MemoryCells | None = None  # the GPU metric lanes, when shown
        self.extra: list[MemoryCells] = []  # other lanes of their own (queue, critical path)

    @property
    def wants_lod(self) -> bool:
        return self._rows >= LOD_MIN_ROWS

    def build_lod(self, path: Path | None = None) -> None:
        """Attach (or build, and keep at `path`) the level-of-detail summary."""
        with self._con.cursor() as cur:
            self._widths = lod.attach_or_build(cur, self._span, self.min_gap_ns, path)

    def snap_npc(self, npc: int) -> int:
        """The zoom nearest `npc` that the summary answers exactly (or `npc` itself)."""
        for width in reversed(self._widths):
            if npc >= LOD_MIN_PER_COL * width:
                return max(1, round(npc / width)) * width
        return npc

    def fetch(self, view: View, nvtx_depths: int, host: bool, extra: bool = False,
              opened: LaneKey | None = None, metrics: bool = False) -> Bins:
        """The view's bins, from one query (with `extra`, the extra lanes' cells; with
        `metrics`, the GPU metric lanes'; one more query for an `opened` lane)."""
        level = self._level_for(view.npc)
        params: dict[str, object] = {"nvtx_depths": nvtx_depths, "host": host}
        if level is None:
            sql, source = load_query("timeline_bins"), "raw"
            params.update(npc=view.npc, t_lo=view.t0, t_hi=view.t1,
                          min_gap_ns=self.min_gap_ns)
        else:
            sql, source = load_query("timeline_lod_bins"), f"lod{level}"
            params.update(level=level, factor=view.npc // self._widths[level],
                          c_lo=view.c0, c_hi=view.c0 + view.ncols)
        with self._con.cursor() as cur:  # a connection per thread: workers call this
            rows = cur.execute(sql, params).fetchall()
            if opened is not None:
                kind, depth = opened_kind(opened[3])
                rows += cur.execute(load_query("timeline_opened_bins"), {
                    "npc": view.npc, "t_lo": view.t0, "t_hi": view.t1, "pid": opened[1],
                    "tid": opened[2], "kind": kind, "depth": depth, "k3": opened[3],
                }).fetchall()
            bins = _to_bins(view, rows, source)
            if self.memory is not None:
                bins.lanes.update(self.memory.cells(cur, view))
            if metrics and self.metrics is not None:
                bins.lanes.update(self.metrics.cells(cur, view))
            for lanes in self.extra if extra else ():
                bins.lanes.update(lanes.cells(cur, view))
        return bins

    def _level_for(self, npc: int) -> int | None:
        for level in range(len(self._widths) - 1, -1, -1):
            width = self._widths[level]
            if npc % width == 0 and npc >= LOD_MIN_PER_COL * width:
                return level
        return None


def _to_bins(view: View, rows: list[tuple], source: str) -> Bins:
    bins = Bins(view, source=source)
    npc, c0, ncols = view.npc, view.c0, view.ncols
    for kind, k1, k2, k3, col, busy_ns, top_ns, top_id, name, top_kind in rows:
        x = col - c0
        if not 0 <= x < ncols:
            continue
        if kind == LANE_GAP:
            bins.gaps.setdefault(k1, [0.0] * ncols)[x] = min(1.0, busy_ns / npc)
            continue
        cells = bins.lanes.setdefault((kind, k1, k2, k3), [None] * ncols)
        cells[x] = Cell(min(1.0, busy_ns / npc), top_id, name, top_kind, 2 * top_ns >= npc)
    return bins
