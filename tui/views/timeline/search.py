"""`/` on the timeline: the intervals whose names match, found by one query, kept as
columns (numpy) so that stepping, counting and marking a window never loop over rows."""

from __future__ import annotations

from dataclasses import dataclass, field

import duckdb
import numpy as np

from tui.core.queries import load_query
from tui.views.timeline.bins import View
from tui.views.timeline.lanes import MAX_NVTX_DEPTH, LaneKey

REGEX_PREFIX = "re:"


@dataclass(frozen=True)
class Query:
    text: str  # as typed
    pattern: str
    regex: bool

    @classmethod
    def parse(cls, text: str) -> Query:
        """`re:` starts a regular expression; anything else is a substring, any case."""
        if text.startswith(REGEX_PREFIX):
            return cls(text, text[len(REGEX_PREFIX):], True)
        return cls(text, text, False)


@dataclass
class Hits:
    query: Query
    start: np.ndarray  # int64, sorted
    end: np.ndarray  # as recorded: a zero-length hit ends where it starts
    keys: np.ndarray  # (n, 4) int64: the lane key of each hit
    ids: np.ndarray  # int64: gpu_activities.id on a GPU lane, else host_activities.id
    _by_lane: dict[LaneKey, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.start)

    def position(self, t: int) -> int:
        """How many hits start at or before `t`: the k of "k of N" for a cursor at t."""
        return int(np.searchsorted(self.start, t, side="right"))

    def step(self, t: int, forward: bool) -> int | None:
        """The index of the next hit starting after `t` (or the previous, before it)."""
        if forward:
            i = int(np.searchsorted(self.start, t, side="right"))
            return i if i < len(self.start) else None
        i = int(np.searchsorted(self.start, t, side="left")) - 1
        return i if i >= 0 else None

    def lane_of(self, i: int) -> LaneKey:
        kind, k1, k2, k3 = (int(v) for v in self.keys[i])
        return (kind, k1, k2, k3)

    def hit(self, i: int) -> Hit:
        return Hit(self.lane_of(i), int(self.ids[i]), int(self.start[i]), int(self.end[i]))

    def lane_columns(self, lane: LaneKey, view: View) -> np.ndarray:
        """bool per screen column of `view`: does a hit on `lane` fall in it?"""
        if not self._by_lane:
            self._split()
        start, end = self._by_lane.get(lane, (_EMPTY, _EMPTY))
        return _columns(start, end, view)

    def all_columns(self, view: View) -> np.ndarray:
        """bool per screen column: a hit on any lane falls in it (the overview's marks)."""
        return _columns(self.start, self.end, view)

    def _split(self) -> None:
        for key in np.unique(self.keys, axis=0):
            mask = np.all(self.keys == key, axis=1)
            kind, k1, k2, k3 = (int(v) for v in key)
            self._by_lane[(kind, k1, k2, k3)] = (self.start[mask], self.end[mask])


@dataclass(frozen=True)
class Hit:
    """One interval found: the lane that shows it, its id (gpu_activities.id on a GPU
    lane, else host_activities.id) and its times."""

    lane: LaneKey
    id: int
    start_ns: int
    end_ns: int


_EMPTY = np.zeros(0, dtype=np.int64)


def _columns(start: np.ndarray, end: np.ndarray, view: View) -> np.ndarray:
    end = np.maximum(end, start + 1)  # a zero-length hit marks its column
    marks = np.zeros(view.ncols + 1, dtype=np.int64)
    shown = (start < view.t1) & (end > view.t0)
    if shown.any():
        x0 = np.clip(start[shown] // view.npc - view.c0, 0, view.ncols - 1)
        x1 = np.clip((end[shown] - 1) // view.npc - view.c0, 0, view.ncols - 1)
        np.add.at(marks, x0, 1)
        np.add.at(marks, x1 + 1, -1)
    return np.cumsum(marks[:-1]) > 0


def search(cur: duckdb.DuckDBPyConnection, query: Query) -> Hits:
    """Every matching interval; a bad regular expression raises duckdb.Error."""
    cols = cur.execute(load_query("timeline_search"), {
        "pattern": query.pattern, "regex": query.regex, "max_depth": MAX_NVTX_DEPTH,
    }).fetchnumpy()
    keys = np.stack([np.asarray(cols[c], dtype=np.int64)
                     for c in ("lane_kind", "k1", "k2", "k3")], axis=1).reshape(-1, 4)
    return Hits(query, np.asarray(cols["start_ns"], dtype=np.int64),
                np.asarray(cols["end_ns"], dtype=np.int64), keys,
                np.asarray(cols["id"], dtype=np.int64))
