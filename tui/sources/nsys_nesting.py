"""Which nsys host ranges may nest, found while the rows stream in from the export.

Host depth (tui/derived/host_depth.py's definition: how many ranges of the same kind on the
same thread are open when a range starts) needs the ranges of each thread in start order.
nsys writes each thread's API calls in that order, and almost no call overlaps another:
so while numbering the rows, a pass over each batch checks the order and keeps the few
ranges that touch a neighbour. Only those go through the SQL running sum; when a thread's
rows come out of order, the caller falls back to sorting them all in SQL.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

# globalTid bits 0..47: the process and thread ids that host rows are partitioned by.
THREAD_BITS = (1 << 48) - 1
NO_THREAD = -1
LOWEST = np.iinfo(np.int64).min
HIGHEST = np.iinfo(np.int64).max


class Nesting:
    """Tracks the rows of one kind (one query), fed batch by batch in id order."""

    def __init__(self) -> None:
        self.in_order = True
        # per thread: start, end, latest end so far, id of its last row
        self._last: dict[int, tuple[int, int, int, int]] = {}
        self._touching: list[np.ndarray] = []

    def add(self, global_tid: pa.Array, start: pa.Array, end: pa.Array, ids: np.ndarray) -> None:
        """Take the next rows (no NULL times), in id order."""
        if not self.in_order or len(ids) == 0:
            return
        known = pc.is_valid(global_tid).to_numpy(zero_copy_only=False)
        tids = pc.fill_null(global_tid, 0).to_numpy(zero_copy_only=False)
        threads = np.where(known, tids & THREAD_BITS, NO_THREAD)
        starts = start.to_numpy(zero_copy_only=False)
        ends = end.to_numpy(zero_copy_only=False)
        if (threads == threads[0]).all():
            self._add_thread(int(threads[0]), starts, ends, ids)
            return
        order = np.argsort(threads, kind="stable")  # keeps id order within each thread
        cuts = np.flatnonzero(np.diff(threads[order])) + 1
        for rows in np.split(order, cuts):
            self._add_thread(int(threads[rows[0]]), starts[rows], ends[rows], ids[rows])
            if not self.in_order:
                return

    def touching(self) -> np.ndarray | None:
        """Ids of the rows that start before an earlier row of their thread has ended, or
        are such a row's predecessor (None when rows came out of order). Every other row
        is at depth 0 and never open when another starts."""
        if not self.in_order:
            return None
        return np.concatenate(self._touching) if self._touching else np.array([], np.int64)

    def _add_thread(self, thread: int, starts: np.ndarray, ends: np.ndarray,
                    ids: np.ndarray) -> None:
        last_start, last_end, latest, last_id = self._last.get(
            thread, (int(starts[0]), HIGHEST, LOWEST, -1))
        prev_starts = np.concatenate(([last_start], starts[:-1]))
        prev_ends = np.concatenate(([last_end], ends[:-1]))
        # the window order of host depth: start, then longer first, then id
        if not ((starts > prev_starts) | ((starts == prev_starts) & (ends <= prev_ends))).all():
            self.in_order = False
            return
        ended_by = np.maximum.accumulate(np.concatenate(([latest], ends)))
        joined = np.flatnonzero(starts <= ended_by[:-1])
        if len(joined):
            prev_ids = np.concatenate(([last_id], ids[:-1]))
            self._touching += [ids[joined], prev_ids[joined]]
        self._last[thread] = (int(starts[-1]), int(ends[-1]), int(ended_by[-1]), int(ids[-1]))
