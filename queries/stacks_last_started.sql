-- The first half of finding each point's innermost host ranges the ASOF way (stacks.py
-- picks the way): for each point of the temp table stacks_points (what, point_id, pid,
-- tid, t) and each kind in $kinds, the last range of that kind on the point's thread
-- (stacks_ranges.sql) to start at or before t (the deepest, of ranges starting
-- together), into the temp table stacks_last_started (p, k, pid, tid, t, id, end_ns,
-- depth). The ranges of one kind on one thread nest, and host_activities.depth numbers
-- their levels: when that range is still open (start <= t < end) it is the innermost, as
-- any range open at t that started earlier encloses it; when it has ended, the innermost
-- is one of the levels above it (stacks_innermost_levels.sql).
CREATE OR REPLACE TEMP TABLE stacks_last_started AS
SELECT q.p, q.k, q.pid, q.tid, q.t, r.id, r.end_ns, r.depth
FROM (SELECT p.rowid AS p, k.k, p.pid, p.tid, p.t,
             CAST(p.t AS HUGEINT) * 65536 + 65535 AS at_key
      FROM stacks_points AS p
      CROSS JOIN (SELECT generate_series AS k FROM generate_series(1, len($kinds))) AS k
     ) AS q
ASOF JOIN stacks_ranges AS r
    ON r.k = q.k AND r.pid = q.pid AND r.tid = q.tid AND r.at_key <= q.at_key;
