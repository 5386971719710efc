"""`@` on the timeline: where a typed target is. A time since the trace's start (`1.25s`,
`850us`), a time from the cursor (`+10ms`, `-2ms`), a step (`step 3`), or an annotation
(NVTX) range by name."""

from __future__ import annotations

import re
from dataclasses import dataclass

import duckdb

from tui.core.queries import load_query
from tui.core.steps import STEP_NAME

UNITS = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000, "µs": 1_000, "ns": 1}
_TIME = re.compile(r"^([+-])?\s*(\d+(?:\.\d*)?|\.\d+)\s*(s|ms|us|µs|ns)$", re.IGNORECASE)
_STEP = re.compile(r"^step\s*#?\s*(\d+)$", re.IGNORECASE)


@dataclass(frozen=True)
class Place:
    """Where to go: [start_ns, end_ns) (equal for a point in time) and, for a range,
    the annotation lane (pid, tid, depth) it is drawn on and its host_activities.id."""

    start_ns: int
    end_ns: int
    label: str
    lane: tuple[int, int, int] | None = None
    id: int | None = None

    @property
    def is_point(self) -> bool:
        return self.end_ns == self.start_ns


def parse_time(text: str) -> tuple[str | None, int] | None:
    """'+10ms' -> ('+', 10_000_000); '1.25s' -> (None, 1_250_000_000); else None."""
    match = _TIME.match(text.strip())
    if match is None:
        return None
    sign, number, unit = match.groups()
    return sign, round(float(number) * UNITS[unit.lower()])


def find(cur: duckdb.DuckDBPyConnection, text: str, origin: int, cursor: int) -> Place | None:
    """The place `text` names; None when nothing matches. `origin` is the time shown as 0."""
    text = text.strip()
    time = parse_time(text)
    if time is not None:
        sign, ns = time
        t = cursor + ns if sign == "+" else cursor - ns if sign == "-" else origin + ns
        return Place(t, t, text)
    step = _STEP.match(text)
    query, params = (("goto_step", {"step": step.group(1), "step_name": STEP_NAME}) if step else
                     ("goto_range", {"name": text, "t": cursor}))
    row = cur.execute(load_query(query), params).fetchone()
    if row is None:
        return None
    start, end, pid, tid, depth, name, range_id = row
    return Place(start, max(end, start + 1), name, (pid, tid, depth), range_id)
