-- Params: $profiler_step, $start_ns, $step_name
-- Needs: schema
-- The ranges around a window of steps (tui/analysis/window.py): the annotations not named
-- like steps ($profiler_step, $step_name) open at its first step's start ($start_ns), a
-- loop's own (`train` around `step 0` … `step 39`), which say nothing of what the host did
-- while the GPU waited between two steps.
-- Columns: name, by name.
SELECT DISTINCT name
FROM host_activities
WHERE kind = 'annotation' AND start_ns <= $start_ns AND end_ns > $start_ns
  AND NOT regexp_matches(name, $profiler_step) AND NOT regexp_matches(name, $step_name)
ORDER BY name;
