-- Params: $profiler_step
-- Needs: schema
-- work_window.sql where the window is the profiler's steps (Kineto's `ProfilerStep#N`,
-- $profiler_step), the first kind it looks for: the same row, or none where the trace has
-- no such steps (then work_window.sql decides). Planning the other kinds' candidates took
-- more than half of work_window.sql's ~12 ms on a DDP rank, most Kineto traces have
-- steps, and a run of many ranks sums up each. From `launched` on, the same as
-- work_window.sql (tests/analysis/test_work_window.py compares the two).
-- Columns: as work_window.sql's
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
), launched AS (
    -- the end of the GPU work launched inside a window of host ranges
    SELECT max(g.end_ns) AS end_ns
    FROM chosen AS c
    JOIN host_activities AS h
      ON h.kind = 'runtime' AND h.start_ns >= c.start_ns AND h.start_ns < c.end_ns
    JOIN gpu_activities AS g ON g.correlation = h.correlation
    WHERE h.correlation IS NOT NULL
), chosen_window AS (
    SELECT c.kind, c.first_name, c.last_name, c.start_ns,
           greatest(c.end_ns, coalesce((SELECT end_ns FROM launched), c.end_ns)) AS end_ns,
           c.ranges
    FROM chosen AS c
), span AS (
    SELECT least(
        (SELECT min(start_ns) FROM gpu_activities),
        (SELECT min(start_ns) FROM host_activities)) AS first_ns
), setup_gpu AS (
    -- the GPU activities before the window, clipped to it: their union's length
    SELECT greatest(g.start_ns, s.first_ns) AS start_ns, least(g.end_ns, w.start_ns) AS end_ns
    FROM gpu AS g, chosen_window AS w, span AS s
    WHERE g.start_ns < w.start_ns AND g.end_ns > s.first_ns
), setup_union AS (
    SELECT start_ns, end_ns,
           max(end_ns) OVER (ORDER BY start_ns, end_ns
                             ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before_ns
    FROM setup_gpu
)
SELECT w.kind,
       CASE WHEN w.first_name = w.last_name OR w.last_name IS NULL THEN w.first_name
            ELSE w.first_name || ' … ' || w.last_name END AS name,
       w.start_ns, w.end_ns, w.ranges, s.first_ns,
       greatest(0, w.start_ns - s.first_ns)::BIGINT AS setup_ns,
       coalesce((SELECT sum(greatest(0, end_ns - greatest(start_ns, coalesce(before_ns,
                                                                             start_ns))))
                 FROM setup_union), 0)::BIGINT AS setup_busy_ns
FROM chosen_window AS w, span AS s;
