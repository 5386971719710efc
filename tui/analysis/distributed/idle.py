"""Idle time per stream in HTA's categories: host wait, kernel wait, other."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass

import duckdb

from tui.analysis.distributed.window import Window, prepare
from tui.core.hta_thresholds import KERNEL_WAIT_NS
from tui.core.queries import load_query


@dataclass(frozen=True)
class IdleCategories:
    device: int
    stream: int
    host_wait_ns: int  # the next launch call began only after the stream went idle
    kernel_wait_ns: int  # queued already, the gap under KERNEL_WAIT_NS: launch overhead
    other_ns: int  # queued already and longer: waiting for another stream or event
    gaps: int

    @property
    def idle_ns(self) -> int:
        return self.host_wait_ns + self.kernel_wait_ns + self.other_ns

    def as_dict(self) -> dict:
        return asdict(self)


def idle_categories(con: duckdb.DuckDBPyConnection, kernel_wait_ns: int = KERNEL_WAIT_NS,
                    window: Window | None = None) -> list[IdleCategories]:
    """Per (device, stream), by device then stream; `window`: dist_work is prepared."""
    if window is None:
        prepare(con)
    rows = con.execute(load_query("dist_idle_categories"),
                       {"kernel_wait_ns": kernel_wait_ns}).fetchall()
    return [IdleCategories(*row) for row in rows]


def gap_classes(gaps: Iterable[dict]) -> list[dict]:
    """tui's own GPU-idle gaps (the summary's: whole-device idle over the threshold, each
    explained from the host) summed by device and class, to set beside HTA's categories:
    [{device, class, idle_ns, gaps}], the most idle first."""
    totals: dict[tuple[int, str], list[int]] = {}
    for gap in gaps:
        total = totals.setdefault((gap["device"], gap["kind"]), [0, 0])
        total[0] += gap["duration_ns"]
        total[1] += 1
    return [{"device": device, "class": kind, "idle_ns": ns, "gaps": n}
            for (device, kind), (ns, n) in sorted(totals.items(),
                                                  key=lambda kv: (-kv[1][0], kv[0]))]
