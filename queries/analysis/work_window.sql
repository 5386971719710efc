-- Params: $iteration_name, $iteration_repeats, $iteration_start, $library, $most, $profiler_step, $step_name
-- Needs: schema
-- The window of the work: the stretch of the trace that the diagnosis describes, the
-- steady state rather than the start-up. The first of these the trace has:
--   profiler_steps  Kineto's `ProfilerStep#N` ranges ($profiler_step), first to last
--   range           an outermost NVTX range or user annotation (one per thread, not named
--                   like a step: `compute`, `train`) whose time holds at least $most of
--                   the GPU work; with several, the one holding the most
--   steps           annotation ranges named like steps ($step_name: `step 3`, XLA's
--                   `train step 3`), their outermost depth, first to last, holding some
--                   GPU work (however much the set-up before them ran)
--   profiler_range  between cudaProfilerStart and cudaProfilerStop
--   phases          the outermost ranges named more than once on their thread (a loop's
--                   phases: `allreduce`, `compute`, `idle` each round), not named like
--                   steps nor a library's own ($library: NCCL's `ncclAllReduce`), first
--                   to last, whose time holds at least $most of the GPU work
--   iteration       the kernel sequence's repeating iteration (work_iteration.sql: its first
--                   kernel's start $iteration_start, the anchor kernel $iteration_name and
--                   $iteration_repeats; NULL: none asked for), to the last GPU activity
--   gpu_span        the first GPU activity to the last
-- Host ranges end when the host has issued the work, not when the GPU has run it: a
-- window of ranges ends when the last GPU activity launched inside it ends (the launch
-- found by correlation id), if that is later.
-- "GPU work" is the time of every GPU activity, summed over devices, clipped to the range.
-- Also the set-up: the trace from its first recorded event to the window's start, and how
-- much of it some GPU activity ran (the union over devices).
--          $iteration_start, $iteration_name, $iteration_repeats (or NULL)
-- Columns: kind, name, start_ns, end_ns, ranges (the ranges that make it up), first_ns
--          (the trace's first event), setup_ns, setup_busy_ns
WITH gpu AS (
    SELECT start_ns, end_ns FROM gpu_activities
    WHERE device IS NOT NULL AND end_ns > start_ns
), work AS (
    SELECT sum(end_ns - start_ns) AS ns, min(start_ns) AS first_ns, max(end_ns) AS last_ns
    FROM gpu
), notes AS (
    SELECT pid, tid, name, start_ns, end_ns, depth,
           regexp_matches(name, $profiler_step) AS profiler_step,
           regexp_matches(name, $step_name) AS step_named
    FROM host_activities
    WHERE kind = 'annotation' AND end_ns > start_ns
), profiler_steps AS (
    SELECT 'profiler_steps' AS kind, arg_min(name, start_ns) AS first_name,
           arg_max(name, start_ns) AS last_name,
           min(start_ns) AS start_ns, max(end_ns) AS end_ns, count(*) AS ranges, 1 AS rank
    FROM notes
    WHERE profiler_step
    HAVING count(*) > 0
), outer_ranges AS (
    -- the outermost ranges not named like steps, one per thread for their name
    SELECT name, min(start_ns) AS start_ns, max(end_ns) AS end_ns, count(*) AS ranges
    FROM notes
    WHERE depth = 0 AND NOT profiler_step AND NOT step_named
    GROUP BY name
    HAVING count(*) = count(DISTINCT (pid, tid))
), step_notes AS (  -- the outermost of the ranges named like steps
    SELECT * FROM notes
    WHERE step_named AND NOT profiler_step
    QUALIFY depth = min(depth) OVER ()
), step_group AS (
    SELECT min(start_ns) AS start_ns, max(end_ns) AS end_ns, count(*) AS ranges,
           arg_min(name, start_ns) AS first_name, arg_max(name, start_ns) AS last_name
    FROM step_notes
    HAVING count(*) > 0
), phase_notes AS (
    SELECT * FROM notes
    WHERE depth = 0 AND NOT profiler_step AND NOT step_named
      AND NOT regexp_matches(name, $library)
    QUALIFY count(*) OVER (PARTITION BY pid, tid, name) > 1
), phase_group AS (
    SELECT min(start_ns) AS start_ns, max(end_ns) AS end_ns, count(*) AS ranges,
           arg_min(name, start_ns) AS first_name, arg_max(name, end_ns) AS last_name
    FROM phase_notes
    HAVING count(*) > 0
), ranged AS (
    SELECT 'range' AS kind, name AS first_name, name AS last_name, start_ns, end_ns,
           ranges, 2 AS rank
    FROM outer_ranges
    UNION ALL
    SELECT 'steps', first_name, last_name, start_ns, end_ns, ranges, 3
    FROM step_group
    UNION ALL
    SELECT 'phases', first_name, last_name, start_ns, end_ns, ranges, 5
    FROM phase_group
), held AS (
    -- the GPU work inside each candidate's time (a range join: few candidates); a
    -- candidate with none holds 0 (least and greatest skip the join's NULLs: unfiltered,
    -- a range without GPU work would hold its own length)
    SELECT r.kind, r.first_name, r.last_name, r.start_ns, r.end_ns, r.ranges, r.rank,
           coalesce(sum(least(g.end_ns, r.end_ns) - greatest(g.start_ns, r.start_ns))
                        FILTER (WHERE g.start_ns IS NOT NULL), 0) AS held_ns
    FROM ranged AS r
    LEFT JOIN gpu AS g ON g.end_ns > r.start_ns AND g.start_ns < r.end_ns
    GROUP BY ALL
), holding AS (
    SELECT kind, first_name, last_name, start_ns, end_ns, ranges, rank
    FROM held
    WHERE held_ns > 0 AND (kind = 'steps' OR held_ns >= $most * (SELECT ns FROM work))
), profiler_calls AS (
    SELECT 'profiler_range' AS kind, 'cudaProfilerStart' AS first_name,
           'cudaProfilerStop' AS last_name,
           min(end_ns) FILTER (WHERE starts_with(name, 'cudaProfilerStart')) AS start_ns,
           coalesce(max(start_ns) FILTER (WHERE starts_with(name, 'cudaProfilerStop')),
                    (SELECT last_ns FROM work)) AS end_ns,
           1 AS ranges, 4 AS rank
    FROM host_activities
    WHERE kind = 'runtime' AND starts_with(name, 'cudaProfiler')
    HAVING min(end_ns) FILTER (WHERE starts_with(name, 'cudaProfilerStart')) IS NOT NULL
), iteration AS (
    -- found by work_iteration.sql, asked for where none of the above is found
    SELECT 'iteration' AS kind, $iteration_name AS first_name, $iteration_name AS last_name,
           $iteration_start AS start_ns, (SELECT last_ns FROM work) AS end_ns,
           $iteration_repeats AS ranges, 6 AS rank
    WHERE $iteration_start IS NOT NULL
), whole AS (
    SELECT 'gpu_span' AS kind, NULL AS first_name, NULL AS last_name, first_ns AS start_ns,
           last_ns AS end_ns, 0 AS ranges, 7 AS rank
    FROM work
    WHERE first_ns IS NOT NULL
), chosen AS (
    SELECT * FROM (
        SELECT * FROM profiler_steps
        UNION ALL SELECT * FROM holding
        UNION ALL SELECT * FROM profiler_calls
        UNION ALL SELECT * FROM iteration
        UNION ALL SELECT * FROM whole
    )
    ORDER BY rank, (end_ns - start_ns) DESC, start_ns
    LIMIT 1
), launched AS (
    -- the end of the GPU work launched inside a window of host ranges
    SELECT max(g.end_ns) AS end_ns
    FROM chosen AS c
    JOIN host_activities AS h
      ON h.kind = 'runtime' AND h.start_ns >= c.start_ns AND h.start_ns < c.end_ns
    JOIN gpu_activities AS g ON g.correlation = h.correlation
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
FROM chosen_window AS w, span AS s;
