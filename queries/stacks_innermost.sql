-- For each point of the temp table stacks_points (what, point_id, pid, tid, t), the
-- innermost host range of each kind in $kinds open at t on the point's thread, into the
-- temp table stacks_found (what, point_id, kind, host_id). Only the threads with points
-- are read. A running count over the ranges' starts (+1) and ends (-1) and the points (0),
-- sorted by thread and time, gives how many ranges are open at a point (ends close before
-- starts open, and a point comes after both): the innermost is at depth count - 1, and it
-- is the last range of that depth to start on the thread before the point (at one depth
-- one range is open at a time), a second window over starts and points by depth. Sorts
-- and windows only, no range-by-point join; the sorts carry integers only (the kind as
-- its place in $kinds, the point as its row in stacks_points).
CREATE OR REPLACE TEMP TABLE stacks_found AS
WITH ranges AS (
    SELECT id, list_position($kinds, kind) AS k, pid, tid, start_ns, end_ns
    FROM host_activities
    WHERE list_contains($kinds, kind)
      AND (pid, tid) IN (SELECT DISTINCT pid, tid FROM stacks_points)
), sweep AS (
    SELECT k, pid, tid, start_ns AS t, 1 AS tie, 1 AS delta, NULL::BIGINT AS p, id AS rid
    FROM ranges
    UNION ALL
    SELECT k, pid, tid, end_ns, CASE WHEN end_ns > start_ns THEN 0 ELSE 2 END, -1, NULL, NULL
    FROM ranges
    UNION ALL
    SELECT k.k, p.pid, p.tid, p.t, 3, 0, p.rowid, NULL
    FROM stacks_points AS p CROSS JOIN (SELECT generate_series AS k
                                        FROM generate_series(1, len($kinds))) AS k
), counted AS (
    SELECT k, pid, tid, t, tie, delta, p, rid,
           sum(delta) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - 1 AS depth
    FROM (SELECT * FROM sweep ORDER BY k, pid, tid, t, tie)
), found AS (
    SELECT p, k, last_value(rid IGNORE NULLS) OVER (
               PARTITION BY k, pid, tid, depth ORDER BY t, tie
               ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS host_id
    FROM counted
    WHERE delta = 1 OR (delta = 0 AND depth >= 0)
)
SELECT s.what, s.point_id, $kinds[f.k] AS kind, f.host_id
FROM found AS f
JOIN (SELECT rowid AS p, what, point_id FROM stacks_points) AS s USING (p)
WHERE f.p IS NOT NULL AND f.host_id IS NOT NULL;
