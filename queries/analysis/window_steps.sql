-- Params: $end_ns, $profiler_step, $start_ns, $step_name, {waited}
-- Needs: schema
-- The steps in the window of work (tui/analysis/step_times.py): Kineto's `ProfilerStep#N`
-- annotations where the window has them, else annotation (NVTX, JAX StepTraceAnnotation)
-- ranges named like a step ($profiler_step, $step_name: tui/core/steps.py), the outermost
-- of those that start in the window ($start_ns..$end_ns); every process's. With each, the
-- time its thread spent in calls that wait on the GPU inside it (clipped to the step):
-- synchronising ones ($sync_pattern: cudaStreamSynchronize, …) and copies ($copy_pattern: a
-- copy to pageable memory, `.item()`'s, waits for the stream to drain). A host that runs
-- ahead of the GPU waits for it in the step that reads a result, which is then long
-- without doing more.
-- Columns: name, pid, tid, start_ns, end_ns (the step's host range), waited_ns, by start.
WITH candidates AS (
    SELECT name, pid, tid, start_ns, end_ns, depth,
           regexp_matches(name, $profiler_step) AS profiler_step
    FROM host_activities
    WHERE kind = 'annotation'
      AND start_ns >= $start_ns AND start_ns < $end_ns
      AND end_ns > start_ns
      AND (regexp_matches(name, $profiler_step)
           OR regexp_matches(name, $step_name))
), family AS (  -- ProfilerStep#N wins where the window has both
    SELECT * FROM candidates
    QUALIFY profiler_step = max(profiler_step) OVER ()
), steps AS (
    SELECT name, pid, tid, start_ns, end_ns
    FROM family
    QUALIFY depth = min(depth) OVER ()
),
{waited}
