-- Params: $k, $since, $until
-- Needs: temp table stacks_points
-- The points of the temp table stacks_points (stacks_points.sql) for tui/derived/nesting.py
-- to look up among the ranges of kind number $k, those at times in [$since, $until):
-- is_memory (else a launch), point_id, group_key (as stacks_nesting_ranges.sql keys its
-- thread's ranges of that kind), t.
SELECT is_memory, point_id, hash($k::INTEGER, pid, tid) AS group_key, t
FROM stacks_points
WHERE t >= $since AND t < $until;
