-- Params: $profiler_step, $step_name
-- Needs: schema
-- Every training step of every rank of a combined run (views with a `rank` column,
-- tui/runs/combine.py): its host range and the launches made in it.
-- A step is a Kineto `ProfilerStep#N` annotation; a rank without those uses annotation
-- (NVTX) ranges named like a step, the outermost such ranges ($profiler_step, $step_name:
-- tui/core/steps.py).
-- A step's launches are the CUDA runtime calls that began inside its host range, on any
-- thread; first/last_correlation bound their correlation ids (CUPTI numbers launches in
-- order), so GPU work whose launch call the trace lost still falls in its step.
-- Columns: rank, step (its name), start_ns, end_ns, duration_ns, profiler_step (bool),
--          first_correlation, last_correlation (NULL: the step launched nothing).
WITH candidates AS (
    SELECT rank, name, start_ns, end_ns, depth, duration_ns,
           regexp_matches(name, $profiler_step) AS profiler_step
    FROM host_activities
    WHERE kind = 'annotation'
      AND (regexp_matches(name, $profiler_step)
           OR regexp_matches(name, $step_name))
), family AS (  -- ProfilerStep#N wins where a rank has both
    SELECT * FROM candidates
    QUALIFY profiler_step = max(profiler_step) OVER (PARTITION BY rank)
), outermost AS (
    SELECT * FROM family
    QUALIFY depth = min(depth) OVER (PARTITION BY rank)
), calls AS (  -- each launch call in the step that began last at or before it
    SELECT c.rank, s.start_ns, c.correlation
    FROM (SELECT rank, start_ns, correlation FROM host_activities
          WHERE kind = 'runtime' AND correlation IS NOT NULL) AS c
    ASOF JOIN outermost AS s ON c.rank = s.rank AND c.start_ns >= s.start_ns
    WHERE c.start_ns < s.end_ns
), launched AS (
    SELECT rank, start_ns, min(correlation) AS first_correlation,
           max(correlation) AS last_correlation
    FROM calls
    GROUP BY rank, start_ns
)
SELECT o.rank, o.name AS step, o.start_ns, o.end_ns, o.duration_ns, o.profiler_step,
       l.first_correlation, l.last_correlation
FROM outermost AS o
LEFT JOIN launched AS l USING (rank, start_ns)
ORDER BY o.rank, o.start_ns;
