"""Nesting of host ranges, in NumPy: each range's parent, and the innermost range open at
given times, for launch stacks (tui/derived/stacks.py).

The ranges of one kind on one thread nest, and host_activities.depth numbers their levels.
Put in order by (kind and thread, start, depth), a range's parent is the last range one
level up to come before it; the innermost range open at a time t (start <= t < end) is the
last range to start at or before t if it is still open, else the deepest of the last ranges
of each level above it to start by then that is still open. Each "last range of level l
before position p" is one binary search over the ranges sorted by (group, level, position),
so no range is compared with another one by one, and a few million ranges take a fraction
of a second (the ASOF joins this replaces sorted every range again for each question).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import duckdb
import numpy as np

from tui.core.budget import memory_budget_bytes, usable_cores
from tui.core.db import ARRAYS_SHARE, fetch_parts
from tui.core.queries import Sql, fill

# The widest window of start times `read_ranges` takes: all of them.
MIN_NS, MAX_NS = -(2**63), 2**63 - 1
MIN_WINDOW_ROWS = 1 << 16
# From this many cores a sweep's windows are worked on side by side: the NumPy work of one
# on a pool beside the reads of the next and the writes of the one before. On fewer the
# load's other work keeps the cores busy, and the pool only cost CPU and memory (a 700 MB
# trace's host depths: 3.4 CPU-s against 3.2-3.3, peak RSS 812-824 MiB against 791-799).
POOL_MIN_CORES = 4
# There a sweep is cut into this many windows at least, however few its ranges are for the
# budget: in the one or two windows a big budget allows, the sorts and searches of each ran
# on one core while the others waited (a 3 GB trace on 16 cores, 8 GB: the host depths in
# 2 windows 2.0 s, the launch stacks' nesting in 1, 1.3 s; in 8, 1.6 s and 1.1 s, with the
# stacks waiting 0.26 s for the depths instead of 0.95; 16 windows and 4 did no better).
SIDE_BY_SIDE_WINDOWS = 8
# The fewest rows a part of a window is read in (time_window_parts): below, the cursor and
# thread of another part cost more than its share of the conversion saves.
MIN_PART_ROWS = 1 << 17
# A window is read in a part for each CORES_PER_PART cores, MAX_READ_PARTS at most: on 2
# cores the load's other work keeps both busy, and parts only cost more CPU (the host
# depths of a 700 MB trace: 0.59-0.62 CPU-s against 0.53-0.55 in one part).
CORES_PER_PART = 4
MAX_READ_PARTS = 4
# The windows are cut at quantiles of a uniform sample of the times (each kept with the same
# chance), of about this many times for each window or part, CUT_SAMPLE_MIN at least: a
# window's count is then within a few per cent of its share. DuckDB's approx_quantile over
# every time took 3-5 times the CPU (a 3 GB trace's 7.4M host rows: 0.33 CPU-s against
# 0.07-0.10). The sample is drawn afresh each time, on every core (a seeded one is drawn
# on one): the windows move a little from load to load, the depths and stacks do not.
CUT_SAMPLE_PER_PIECE = 4096
CUT_SAMPLE_MIN = 100_000


def rows_per_window(bytes_per_row: int, rows: int | None = None, held: int = 1) -> int:
    """How many rows a window of NumPy work over host ranges takes: the budget's share for
    arrays (ARRAYS_SHARE), at `bytes_per_row` each, over the `held` windows held at once;
    MIN_WINDOW_ROWS at least. Given the sweep's `rows`, on POOL_MIN_CORES cores or more,
    a window takes no more than a SIDE_BY_SIDE_WINDOWS-th of them."""
    fits = max(int(memory_budget_bytes() * ARRAYS_SHARE) // (bytes_per_row * held),
               MIN_WINDOW_ROWS)
    if rows is None or usable_cores() < POOL_MIN_CORES:
        return fits
    return max(min(fits, -(-rows // SIDE_BY_SIDE_WINDOWS)), MIN_WINDOW_ROWS)


def read_parts() -> int:
    """How many parts a window of host ranges is read in, side by side (fetch_parts)."""
    return max(1, min(usable_cores() // CORES_PER_PART, MAX_READ_PARTS))


def time_windows(con: duckdb.DuckDBPyConnection, rows: int, per_window: int,
                 cuts_query: str, params: dict) -> list[tuple[int, int]]:
    """Windows of time, [since, until), together every time there is, of about
    `per_window` of `rows` each: cut at the times `cuts_query` (quantiles of a sample of
    {percent} per cent of the times) gives for $fractions, with `params`."""
    return [(window[0][0], window[-1][1])
            for window in time_window_parts(con, rows, per_window, cuts_query, params, 1)]


def time_window_parts(con: duckdb.DuckDBPyConnection, rows: int, per_window: int,
                      cuts_query: str, params: dict, parts: int,
                      query_slots: dict[str, str] | None = None) -> list[list[tuple[int, int]]]:
    """time_windows, each cut again into `parts` of about equal counts (fewer where the
    cuts meet), to be read side by side (tui.core.db.fetch_parts): each window the list
    of its parts, in time order. Windows under `parts` times MIN_PART_ROWS take fewer.
    `query_slots` fill the cuts query's slots, where it has any."""
    parts = max(1, min(parts, min(rows, per_window) // MIN_PART_ROWS))
    pieces = -(-rows // per_window) * parts
    cuts: list[int] = []
    if pieces > 1:
        fractions = [i / pieces for i in range(1, pieces)]
        wanted = max(CUT_SAMPLE_MIN, CUT_SAMPLE_PER_PIECE * pieces)
        percent = Sql(f"{min(100.0, 100.0 * wanted / rows):.6f}")
        found = con.execute(fill(cuts_query, **(query_slots or {}), percent=percent),
                            {**params, "fractions": fractions}).fetchone()
        assert found is not None
        cuts = sorted(set(found[0] or ()) - {MIN_NS})  # none: an empty sample
    bounds = [MIN_NS, *cuts, MAX_NS]
    return [list(itertools.pairwise(bounds[first:first + parts + 1]))
            for first in range(0, len(bounds) - 1, parts)]


RANGE_COLUMNS = ("group_key", "id", "k", "start_ns", "end_ns", "depth")


def read_ranges(con: duckdb.DuckDBPyConnection, kinds: list[str],
                window: tuple[int, int] = (MIN_NS, MAX_NS),
                parts: list[tuple[int, int]] | None = None,
                host: str = "host_activities") -> dict[str, np.ndarray]:
    """The columns HostNesting.of_columns takes: the host ranges of `kinds` that start in
    `window` [since, until) (stacks_nesting_ranges.sql; `parts`, the window cut in time by
    time_window_parts, read side by side), after those that start before it and are still
    open as it begins (stacks_nesting_open.sql); of `host`, host_activities or a view with
    its columns (stacks_nesting_host.sql)."""
    cols = fetch_parts(con, fill("stacks_nesting_ranges", host=host),
                       [{"kinds": kinds, "since": a, "until": b} for a, b in (parts or [window])])
    if window[0] == MIN_NS:
        return {name: cols[name] for name in RANGE_COLUMNS}
    before = con.execute(fill("stacks_nesting_open", host=host),
                         {"kinds": kinds, "since": window[0]}).fetchnumpy()
    return {name: np.concatenate([np.asarray(before[name]), cols[name]])
            for name in RANGE_COLUMNS}


class HostNesting:
    """The host ranges of some kinds, in (group, start, depth, id) order; a group is a
    (kind, pid, tid)."""

    def __init__(self, ids: np.ndarray, group: np.ndarray, start: np.ndarray,
                 end: np.ndarray, depth: np.ndarray, kind: np.ndarray | None = None,
                 group_keys: np.ndarray | None = None) -> None:
        self.ids, self.group, self.start, self.end = ids, group, start, end
        self.depth = depth
        self.kind = kind  # each range's kind: its place in the kinds read (1, 2, ...)
        self.group_keys = group_keys  # ascending: group g has group_keys[g]
        n = len(ids)
        self.levels = int(depth.max()) + 1 if n else 1
        segment = group * self.levels + depth
        # every position, sorted by (group, level, position): a stable sort of the
        # (group, level) numbers keeps each level's positions in order
        small = segment.astype(np.uint16) if n and segment.max() < 2**16 else segment
        self._by_level = np.argsort(small, kind="stable")  # a radix sort when small
        self._keys = segment[self._by_level] * max(n, 1) + self._by_level
        self._group_bounds = np.searchsorted(group, np.arange(int(group.max()) + 2 if n else 1))

    @classmethod
    def of_columns(cls, columns: dict[str, np.ndarray]) -> HostNesting:
        """The nesting of ranges as read_ranges gives them (NumPy only: any thread)."""
        key, ids, kind, start, end, depth = (columns[name] for name in RANGE_COLUMNS)
        if np.any(key[1:] < key[:-1]):  # each group's rows together, in their order
            order = np.argsort(key, kind="stable")
            key, ids, kind, start, end, depth = (
                column[order] for column in (key, ids, kind, start, end, depth))
            del order
        new_group = np.empty(len(key), dtype=bool)
        new_group[:1] = True
        new_group[1:] = key[1:] != key[:-1]
        firsts = np.flatnonzero(new_group)
        group = np.cumsum(new_group, dtype=np.int64) - 1
        if not _in_start_order(group, start, depth):
            order = np.lexsort((ids, depth, start, group))
            group, ids, kind, start, end, depth = (
                column[order] for column in (group, ids, kind, start, end, depth))
        return cls(ids, group, start, end, depth, kind, key[firsts])

    def groups_of(self, keys: np.ndarray) -> np.ndarray:
        """The group number of each group key (-1: no ranges in that group)."""
        assert self.group_keys is not None, "of_columns() knows the groups' keys"
        if not len(self.group_keys):
            return np.full(len(keys), -1, dtype=np.int64)
        at = np.searchsorted(self.group_keys, keys)
        found = self.group_keys[np.minimum(at, len(self.group_keys) - 1)] == keys
        return np.where(found, at, -1)

    def _last_at(self, group: np.ndarray, level: np.ndarray, pos: np.ndarray) -> np.ndarray:
        """The position of the last range of `level` in `group` at or before `pos`, or -1."""
        n = max(len(self.ids), 1)
        segment = group * self.levels + level
        i = np.searchsorted(self._keys, segment * n + pos, side="right") - 1
        safe = np.maximum(i, 0)
        found = (i >= 0) & (level >= 0) & (self._keys[safe] // n == segment)
        return np.where(found, self._by_level[safe], -1)

    def parents(self) -> np.ndarray:
        """Every range's parent position (-1 at the top). A range is one level deeper than
        the range before it at most (depths count the ranges open as it starts), so all the
        ranges between a parent and a child are deeper than the parent, and the range after
        the parent opened the child's level: the parent is the range before the last
        range of the child's level, up to the child, that opened its level (a forward fill
        over each level's positions). Where depths step by more (odd data), each parent is
        searched for: the last range one level up before the child."""
        n = len(self.ids)
        positions = np.arange(n)
        steps = np.ones(n, dtype=bool)
        steps[1:] = (self.group[1:] != self.group[:-1]) | (self.depth[1:] <= self.depth[:-1] + 1)
        if not steps.all():
            level = self.depth - 1
            return np.where(level >= 0, self._last_at(self.group, level, positions - 1), -1)
        at = self._by_level
        opens_level = np.zeros(n, dtype=bool)  # in position order: sequential reads
        opens_level[1:] = ((self.group[1:] == self.group[:-1])
                           & (self.depth[:-1] == self.depth[1:] - 1))
        # in place, as fresh arrays of this size cost more than the arithmetic
        marks = self._keys - at  # each level's first key: "none yet" is one below it
        marks -= 1
        np.subtract(self._keys, 1, out=marks, where=opens_level[at])  # the range before
        np.maximum.accumulate(marks, out=marks)
        marks -= self._keys  # now the position found, or -1
        marks += at
        parent = np.empty(n, dtype=np.int64)
        parent[at] = marks
        return parent

    def innermost(self, group: np.ndarray, t: np.ndarray) -> np.ndarray:
        """For points in `group` (-1: a thread without ranges) at times `t`: the position of
        the innermost range open at t, or -1."""
        out = np.full(len(t), -1, dtype=np.int64)
        last = np.full(len(t), -1, dtype=np.int64)
        for points in rows_by_group(group):
            g = group[points[0]]
            if g < 0:
                continue
            lo, hi = self._group_bounds[g], self._group_bounds[g + 1]
            last[points] = lo + np.searchsorted(self.start[lo:hi], t[points], side="right") - 1
            last[points[last[points] < lo]] = -1
        has = last >= 0
        is_open = has.copy()
        is_open[has] = self.end[last[has]] > t[has]
        out[is_open] = last[is_open]
        # the rest: the levels above the last-started range, deepest first, down to 0
        pending = np.flatnonzero(has & ~is_open)
        level = self.depth[last[pending]] - 1
        while len(pending):
            found = self._last_at(group[pending], level, last[pending])
            hit = found >= 0
            hit[hit] = self.end[found[hit]] > t[pending[hit]]
            out[pending[hit]] = found[hit]
            more = ~hit & (level > 0)
            pending, level = pending[more], level[more] - 1
        return out


def _in_start_order(group: np.ndarray, start: np.ndarray, depth: np.ndarray) -> bool:
    """Whether the rows are by (group, start, depth) already (XLA writes them so)."""
    same = group[1:] == group[:-1]
    later = start[1:] > start[:-1]
    tie = start[1:] == start[:-1]
    return bool(np.all(~same | later | (tie & (depth[1:] >= depth[:-1]))))


def rows_by_group(group: np.ndarray) -> Iterator[np.ndarray]:
    """The indices of each group's rows, in their order, group by group (none if no rows)."""
    if not len(group):
        return
    order = np.argsort(group, kind="stable")
    yield from np.split(order, np.flatnonzero(np.diff(group[order])) + 1)
