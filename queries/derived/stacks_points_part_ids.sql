-- Params: $since, $until
-- Needs: temp table stacks_points
-- The activities of ids [$since, $until) that stacks_points_launches.sql stored, to check
-- that none came twice (a correlation id that two calls share).
SELECT point_id FROM stacks_points
WHERE NOT is_memory AND point_id >= $since AND point_id < $until;
