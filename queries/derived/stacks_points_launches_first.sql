-- Params: $since, $until, {host}
-- Needs: temp table stacks_points, temp table {host}
-- The GPU activities of ids [$since, $until) into stacks_points (stacks_points.sql), each
-- with the host call its correlation id names, the first where two calls share one, at
-- that call's start: for a part where stacks_points_launches.sql found an activity twice
-- (two processes' correlation ids can meet in one report). Grouped by the activity, after
-- the join: a trace has many more runtime calls than activities (an nsys report: 40M
-- beside 16M), and picking each correlation's first call among all of them first took
-- three times as long. Parts and time order as stacks_points_launches.sql says.
INSERT INTO stacks_points
SELECT FALSE AS is_memory, g.id AS point_id, min(r.id) AS runtime_id,
       arg_min(r.pid, r.id) AS pid, arg_min(r.tid, r.id) AS tid,
       arg_min(r.start_ns, r.id) AS t
FROM gpu_activities AS g
JOIN {host} AS r ON r.correlation = g.correlation AND r.kind = 'runtime'
WHERE g.id >= $since AND g.id < $until
GROUP BY g.id
ORDER BY t;
