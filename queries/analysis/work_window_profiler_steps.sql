-- Params: $profiler_step, {window}
-- Needs: schema
-- work_window.sql where the window is the profiler's steps (Kineto's `ProfilerStep#N`,
-- $profiler_step), the first kind it looks for: the same row, or none where the trace has
-- no such steps (then work_window.sql decides). Planning the other kinds' candidates took
-- more than half of work_window.sql's ~12 ms on a DDP rank, most Kineto traces have
-- steps, and a run of many ranks sums up each (tests/analysis/test_work_window.py compares
-- the two). {window}: work_window_setup.sql, as in work_window.sql.
-- Columns: as work_window_setup.sql's
WITH gpu AS (
    SELECT start_ns, end_ns FROM gpu_activities
    WHERE device IS NOT NULL AND end_ns > start_ns
), chosen AS (
    SELECT 'profiler_steps' AS kind, arg_min(name, start_ns) AS first_name,
           arg_max(name, start_ns) AS last_name,
           min(start_ns) AS start_ns, max(end_ns) AS end_ns, count(*) AS ranges
    FROM host_activities
    WHERE kind = 'annotation' AND end_ns > start_ns AND regexp_matches(name, $profiler_step)
    HAVING count(*) > 0
)
SELECT * FROM ({window});
