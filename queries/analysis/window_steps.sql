-- Params: $copy_pattern, $end_ns, $profiler_step, $start_ns, $step_name, $sync_pattern
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
), waits AS (  -- the blocking calls are few: found by a substring first, then the pattern
    SELECT pid, tid, start_ns, end_ns
    FROM host_activities
    WHERE kind = 'runtime' AND (contains(name, 'ynchronize') OR contains(name, 'emcpy'))
      AND (regexp_matches(name, $sync_pattern) OR regexp_matches(name, $copy_pattern))
      AND start_ns < $end_ns AND end_ns > $start_ns
), waited AS (
    SELECT s.pid, s.tid, s.start_ns,
           sum(least(w.end_ns, s.end_ns) - greatest(w.start_ns, s.start_ns)) AS waited_ns
    FROM steps AS s
    JOIN waits AS w
      ON w.pid = s.pid AND w.tid = s.tid AND w.start_ns < s.end_ns AND w.end_ns > s.start_ns
    GROUP BY ALL
)
SELECT s.name, s.pid, s.tid, s.start_ns, s.end_ns,
       coalesce(w.waited_ns, 0)::BIGINT AS waited_ns
FROM steps AS s
LEFT JOIN waited AS w USING (pid, tid, start_ns)
ORDER BY s.start_ns, s.pid;
