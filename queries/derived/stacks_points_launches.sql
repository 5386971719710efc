-- Params: $since, $until, {host}
-- Needs: temp table stacks_points, temp table {host}
-- The GPU activities of ids [$since, $until) into stacks_points (stacks_points.sql), each
-- with the host call its correlation id names, at that call's start. A correlation id
-- names one call in a process, so no grouping: tui/derived/stacks.py checks the part's
-- ids (stacks_points_part_ids.sql) and, where an activity came twice, takes the part again
-- with stacks_points_launches_first.sql. Without the grouping, a part of 4M activities of
-- a 3 GB nsys export: 1.23 -> 0.65 s.
-- A part at a time (tui/derived/stacks.py), so that the join's table of activities fits
-- DuckDB's memory: all 15.7M of a 3 GB nsys export at once spilled 3 GB to disk. An
-- activity's ids follow time, as its calls' correlation ids do, so each part's join reads
-- only the calls of its stretch of time.
-- {host}: host_activities, or before it is written, the host rows copied out for their
-- depths (stacks_points_host_rows.sql: the same ids).
-- Each part is stored in time order: the nesting reads the points a window of time at a
-- time, and in time order each window's read skips the rest (a 3 GB nsys export: 9.2 s ->
-- 1.5 s for the reads).
INSERT INTO stacks_points
SELECT FALSE AS is_memory, g.id AS point_id, r.id AS runtime_id, r.pid, r.tid, r.start_ns AS t
FROM gpu_activities AS g
JOIN {host} AS r ON r.correlation = g.correlation AND r.kind = 'runtime'
WHERE g.id >= $since AND g.id < $until
ORDER BY t;
