-- The host ranges of each kind in $kinds on the threads with points (stacks_points.sql),
-- into the temp table stacks_ranges (id, k: the kind's place in $kinds, pid, tid,
-- start_ns, end_ns, depth, at_key), for stacks_last_started.sql and the levels query.
CREATE OR REPLACE TEMP TABLE stacks_ranges AS
SELECT id, list_position($kinds, kind) AS k, pid, tid, start_ns, end_ns, depth,
       -- start, then depth: of ranges starting at one time the deepest sorts last
       CAST(start_ns AS HUGEINT) * 65536 + least(greatest(depth, 0), 65535) AS at_key
FROM host_activities
WHERE list_contains($kinds, kind)
  AND (pid, tid) IN (SELECT DISTINCT pid, tid FROM stacks_points);
