-- Params: none
-- Needs: cte chosen, cte gpu
-- The window that work_window.sql or work_window_profiler_steps.sql chose (the slot
-- {window} of each; chosen: its one row, kind, first_name, last_name, start_ns, end_ns,
-- ranges; gpu: the GPU activities with a device, start_ns and end_ns, of some length), as
-- they return it. Host ranges end when the host has issued the work, not when the GPU has
-- run it: a window of ranges ends when the last GPU activity launched inside it ends (the
-- launch found by correlation id), if that is later. Also the set-up: the trace from its
-- first recorded event to the window's start, and how much of it some GPU activity ran
-- (the union over devices).
-- Columns: kind, name, start_ns, end_ns, ranges (the ranges that make it up), first_ns
--          (the trace's first event), setup_ns, setup_busy_ns
WITH launched AS (
    -- the end of the GPU work launched inside a window of host ranges, where later than
    -- the window's own: only work that ends after it can move it, so only that is joined
    -- with its launch (every kernel of a 10 GB trace's window with its call: 1.8 s)
    SELECT max(g.end_ns) AS end_ns
    FROM chosen AS c
    JOIN gpu_activities AS g ON g.end_ns > c.end_ns
    JOIN host_activities AS h
      ON h.correlation = g.correlation AND h.kind = 'runtime'
     AND h.start_ns >= c.start_ns AND h.start_ns < c.end_ns
    WHERE c.kind IN ('profiler_steps', 'range', 'steps', 'phases')
      AND h.correlation IS NOT NULL
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
FROM chosen_window AS w, span AS s
