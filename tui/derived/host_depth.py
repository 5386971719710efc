"""Nesting depth of the host rows a loader staged (finalize.host_rows), in windows of time.

A range's depth is how many ranges of the same kind on the same thread (a group) are open
when it starts. In start order within its group (start, longer first, then id), that is
how many of the group's ranges start before it, less how many of those have ended by then:
at equal times an end closes before a start opens, except a zero-length range's end, which
closes after. So only starts need putting in order, and each range's count of ends is one
binary search among the group's sorted ends.

The rows are read a window of start times at a time (windows of about equal counts, at
approximate quantiles), so the arrays stay within the budget's share for them. Every range
of a window starts after every range of the windows before, so each group carries across
windows only how many of its ranges started, how many of those ended before the window
began, and the ends of the ones still open then (a handful: the ranges open at that
moment). One sort of every start and end point in SQL did the same, and spilled past the
budget on a multi-GB trace.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import duckdb
import numpy as np
import pyarrow as pa

from tui.core.db import registered
from tui.core.queries import load_query
from tui.derived.nesting import MAX_NS, rows_by_group, rows_per_window, time_windows

# The arrays of a window (read, sorted, counted), per range: RSS rose by about 130 bytes a
# range at the peak (3 GB trace, windows of 0.3M-1.25M ranges). Counted as more: the depths
# set on the staged rows (host_depth_update.sql) hold some memory of their own, a little
# outside DuckDB's limit (the 10 GB trace's peak at 160: 969 MiB; at 220: 946 MiB).
BYTES_PER_ROW = 220


@dataclass
class _Carried:
    """What one group carries into the next window."""

    started: int = 0  # ranges started in the windows before
    ended: int = 0  # of those, ranges ended before this window began
    open_ends: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))


def write_host_depths(con: duckdb.DuckDBPyConnection) -> None:
    """Set the depths of finalize.host_rows, a window at a time, then write the rows into
    host_activities, numbered by row id."""
    con.execute(load_query("host_depth_groups"))
    carried: dict[int, _Carried] = {}
    for since, until in _windows(con):
        window = {"since": since, "until": until}
        cols = con.execute(load_query("host_depth_window"), window).fetchnumpy()
        rows = np.asarray(cols["row"])
        depth = group_depths(rows, np.asarray(cols["g"]), np.asarray(cols["start_ns"]),
                             np.asarray(cols["end_ns"]), until, carried)
        del cols
        with registered(con, "host_depth_window_rows",
                        pa.table({"row": rows, "depth": depth})):
            con.execute(load_query("host_depth_update"), window)
    con.execute(load_query("host_depth_write"))


def _windows(con: duckdb.DuckDBPyConnection) -> list[tuple[int, int]]:
    """Windows of start times of about `window_rows()` ranges each (nesting.time_windows)."""
    row = con.execute("SELECT count(*) FROM finalize.host_rows").fetchone()
    return time_windows(con, row[0] if row else 0, window_rows(), "host_depth_cuts", {})


def window_rows() -> int:
    """How many ranges a window takes: the arrays cost about BYTES_PER_ROW each."""
    return rows_per_window(BYTES_PER_ROW)


def group_depths(row: np.ndarray, group: np.ndarray, start: np.ndarray, end: np.ndarray,
                 until: int = MAX_NS, carried: dict[int, _Carried] | None = None) -> np.ndarray:
    """Depth of each range (row ids `row`, in the order given) among the ranges of its
    group. With `carried`, the ranges are a window's, after the windows whose carry it
    holds; it is updated for the next window, which begins at `until`."""
    carried = {} if carried is None else carried
    depth = np.empty(len(start), dtype=np.int32)
    for members in rows_by_group(group):  # each group's positions
        g = int(group[members[0]])
        carry = carried.setdefault(g, _Carried())
        s, e, r = start[members], end[members], row[members]
        # in start order, longer first at equal starts, then by row id
        same_start = s[1:] == s[:-1]
        if (np.any(s[1:] < s[:-1]) or np.any(same_start & (e[1:] > e[:-1]))
                or np.any(same_start & (e[1:] == e[:-1]) & (r[1:] < r[:-1]))):
            pick = np.lexsort((r, -e, s))
            members, s, e = members[pick], s[pick], e[pick]
        zero = e == s
        ends = np.sort(np.concatenate([carry.open_ends, e[~zero]]))
        zero_ends = np.sort(e[zero])
        ended = (carry.ended + np.searchsorted(ends, s, side="right")
                 + np.searchsorted(zero_ends, s, side="left"))
        depth[members] = carry.started + np.arange(len(members)) - ended
        # every later range starts at `until` or after: an end up to it has closed by then
        closed = np.searchsorted(ends, until, side="right")
        carry.started += len(members)
        carry.ended += int(closed) + len(zero_ends)
        carry.open_ends = ends[closed:]
    return depth
