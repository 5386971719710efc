"""Queue length per stream over time (outstanding launches), as HTA defines it."""

from __future__ import annotations

import duckdb

from tui.analysis.distributed.window import Window, prepare
from tui.core.queries import load_query


def queue_series(con: duckdb.DuckDBPyConnection, whole_trace: bool = False,
                 window: Window | None = None) -> None:
    """The temp view dist_queue_series (queries/analysis/dist_queue_series.sql) over dist_work: the
    figures' window, or with `whole_trace` every launch (the timeline's lanes); `window`:
    dist_work is prepared already."""
    if window is None:
        prepare(con, whole_trace=whole_trace)
    con.execute(load_query("dist_queue_series"))


def queue_summary(con: duckdb.DuckDBPyConnection, window: Window | None = None) -> list[dict]:
    """Per (device, stream): changes, mean and median over the changes (HTA's), max, and
    time_mean (the mean over time), over the figures' window."""
    queue_series(con, window=window)
    cursor = con.execute(load_query("dist_queue_summary"))
    names = [d[0] for d in cursor.description]
    out = []
    for row in cursor.fetchall():
        item = dict(zip(names, row, strict=True))
        for key in ("mean", "median", "time_mean"):
            item[key] = round(item[key], 3) if item[key] is not None else None
        out.append(item)
    return out
