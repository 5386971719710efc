-- Params: $step, $step_name
-- Needs: schema
-- `@ step N` on the timeline: the range of training step N. A Kineto `ProfilerStep#N`
-- annotation, else an annotation (NVTX) range named like a step ($step_name, whose group 1
-- is the number: tui/core/steps.py); the outermost.
-- Given:  $step (the step number, as text), $step_name
-- Columns: start_ns, end_ns, pid, tid, depth, name, id (host_activities.id)
SELECT start_ns, end_ns, pid, tid, depth, name, id
FROM host_activities
WHERE kind = 'annotation'
  AND (name = 'ProfilerStep#' || $step
       OR regexp_extract(name, $step_name, 1) = $step)
ORDER BY starts_with(name, 'ProfilerStep#') DESC, depth, start_ns
LIMIT 1
