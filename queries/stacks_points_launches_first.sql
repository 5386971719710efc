-- The GPU activities of ids [$since, $until) into stacks_points (stacks_points.sql), each
-- with the host call its correlation id names, the first where two calls share one (in a
-- part where stacks_points_launches.sql found that: two processes' correlation ids can
-- meet in one report), at that call's start. Grouped by the activity, after the join: a
-- trace has many more runtime
-- calls than activities (an nsys report: 40M beside 16M), and picking each correlation's
-- first call among all of them first took three times as long.
-- A part at a time (tui/sources/stacks.py), so that the join's table of activities fits
-- DuckDB's memory: all 15.7M of a 3 GB nsys export at once spilled 3 GB to disk (9.0 s; in
-- four parts 5.7 s). An activity's ids follow time, as its calls' correlation ids do, so
-- each part's join reads only the calls of its stretch of time.
-- Each part is stored in time order: the nesting reads the points a window of time at a
-- time, and in time order each window's read skips the rest (a 3 GB nsys export: 9.2 s ->
-- 1.5 s for the reads).
INSERT INTO stacks_points
SELECT 'launch' AS what, g.id AS point_id, min(r.id) AS runtime_id,
       arg_min(r.pid, r.id) AS pid, arg_min(r.tid, r.id) AS tid,
       arg_min(r.start_ns, r.id) AS t
FROM gpu_activities AS g
JOIN host_activities AS r ON r.correlation = g.correlation AND r.kind = 'runtime'
WHERE g.id >= $since AND g.id < $until
GROUP BY g.id
ORDER BY t;
