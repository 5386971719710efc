"""Nesting depth of the host rows a loader staged (finalize.host_rows), in windows of time.

A range's depth is how many ranges of the same kind on the same thread (a group) are open
when it starts. In start order within its group (start, longer first, then id), that is
how many of the group's ranges start before it, less how many of those have ended by then:
at equal times an end closes before a start opens, except a zero-length range's end, which
closes after. So only starts need putting in order, and each range's count of ends is one
binary search among the group's sorted ends.

The rows are read a window of start times at a time (windows of about equal counts, at
quantiles of a sample), so the arrays stay within the budget's share for them. Every range
of a window starts after every range of the windows before, so each group carries across
windows only how many of its ranges started, how many of those ended before the window
began, and the ends of the ones still open then (a handful: the ranges open at that
moment). One sort of every start and end point in SQL did the same, and spilled past the
budget on a multi-GB trace.

What a window carries on is worked out as it is read (counts and a comparison: cheap), so
the sorts and searches of its groups need nothing from the windows before and, on 4 cores
or more, run on a pool of threads (NumPy lets go of the GIL in them), beside each other and
beside DuckDB reading the next window; the last window's depths are set meanwhile on
another connection, so that reading and setting do not wait on each other.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

import duckdb
import numpy as np
import pyarrow as pa

from tui.core.budget import usable_cores
from tui.core.db import cursor, fetch_parts, registered
from tui.core.queries import load_query
from tui.derived.nesting import (
    MAX_NS,
    POOL_MIN_CORES,
    read_parts,
    rows_by_group,
    rows_per_window,
    time_window_parts,
)

# The arrays of a window (read, sorted, counted), per range: RSS rose by about 130 bytes a
# range at the peak (3 GB trace, windows of 0.3M-1.25M ranges). Counted as more: the depths
# set on the staged rows (host_depth_update.sql) hold some memory of their own, a little
# outside DuckDB's limit (the 10 GB trace's peak at 160: 969 MiB; at 220: 946 MiB).
BYTES_PER_ROW = 220
# Threads that sort and search the windows' groups: a trace's ranges sit mostly in one
# group (a thread's CPU ops), so a few threads take what there is to share.
MAX_WORKERS = 4
# A window of fewer ranges is worked out on the loading thread: the hand-offs to the pool
# would cost more than its groups take (a small trace's one window).
POOL_MIN_ROWS = 1 << 16


@dataclass(frozen=True)
class _Carried:
    """What one group carries into a window."""

    started: int = 0  # ranges started in the windows before
    ended: int = 0  # of those, ranges ended before this window began
    open_ends: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))  # sorted


def write_host_depths(con: duckdb.DuckDBPyConnection,
                      depths_set: Callable[[], None] | None = None) -> None:
    """Set the depths of finalize.host_rows, a window at a time, then write the rows into
    host_activities, numbered by row id. On POOL_MIN_CORES cores or more a window's depths
    are worked out on a pool while this connection reads the next one, then set on a
    second connection (_Setter). `depths_set` is called once every depth is set, before
    the write: another connection may read the rows' copy meanwhile."""
    con.execute(load_query("host_depth_groups"))
    carried: dict[int, _Carried] = {}
    use_pool = usable_cores() >= POOL_MIN_CORES
    with ThreadPoolExecutor(workers()) as pool, _Setter(con, use_pool) as setter:
        for parts in _windows(con):
            since, until = parts[0][0], parts[-1][1]
            window = {"since": since, "until": until}
            cols = fetch_parts(con, load_query("host_depth_window"),
                               [{"since": a, "until": b} for a, b in parts])
            rows = cols["row"]
            depth, work = start_depths(rows, cols["g"], cols["start_ns"], cols["end_ns"], until,
                                       carried,
                                       pool if use_pool and len(rows) >= POOL_MIN_ROWS else None)
            del cols
            setter.set(window, rows, depth, work)
    if depths_set is not None:
        depths_set()
    con.execute(load_query("host_depth_write"))


class _Setter:
    """Sets each window's depths on its staged rows once worked out (`_set_depths`), a
    window behind the reads. Without a thread of its own, on the reading connection before
    the next window is read; with one (4 cores or more), on a second connection
    while the next window is read: the update and the read each wait on the other
    otherwise. One window is set at a time, in order: besides the window being read, the
    one worked out on the pool and the one being set (its row ids and depths: 12 bytes a
    range of the BYTES_PER_ROW) are held."""

    def __init__(self, con: duckdb.DuckDBPyConnection, on_thread: bool) -> None:
        self._con = con
        self._pending: tuple[dict[str, int], np.ndarray, np.ndarray, list[Future]] | None = None
        self._stack = contextlib.ExitStack()
        self._thread: ThreadPoolExecutor | None = None
        self._other: duckdb.DuckDBPyConnection | None = None
        self._setting: Future | None = None
        self._on_thread = on_thread

    def __enter__(self) -> _Setter:
        if self._on_thread:
            self._other = self._stack.enter_context(contextlib.closing(cursor(self._con)))
            self._thread = self._stack.enter_context(ThreadPoolExecutor(1))
        return self

    def set(self, window: dict[str, int], rows: np.ndarray, depth: np.ndarray,
            work: list[Future]) -> None:
        """Hand on the window just read; the one before it is set now."""
        pending, self._pending = self._pending, (window, rows, depth, work)
        if pending is not None:
            self._start(pending)

    def _start(self, pending: tuple[dict[str, int], np.ndarray, np.ndarray,
                                    list[Future]]) -> None:
        if self._thread is None or self._other is None:
            _set_depths(self._con, *pending)
            return
        self._wait()
        self._setting = self._thread.submit(_set_depths, self._other, *pending)

    def _wait(self) -> None:
        if self._setting is not None:
            setting, self._setting = self._setting, None
            setting.result()  # its error, if any

    def __exit__(self, exc_type: object, *rest: object) -> None:
        try:
            if exc_type is None:
                if self._pending is not None:
                    pending, self._pending = self._pending, None
                    self._start(pending)
                self._wait()
            elif self._setting is not None and self._other is not None:
                while not self._setting.done():  # an interrupt lands only on a running query
                    self._other.interrupt()
                    wait([self._setting], timeout=0.02)
        finally:
            self._stack.close()


def _set_depths(con: duckdb.DuckDBPyConnection, window: dict[str, int], rows: np.ndarray,
                depth: np.ndarray, work: list[Future]) -> None:
    """Once a window's depths are worked out, set them on its staged rows."""
    for task in work:  # the window's task hands out its groups' tasks
        for done in task.result():
            done.result()  # its error, if any
    with registered(con, "host_depth_window_rows", pa.table({"row": rows, "depth": depth})):
        con.execute(load_query("host_depth_update"), window)


def _windows(con: duckdb.DuckDBPyConnection) -> list[list[tuple[int, int]]]:
    """Windows of start times of about `window_rows()` ranges each, each in parts read side
    by side (nesting.time_window_parts)."""
    row = con.execute("SELECT count(*) FROM finalize.host_rows").fetchone()
    rows = row[0] if row else 0
    return time_window_parts(con, rows, window_rows(rows), "host_depth_cuts", {}, read_parts())


def window_rows(rows: int | None = None) -> int:
    """How many ranges a window takes: the arrays cost about BYTES_PER_ROW each."""
    return rows_per_window(BYTES_PER_ROW, rows)


def workers() -> int:
    """Threads for the windows' groups: a core each, MAX_WORKERS at most."""
    return max(1, min(usable_cores(), MAX_WORKERS))


def group_depths(row: np.ndarray, group: np.ndarray, start: np.ndarray, end: np.ndarray,
                 until: int = MAX_NS, carried: dict[int, _Carried] | None = None) -> np.ndarray:
    """Depth of each range (row ids `row`, in the order given) among the ranges of its
    group. With `carried`, the ranges are a window's, after the windows whose carry it
    holds; it is updated for the next window, which begins at `until`."""
    depth, _ = start_depths(row, group, start, end, until, {} if carried is None else carried)
    return depth


def start_depths(row: np.ndarray, group: np.ndarray, start: np.ndarray, end: np.ndarray,
                 until: int, carried: dict[int, _Carried],
                 pool: ThreadPoolExecutor | None = None) -> tuple[np.ndarray, list[Future]]:
    """group_depths, `carried` updated for the next window now. Without a pool the depths
    are worked out here; with one (groups numbered 0, 1, ...: host_depth_groups.sql), what
    each group carries on is counted here and the rest is a task on the pool, which hands
    out a task a group: the depths array is filled once the window's task and its groups'
    tasks are done."""
    depth = np.empty(len(start), dtype=np.int32)
    if pool is None:
        for members in rows_by_group(group):  # each group's positions
            g = int(group[members[0]])
            before = carried.get(g, _Carried())
            s, e, r = start[members], end[members], row[members]
            carried[g] = _carry_on(before, s, e, until)
            _fill(depth, members, s, e, r, before)
        return depth, []
    carry_in = _carry_window(group, start, end, until, carried)
    return depth, [pool.submit(_fill_groups, pool, depth, row, group, start, end, carry_in)]


def _fill_groups(pool: ThreadPoolExecutor, depth: np.ndarray, row: np.ndarray,
                 group: np.ndarray, start: np.ndarray, end: np.ndarray,
                 before: dict[int, _Carried]) -> list[Future]:
    """A window's groups, each a task on `pool` that sets its depths (`_fill`)."""
    return [pool.submit(_fill, depth, members, start[members], end[members], row[members],
                        before[int(group[members[0]])])
            for members in rows_by_group(group)]


def _carry_window(group: np.ndarray, start: np.ndarray, end: np.ndarray, until: int,
                  carried: dict[int, _Carried]) -> dict[int, _Carried]:
    """What each group of a window (groups numbered 0, 1, ...) carries into it, from
    `carried`, which is updated for the next window: as `_carry_on`, counted for every
    group at once (no group's rows put together: only the few still open at `until`)."""
    zero = end == start
    started = np.bincount(group)
    zeros = np.bincount(group[zero], minlength=len(started))
    later = np.flatnonzero(~zero & (end > until))  # still open as the next window begins
    later_count = np.bincount(group[later], minlength=len(started))
    open_later = {int(group[later[at[0]]]): end[later[at]]
                  for at in rows_by_group(group[later])}
    before = {}
    for g in np.flatnonzero(started).tolist():
        was = before[g] = carried.get(g, _Carried())
        stay = was.open_ends[np.searchsorted(was.open_ends, until, side="right"):]
        closed = (len(was.open_ends) - len(stay)
                  + int(started[g] - zeros[g] - later_count[g]))
        still = np.sort(np.concatenate([stay, open_later.get(g, stay[:0])]))
        carried[g] = _Carried(was.started + int(started[g]), was.ended + closed + int(zeros[g]),
                              still)
    return before


def _carry_on(before: _Carried, s: np.ndarray, e: np.ndarray, until: int) -> _Carried:
    """What a group carries past a window of its ranges (starts `s`, ends `e`, any order)
    into the next, which begins at `until`: every later range starts at `until` or after,
    so an end up to it has closed by then, as has every zero-length range."""
    zero = e == s
    ends = np.concatenate([before.open_ends, e[~zero]])
    still = np.sort(ends[ends > until])
    return _Carried(before.started + len(s),
                    before.ended + len(ends) - len(still) + int(np.count_nonzero(zero)), still)


def _fill(depth: np.ndarray, members: np.ndarray, s: np.ndarray, e: np.ndarray,
          r: np.ndarray, before: _Carried) -> None:
    """Set the depths of one group's ranges of a window (at positions `members`; starts,
    ends and row ids `s`, `e`, `r`), after the ranges `before` counts."""
    order = _start_order(s, e, r)
    if order is not None:
        members, s, e = members[order], s[order], e[order]
    zero = e == s
    ends = np.sort(e[~zero])
    zero_ends = np.sort(e[zero])
    ended = (np.searchsorted(ends, s, side="right")
             + np.searchsorted(before.open_ends, s, side="right")
             + np.searchsorted(zero_ends, s, side="left"))
    ended -= before.started - before.ended
    depth[members] = np.arange(len(members)) - ended


def _start_order(s: np.ndarray, e: np.ndarray, r: np.ndarray) -> np.ndarray | None:
    """The order that puts a group's ranges by start, longer first at equal starts, then by
    row id; None if they are in it. Ranges come mostly in start order, ties are few: a
    stable sort of the starts (fast on runs in order), then the ties among themselves."""
    same_start = s[1:] == s[:-1]
    if not (np.any(s[1:] < s[:-1]) or np.any(same_start & (e[1:] > e[:-1]))
            or np.any(same_start & (e[1:] == e[:-1]) & (r[1:] < r[:-1]))):
        return None
    order = np.argsort(s, kind="stable")
    s_sorted = s[order]
    tie = s_sorted[1:] == s_sorted[:-1]
    if tie.any():
        in_tie = np.zeros(len(s), dtype=bool)
        in_tie[1:] = tie
        in_tie[:-1] |= tie
        at = np.flatnonzero(in_tie)
        tied = order[at]  # runs of equal starts, run after run: ordered within each run
        order[at] = tied[np.lexsort((r[tied], -e[tied], s[tied]))]
    return order
