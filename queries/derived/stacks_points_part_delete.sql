-- Params: $since, $until
-- Needs: temp table stacks_points
-- Drop the activities of ids [$since, $until) from stacks_points, to be taken again with
-- stacks_points_launches_first.sql.
DELETE FROM stacks_points
WHERE NOT is_memory AND point_id >= $since AND point_id < $until;
