-- Per rank of a combined run: its training steps and their wall time (host ranges).
-- A step is a Kineto `ProfilerStep#N` annotation; a rank without those uses annotation
-- (NVTX) ranges named like a step: 'step 3', 'step_3', 'Step#3', 'train_step 3',
-- 'iteration 3', 'iter_3' (anything may follow the number), the outermost such ranges.
-- Ranks without steps are absent.
-- Columns: rank, steps, step_median_ns, step_avg_ns, step_min_ns, step_max_ns, step_names
--          ('ProfilerStep' or 'named').
WITH candidates AS (
    SELECT rank, depth, duration_ns,
           regexp_matches(name, '^ProfilerStep#\d+$') AS profiler_step
    FROM host_activities
    WHERE kind = 'annotation'
      AND (regexp_matches(name, '^ProfilerStep#\d+$')
           OR regexp_matches(name, '^(?i)(train[ _-]?)?(step|iteration|iter)[ _#:-]?\d+\b'))
), family AS (  -- ProfilerStep#N wins where a rank has both
    SELECT * FROM candidates
    QUALIFY profiler_step = max(profiler_step) OVER (PARTITION BY rank)
), outermost AS (
    SELECT * FROM family
    QUALIFY depth = min(depth) OVER (PARTITION BY rank)
)
SELECT
    rank,
    count(*) AS steps,
    median(duration_ns)::BIGINT AS step_median_ns,
    avg(duration_ns) AS step_avg_ns,
    min(duration_ns) AS step_min_ns,
    max(duration_ns) AS step_max_ns,
    CASE WHEN bool_or(profiler_step) THEN 'ProfilerStep' ELSE 'named' END AS step_names
FROM outermost
GROUP BY rank
ORDER BY rank;
