-- For each point of the temp table stacks_points (what, point_id, pid, tid, t), the
-- innermost host range of each kind in $kinds open at t on the point's thread, into the
-- temp table stacks_found (what, point_id, kind, host_id). Only the threads with points
-- are read. A running count over the ranges' starts (+1) and ends (-1) and the points (0),
-- sorted by thread and time, gives how many ranges are open at a point (ends close before
-- starts open, and a point comes after both); the innermost is then the last range at
-- depth count - 1 to start on that thread, an ASOF join (the depths are host_depth.sql's).
-- Sorts and merges only: no range-by-point join. The sort carries integers only (the
-- kind as its place in $kinds, the point as its row in stacks_points).
CREATE OR REPLACE TEMP TABLE stacks_found AS
WITH ranges AS (
    SELECT id, list_position($kinds, kind) AS k, pid, tid, start_ns, end_ns, depth
    FROM host_activities
    WHERE list_contains($kinds, kind)
      AND (pid, tid) IN (SELECT DISTINCT pid, tid FROM stacks_points)
), points AS (
    SELECT rowid AS p, pid, tid, t FROM stacks_points
), sweep AS (
    SELECT k, pid, tid, start_ns AS t, 1 AS tie, 1 AS delta, NULL::BIGINT AS p FROM ranges
    UNION ALL
    SELECT k, pid, tid, end_ns, CASE WHEN end_ns > start_ns THEN 0 ELSE 2 END, -1, NULL
    FROM ranges
    UNION ALL
    SELECT k.k, p.pid, p.tid, p.t, 3, 0, p.p
    FROM points AS p CROSS JOIN (SELECT generate_series AS k
                                 FROM generate_series(1, len($kinds))) AS k
), counted AS (
    SELECT p, k, pid, tid, t, delta,
           sum(delta) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS open_now
    FROM (SELECT * FROM sweep ORDER BY k, pid, tid, t, tie)
), found AS (
    SELECT c.p, c.k, r.id AS host_id
    FROM (SELECT * FROM counted WHERE delta = 0 AND open_now > 0) AS c
    ASOF JOIN ranges AS r
        ON r.k = c.k AND r.pid = c.pid AND r.tid = c.tid
       AND r.depth = c.open_now - 1 AND r.start_ns <= c.t
)
SELECT s.what, s.point_id, $kinds[f.k] AS kind, f.host_id
FROM found AS f
JOIN (SELECT rowid AS p, what, point_id FROM stacks_points) AS s USING (p);
