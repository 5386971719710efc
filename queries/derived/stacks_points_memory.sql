-- Params: none
-- Needs: temp table stacks_points
-- The memory events into stacks_points (stacks_points.sql) as points, in time order (after
-- the launches: stacks_points_launches.sql).
INSERT INTO stacks_points
SELECT TRUE, id, NULL, pid, tid, ts_ns
FROM memory_events
ORDER BY ts_ns;
