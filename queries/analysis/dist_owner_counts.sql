-- Params: none
-- Needs: schema
-- For dist_links_processes.sql: the table macro dist_owner_counts_rows(since, until) over
-- the GPU activities of ids [since, until), and the temp table dist_owner_counts, empty:
-- tui/analysis/distributed/window.py fills it a part of the ids at a time
-- (dist_owner_counts_part.sql; the join of all 15.7M of a 3 GB nsys export with their
-- calls at once spilled). For each device and process: how many runtime calls share a
-- correlation id with the device's work, and how many of those began no later than the
-- work they name.
-- Columns: device, pid, calls, before.
CREATE OR REPLACE TEMP MACRO dist_owner_counts_rows(since, until) AS TABLE
SELECT g.device, r.pid, count(*) AS calls, sum((r.start_ns <= g.start_ns)::INTEGER) AS before
FROM gpu_activities AS g
JOIN host_activities AS r ON r.correlation = g.correlation AND r.kind = 'runtime'
WHERE g.correlation IS NOT NULL AND g.id >= since AND g.id < until
GROUP BY g.device, r.pid;

CREATE OR REPLACE TEMP TABLE dist_owner_counts AS FROM dist_owner_counts_rows(0, 0);
