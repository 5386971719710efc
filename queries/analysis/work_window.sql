-- Params: $iteration_end, $iteration_name, $iteration_repeats, $iteration_start, $library, $most, $profiler_step, $step_name, {window}
-- Needs: schema
-- The window of the work: the stretch of the trace that the diagnosis describes, the
-- steady state rather than the start-up. The first of these the trace has:
--   profiler_steps  Kineto's `ProfilerStep#N` ranges ($profiler_step), first to last
--   range           an outermost NVTX range or user annotation (one per thread, not named
--                   like a step nor a library's own ($library): `compute`, `train`)
--                   whose time holds at least $most of
--                   the GPU work and, where the trace has ranges named like steps, one of
--                   them; with several, the one holding the most
--   steps           annotation ranges named like steps ($step_name: `step 3`, XLA's
--                   `train step 3`), their outermost depth, first to last, holding some
--                   GPU work (however much the set-up before them ran)
--   profiler_range  between cudaProfilerStart and cudaProfilerStop (a capture of
--                   `nsys profile --capture-range=cudaProfilerApi` holds the driver's
--                   cuProfilerStart alone: it runs to the last GPU activity)
--   phases          the outermost ranges named more than once on their thread (a loop's
--                   phases: `allreduce`, `compute`, `idle` each round), not named like
--                   steps nor a library's own ($library: NCCL's `ncclAllReduce`), first
--                   to last, whose time holds at least $most of the GPU work
--   iteration       the kernel sequence's repeating iteration (work_iteration.sql: its first
--                   kernel's start $iteration_start, the anchor kernel $iteration_name and
--                   $iteration_repeats; NULL: none asked for), to its last repeat's end
--                   ($iteration_end: work_iteration_end.sql), else to the last GPU activity
--   gpu_span        the first kernel (the first GPU activity where none is a kernel) to
--                   the last GPU activity: the copies before the first kernel (a model's
--                   weights uploaded, then its start-up) are set-up; named `kernel` where
--                   it starts at one
-- "GPU work" is the time of every GPU activity, summed over devices, clipped to the range.
-- {window}: work_window_setup.sql, which ends a window of host ranges where its GPU work
-- does and adds the set-up before it (work_window_profiler_steps.sql shares it).
-- Columns: as work_window_setup.sql's
WITH gpu AS (
    SELECT start_ns, end_ns, kind FROM gpu_activities
    WHERE device IS NOT NULL AND end_ns > start_ns
), work AS (
    SELECT sum(end_ns - start_ns) AS ns, min(start_ns) AS first_ns, max(end_ns) AS last_ns,
           min(start_ns) FILTER (WHERE kind = 'kernel') AS first_kernel_ns
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
    -- the outermost ranges not named like steps nor a library's own, one per thread for
    -- their name
    SELECT name, min(start_ns) AS start_ns, max(end_ns) AS end_ns, count(*) AS ranges
    FROM notes
    WHERE depth = 0 AND NOT profiler_step AND NOT step_named
      AND NOT regexp_matches(name, $library)
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
    FROM held AS h
    WHERE held_ns > 0 AND (kind = 'steps' OR held_ns >= $most * (SELECT ns FROM work))
      -- where the trace names its steps, a range around none of them is set-up (a
      -- compile and its autotuning, a warm-up), however much GPU work it ran
      AND (kind <> 'range' OR NOT EXISTS (SELECT 1 FROM step_notes)
           OR EXISTS (SELECT 1 FROM step_notes AS s
                      WHERE s.start_ns >= h.start_ns AND s.start_ns < h.end_ns))
), profiler_calls AS (
    SELECT 'profiler_range' AS kind, 'cudaProfilerStart' AS first_name,
           'cudaProfilerStop' AS last_name,
           min(end_ns) FILTER (WHERE name SIMILAR TO 'cu(da)?ProfilerStart.*') AS start_ns,
           coalesce(max(start_ns) FILTER (WHERE name SIMILAR TO 'cu(da)?ProfilerStop.*'),
                    (SELECT last_ns FROM work)) AS end_ns,
           1 AS ranges, 4 AS rank
    FROM host_activities
    WHERE kind = 'runtime' AND (starts_with(name, 'cudaProfiler')
                                OR starts_with(name, 'cuProfiler'))
    HAVING min(end_ns) FILTER (WHERE name SIMILAR TO 'cu(da)?ProfilerStart.*') IS NOT NULL
), iteration AS (
    -- found by work_iteration.sql, asked for where none of the above is found
    SELECT 'iteration' AS kind, $iteration_name AS first_name, $iteration_name AS last_name,
           $iteration_start AS start_ns,
           coalesce($iteration_end, (SELECT last_ns FROM work)) AS end_ns,
           $iteration_repeats AS ranges, 6 AS rank
    WHERE $iteration_start IS NOT NULL
), whole AS (
    SELECT 'gpu_span' AS kind,
           CASE WHEN first_kernel_ns IS NOT NULL THEN 'kernel' END AS first_name,
           CASE WHEN first_kernel_ns IS NOT NULL THEN 'kernel' END AS last_name,
           coalesce(first_kernel_ns, first_ns) AS start_ns, last_ns AS end_ns, 0 AS ranges,
           7 AS rank
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
)
SELECT * FROM ({window});
