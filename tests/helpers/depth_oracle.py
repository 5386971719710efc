"""Host depth by its definition, for tests: every start and end point of every host range
sorted, and a running count of the ranges open (how many ranges of the same kind on the
same thread are open when a range starts; at equal times ends close before starts open,
except a zero-length range's end, and longer ranges open first)."""

from __future__ import annotations

import duckdb

DEPTHS = """
WITH points AS (
    SELECT id, kind, pid, tid, start_ns AS t, 1 AS delta, 1 AS tie, end_ns
    FROM host_activities
    UNION ALL
    SELECT id, kind, pid, tid, end_ns, -1,
           CASE WHEN end_ns > start_ns THEN 0 ELSE 2 END, end_ns
    FROM host_activities
)
SELECT id, sum(delta) OVER (ORDER BY kind, pid, tid, t, tie, end_ns DESC, id
                            ROWS UNBOUNDED PRECEDING) - 1 AS depth, delta
FROM points
"""


def depth_mismatches(con: duckdb.DuckDBPyConnection) -> tuple[int, int, int]:
    """(rows, rows whose host_activities.depth is not the definition's, deepest depth)."""
    row = con.execute(f"""
        SELECT count(*), count(*) FILTER (WHERE h.depth IS DISTINCT FROM r.depth),
               max(h.depth)
        FROM host_activities AS h JOIN ({DEPTHS}) AS r ON r.id = h.id AND r.delta = 1
    """).fetchone()
    assert row is not None
    return row
