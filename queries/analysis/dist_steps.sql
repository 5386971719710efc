-- Params: $cutoff_ns, $profiler_step, $step_name
-- Needs: schema
-- The training steps of one trace for its critical paths (tui/analysis/distributed/
-- critical_path.py): Kineto `ProfilerStep#N` annotations, else annotation (NVTX, JAX
-- StepTraceAnnotation) ranges named like a step ($profiler_step, $step_name: tui/core/steps.py),
-- the outermost; only those
-- that began before $cutoff_ns (dist_window.sql's cut; NULL: every step). An nsys report of
-- several processes has each process's steps.
-- Columns: name, start_ns, end_ns, pid, tid (of the step's range).
WITH candidates AS (
    SELECT name, start_ns, end_ns, pid, tid, depth,
           regexp_matches(name, $profiler_step) AS profiler_step
    FROM host_activities
    WHERE kind = 'annotation'
      AND (regexp_matches(name, $profiler_step)
           OR regexp_matches(name, $step_name))
), family AS (
    SELECT * FROM candidates QUALIFY profiler_step = max(profiler_step) OVER ()
)
SELECT name, start_ns, end_ns, pid, tid
FROM family
WHERE $cutoff_ns IS NULL OR start_ns < $cutoff_ns
QUALIFY depth = min(depth) OVER ()
ORDER BY start_ns, pid;
